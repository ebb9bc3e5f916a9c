"""cupyx.jit's language features, checked without a GPU: what the generated
CUDA and NVRTC's PTX show, and the exceptions users catch.  The kernels that
also run on the GPU are in tests/kernels/cupyx_lang.py."""
import re

import numpy as np
import pytest

import cujit
from cujit import jit

SIG = "(float32[::1], float32[::1])"


@jit.rawkernel()
def loop_unrolled(x, out):
    s = 0.0
    for j in jit.range(16, unroll=True):
        s += x[j] * x[j]
    out[0] = s


@jit.rawkernel()
def loop_not_unrolled(x, out):
    s = 0.0
    for j in jit.range(16, unroll=False):
        s += x[j] * x[j]
    out[0] = s


@jit.rawkernel()
def loop_plain(x, out):
    s = 0.0
    for j in range(16):
        s += x[j] * x[j]
    out[0] = s


def _line_of(text):
    with open(__file__, encoding="utf-8") as f:
        return [n for n, line in enumerate(f, 1) if text in line][0]


def _branches(ptx):
    return len(re.findall(r"\bbra(\.uni)?\b", ptx))


def test_unroll_true_leaves_no_loop_in_ptx():
    assert "#pragma unroll\n" in loop_unrolled.inspect_cuda(SIG)
    assert _branches(loop_unrolled.inspect_ptx(SIG)) == 0


def test_unroll_false_keeps_the_loop_in_ptx():
    assert "#pragma unroll(1)\n" in loop_not_unrolled.inspect_cuda(SIG)
    assert _branches(loop_not_unrolled.inspect_ptx(SIG)) >= 1


def test_no_unroll_no_pragma():
    assert "#pragma" not in loop_plain.inspect_cuda(SIG)


def test_jit_range_outside_a_kernel():
    with pytest.raises(RuntimeError):
        jit.range(3)


# ---- the exception classes ----

def test_error_classes():
    for cls, base in ((cujit.CompileTypeError, TypeError),
                      (cujit.CompileValueError, ValueError),
                      (cujit.CompileIndexError, IndexError)):
        assert issubclass(cls, cujit.CompileError) and issubclass(cls, base)
        assert issubclass(cls, SyntaxError)


@jit.rawkernel()
def adds_array_and_tuple(x, out):
    out[0] = x[0] + (1, 2)


@jit.rawkernel()
def grid_zero(out):
    i = jit.grid(0)
    out[i] = 1


def test_type_error_caught_as_type_error():
    try:
        adds_array_and_tuple.inspect_cuda(SIG)
    except TypeError as e:
        assert isinstance(e, cujit.CompileError)
        assert e.lineno == _line_of("out[0] = x[0] + (1, 2)")
        assert e.filename.endswith("test_cupyx_lang.py") and e.offset >= 1
        assert "out[0] = x[0] + (1, 2)" in e.text
    else:
        raise AssertionError("no error")


def test_value_error_caught_as_value_error():
    with pytest.raises(ValueError) as info:
        grid_zero.inspect_cuda("(float32[::1],)")
    assert isinstance(info.value, cujit.CompileValueError)
    assert info.value.lineno == _line_of("i = jit.grid(0)")


@jit.rawkernel()
def unknown_name(out):
    out[0] = no_such_name  # noqa: F821


def test_unknown_name_is_a_plain_compile_error():
    """NameError and SyntaxError cannot share a class (instance layouts)."""
    with pytest.raises(cujit.CompileError) as info:
        unknown_name.inspect_cuda("(float32[::1],)")
    assert type(info.value) is cujit.CompileError


# ---- factories, closures and calls run at compile time ----

def _scale(k):
    return 1.5 * k


@jit.rawkernel()
def folded_call(x, out):
    out[0] = x[0] * _scale(2)


def test_plain_call_with_constant_arguments_is_folded():
    src = folded_call.inspect_cuda(SIG)
    assert "x.data[0LL] * 3.0f" in src and "_scale" not in src


def _kernel_factory(c):
    @jit.rawkernel()
    def k(x, out):
        out[0] = x[0] + c
    return k


def test_kernel_factory_products_do_not_share_code_or_cache():
    a, b = _kernel_factory(1), _kernel_factory(2)
    sa, sb = a.inspect_cuda(SIG), b.inspect_cuda(SIG)
    assert "+ 1.0f" in sa and "+ 2.0f" in sb
    assert a.inspect_ptx(SIG) != b.inspect_ptx(SIG)
    assert cujit._cujit._cache_key(sa, "k") != cujit._cujit._cache_key(sb, "k")


def _device_factory(c):
    @jit.rawkernel(device=True)
    def g(v):
        return v * c
    return g


@jit.rawkernel()
def same_named_products(x, out):
    out[0] = _device_factory(2)(x[0]) + _device_factory(3)(x[0])


def test_same_named_device_functions_get_distinct_names():
    src = same_named_products.inspect_cuda(SIG)
    names = re.findall(r"__device__ __forceinline__ float (\w+)\(", src)
    assert len(names) == 2 and len(set(names)) == 2, names
    same_named_products.inspect_ptx(SIG)


# ---- what cupyx.jit's own tests (test_raw.py) showed cujit lacked ----

def _unroll_kernel(unroll):
    @jit.rawkernel()
    def k(x, out):
        y = x[0]
        if unroll == None:  # noqa: E711  (cupyx.jit's tests spell it so)
            for i in jit.range(5):
                y += 2
        elif unroll is not None:
            for i in jit.range(5, unroll=unroll):
                y += 3
        out[0] = y
    return k


@pytest.mark.parametrize("unroll,pragma", [
    (None, None), (True, "#pragma unroll\n"), (5, "#pragma unroll(5)\n"),
    (False, "#pragma unroll(1)\n")])
def test_comparison_with_none_is_folded(unroll, pragma):
    src = _unroll_kernel(unroll).inspect_cuda(SIG)
    body = src[src.index("extern"):]
    if pragma is None:
        assert "unroll" not in body
    else:
        assert pragma in body
    # only the branch taken is compiled
    assert ("2" in body) == (unroll is None) or ("3" in body) == (unroll is not None), body
    assert ("+= 2" in body or "+ 2" in body) != ("+= 3" in body or "+ 3" in body), body


@jit.rawkernel()
def assigned_on_one_path(a, b):
    lane = jit.threadIdx.x & 0x1F
    if lane == 0:
        value = a[0]
    value = jit.shfl_sync(0xFFFFFFFF, value, 0)
    b[lane] = value


def test_variable_assigned_on_some_paths_compiles_zeroed_with_a_warning():
    # cupyx.jit compiles this (its test_shfl) and so does Numba (test_ssa.py):
    # the variable is zero-initialized, and the read is warned about at its line
    with pytest.warns(UserWarning, match=r"test_cupyx_lang.py:205: variable 'value' may be "
                      r"used before it is assigned"):
        src = assigned_on_one_path.inspect_cuda(SIG)
    assert re.search(r"float value\{\};", src), src


@jit.rawkernel()
def unpack_int():
    x, = jit.grid(1)


def test_unpacking_a_number_is_a_value_and_a_type_error():
    with pytest.raises(ValueError) as e:     # cupyx.jit's; Python's is a TypeError
        unpack_int.inspect_cuda("()")
    assert isinstance(e.value, cujit.CompileError) and isinstance(e.value, TypeError)
    assert "cannot unpack a value of type" in str(e.value)


_A_LIST = [0]


@jit.rawkernel()
def uses_a_list():
    x = jit.grid(_A_LIST)


def test_a_global_of_an_unusable_type_is_a_type_error():
    with pytest.raises(TypeError) as e:
        uses_a_list.inspect_cuda("()")
    assert isinstance(e.value, cujit.CompileError)
    assert "'_A_LIST' is an object of type 'list'" in str(e.value)


def test_cached_code_and_cached_codes():
    @jit.rawkernel()
    def copy(x, y):
        i = jit.threadIdx.x
        y[i] = x[i]

    assert copy.cached_codes == {}
    with pytest.raises(RuntimeError, match="no signature yet"):
        copy.cached_code
    src = copy.inspect_cuda(SIG)
    assert copy.cached_code == src
    assert list(copy.cached_codes.values()) == [src]
    copy.inspect_cuda("(int32[::1], int32[::1])")
    assert len(copy.cached_codes) == 2
    with pytest.raises(RuntimeError, match="several signatures"):
        copy.cached_code


@jit.rawkernel()
def aligned_shared(x, out):
    s = jit.shared_memory(np.int32, 64, alignment=16)
    t = jit.shared_memory(np.float32, 32)
    i = jit.threadIdx.x
    s[i] = 1
    t[i] = x[i]
    jit.syncthreads()
    out[i] = t[i] + s[i]


def test_shared_memory_alignment():
    # cupyx.jit's jit.shared_memory(dtype, size, alignment=): __align__(n)
    src = aligned_shared.inspect_cuda(SIG)
    assert re.search(r"__shared__ __align__\(16\) int \w+\[64\];", src), src
    assert re.search(r"__shared__ float \w+\[32\];", src), src
    aligned_shared.inspect_ptx(SIG)


@pytest.mark.parametrize("bad", [3, 512, 0])
def test_shared_memory_alignment_must_be_a_small_power_of_two(bad):
    @jit.rawkernel()
    def k(x, out):
        s = jit.shared_memory(np.int32, 64, alignment=bad)
        s[0] = 1
        out[0] = s[0]

    with pytest.raises(ValueError, match="power of two from 1 to 256") as e:
        k.inspect_cuda(SIG)
    assert isinstance(e.value, cujit.CompileError)
