"""Numba's smaller kernel features in cujit.cuda without a GPU (PTX checks,
error messages, the fake driver): cache-hint loads and stores (cuda.ldcg
...), cuda.nanosleep, alignment= of local and shared arrays with
arr.ctypes.data, arr.dtype as a local array's dtype, cuda.selp without a
branch, warp vote type checks with Numba's words, `raise` in kernels, and
an explicit signature's int parameter given a Python int out of its range.
On the GPU: tests/gpu/test_numba_misc_gpu.py."""
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import cujit
from cujit import cuda
from cujit.cuda import int64, uint32, void
from test_runtime_nogpu import fake_driver, nvrtc_or_skip  # noqa: F401

HERE = os.path.dirname(os.path.abspath(__file__))
LOADS = [(cuda.ldca, "ca"), (cuda.ldcg, "cg"), (cuda.ldcs, "cs"), (cuda.ldlu, "lu"),
         (cuda.ldcv, "cv")]
STORES = [(cuda.stcg, "cg"), (cuda.stcs, "cs"), (cuda.stwb, "wb"), (cuda.stwt, "wt")]
HINT_TYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
              "float16", "float32", "float64"]


# ---- cache hints ----

@pytest.mark.parametrize("op, hint", LOADS)
def test_cache_hint_loads_ptx(op, hint):
    nvrtc_or_skip()

    @cuda.jit
    def load1(r, x):
        for i in range(len(r)):
            r[i] = op(x, i)

    @cuda.jit
    def load2(r, x):
        for i in range(x.shape[0]):
            for j in range(x.shape[1]):
                r[i, j] = op(x, (i, j))
    for ty in HINT_TYPES:
        bits = np.dtype(ty).itemsize * 8
        assert f"ld.global.{hint}.b{bits}" in load1.inspect_ptx(f"({ty}[::1], {ty}[::1])")
        assert f"ld.global.{hint}.b{bits}" in load2.inspect_ptx(f"({ty}[:, :], {ty}[:, :])")


@pytest.mark.parametrize("op, hint", STORES)
def test_cache_hint_stores_ptx(op, hint):
    nvrtc_or_skip()

    @cuda.jit
    def store1(r, x):
        for i in range(len(r)):
            op(r, i, x[i])

    @cuda.jit
    def store2(r, x):
        for i in range(x.shape[0]):
            for j in range(x.shape[1]):
                op(r, (i, j), x[i, j])
    for ty in HINT_TYPES:
        bits = np.dtype(ty).itemsize * 8
        assert f"st.global.{hint}.b{bits}" in store1.inspect_ptx(f"({ty}[::1], {ty}[::1])")
        assert f"st.global.{hint}.b{bits}" in store2.inspect_ptx(f"({ty}[:, ::1], {ty}[:, ::1])")


def hint_float_index(x):
    cuda.ldcs(x, 1.0)


def hint_too_many(x):
    cuda.ldcs(x, (1, 2))


def hint_scalar_for_2d(x):
    cuda.ldcs(x, 1)


def hint_too_few(x):
    cuda.ldcs(x, (1,))


def hint_complex(r, x):
    r[0] = cuda.ldcs(x, 0)


def hint_bool_store(x):
    cuda.stcg(x, 0, True)


def hint_local(x):
    a = cuda.local.array(4, np.float32)
    x[0] = cuda.ldcg(a, 0)


@pytest.mark.parametrize("fn, sig, words", [
    (hint_float_index, "(float32[::1],)", "float64 is not a valid index"),
    (hint_too_many, "(float32[::1],)", "Expected 1 indices, got 2"),
    (hint_scalar_for_2d, "(float32[:, ::1],)", "Expected 2 indices, got a scalar"),
    (hint_too_few, "(float32[:, ::1],)", "Expected 2 indices, got 1"),
    (hint_complex, "(complex64[::1], complex64[::1])",
     "ldcs requires array of integer or float type"),
    (hint_bool_store, "(bool[::1],)", "stcg requires array of integer or float type"),
    (hint_local, "(float32[::1],)", "needs an array in global memory"),
])
def test_cache_hint_errors(fn, sig, words):
    with pytest.raises(cuda.TypingError, match=re.escape(words)) as e:
        cuda.jit(fn).inspect_cuda(sig)
    assert e.value.lineno is not None


def test_nanosleep_ptx():
    nvrtc_or_skip()

    def use_nanosleep(x):
        cuda.nanosleep(32)
        cuda.nanosleep(x)
    ptx, _ = cuda.compile_ptx(use_nanosleep, (uint32,))
    assert ptx.count("nanosleep.u32") == 2


def test_nanosleep_needs_an_integer():
    def sleep_float(x):
        cuda.nanosleep(x)
    with pytest.raises(TypeError, match="integer number of nanoseconds"):
        cuda.jit(sleep_float).inspect_cuda("(float32,)")


# ---- alignment= and .ctypes.data ----

REC = np.dtype([("a", np.uint8), ("b", np.int32), ("c", np.float64)], align=True)


@pytest.mark.parametrize("space", ["local", "shared"])
@pytest.mark.parametrize("dtype", [np.uint8, np.float64, REC])
@pytest.mark.parametrize("alignment", [None, 16, 64, 256])
def test_alignment_in_cuda_and_ptx(space, dtype, alignment):
    nvrtc_or_skip()
    shape = (2, 3)
    if space == "local":
        @cuda.jit
        def f(out):
            a = cuda.local.array(shape=shape, dtype=dtype, alignment=alignment)
            out[0] = a.ctypes.data
    else:
        @cuda.jit
        def f(out):
            a = cuda.shared.array(shape=shape, dtype=dtype, alignment=alignment)
            out[0] = a.ctypes.data
    src = f.inspect_cuda("(uint64[::1],)")
    assert "(unsigned long long)a" in src
    ptx = f.inspect_ptx("(uint64[::1],)")
    aligns = [int(m) for m in re.findall(r"\.%s \.align (\d+) " % space, ptx)]
    assert aligns, ptx[-2000:]
    if alignment is None:
        assert "__align__" not in src.split("cj_f_")[-1]
    else:
        assert f"__align__({alignment})" in src
        assert max(aligns) == alignment


@pytest.mark.parametrize("bad", [-1, 0, 3, 17, 512])
@pytest.mark.parametrize("space", ["local", "shared"])
def test_alignment_not_a_power_of_two(bad, space):
    if space == "local":
        @cuda.jit
        def f(out):
            a = cuda.local.array(4, np.uint8, alignment=bad)
            out[0] = a.ctypes.data
    else:
        @cuda.jit
        def f(out):
            a = cuda.shared.array(4, np.uint8, alignment=bad)
            out[0] = a.ctypes.data
    with pytest.raises(ValueError, match="Alignment must be a power of two"):
        f.inspect_cuda("(uint64[::1],)")


@pytest.mark.parametrize("bad", ["1", 1.0, 1.5])
def test_alignment_not_an_integer(bad):
    @cuda.jit
    def f(out):
        a = cuda.local.array(4, np.uint8, alignment=bad)
        out[0] = a.ctypes.data
    with pytest.raises(cuda.TypingError,
                       match="RequireLiteralValue:.*alignment must be a constant integer"):
        f.inspect_cuda("(uint64[::1],)")


def test_ctypes_data_of_an_argument_and_a_scalar():
    @cuda.jit
    def addr(x, out):
        out[0] = x.ctypes.data
    assert "(unsigned long long)x.data" in addr.inspect_cuda("(float32[::1], uint64[::1])")

    @cuda.jit
    def bad(x, out):
        out[0] = x.ctypes.data
    with pytest.raises(TypeError, match="ctypes.data"):
        bad.inspect_cuda("(float32, uint64[::1])")


def test_local_array_of_an_arguments_dtype():
    n = 100

    @cuda.jit(void(int64[::1]))
    def f(ary):
        lm = cuda.local.array(n, dtype=ary.dtype)
        sm = cuda.shared.array(n, dtype=ary.dtype)
        for j in range(n):
            lm[j] = j
            sm[j] = lm[j]
        ary[0] = sm[n - 1]
    src = f.inspect_cuda(f.signatures[0])
    assert "long long lm[100];" in src and "__shared__ long long sm[100];" in src


# ---- selp, warp votes, grid ----

def test_selp_has_no_branch():
    nvrtc_or_skip()

    def with_selps(a, b, c):
        i = cuda.grid(1)
        inner = cuda.selp(b % 2 == 0, c[i], 13)
        a[i] = cuda.selp(a[i] > 4, inner, 3)
    sig = (int64[:], int64, int64[:])
    ptx = cuda.jit(sig)(with_selps).inspect_asm(sig)
    assert not re.findall(r"\s+bra\s+", ptx)


def vote_all(mask, predicate, result):
    i = cuda.grid(1)
    if i < result.shape[0]:
        result[i] = cuda.all_sync(mask[i], predicate[i])


@pytest.mark.parametrize("sig, words", [
    ("void(float32[:], int32[:], int32[:])", "Mask type must be an integer"),
    ("void(boolean[:], int32[:], int32[:])", "Mask type must be an integer"),
    ("void(int32[:], float32[:], int32[:])", "Predicate must be an integer or boolean"),
    ("void(int32[:], float64[:], int32[:])", "Predicate must be an integer or boolean"),
])
def test_vote_type_errors(sig, words):
    with pytest.raises(cuda.TypingError, match=words):
        cuda.jit(sig)(vote_all)


@pytest.mark.parametrize("sig", ["void(uint32[:], uint32[:], int32[:])",
                                 "void(uint64[:], boolean[:], int32[:])",
                                 "void(int64[:], int64[:], int32[:])"])
def test_vote_types_accepted(sig):
    cuda.jit(sig)(vote_all)


def test_grid_of_a_variable_says_literal():
    def nonliteral_grid(x):
        cuda.grid(x)
    with pytest.raises(cuda.TypingError, match="RequireLiteralValue"):
        cuda.jit("void(int32)")(nonliteral_grid)


# ---- device functions' PTX, inspect_asm's keys ----

def test_device_function_asm():
    nvrtc_or_skip()

    def dev(x, y):
        return x / y
    fast = cuda.jit("float32(float32, float32)", device=True, fastmath=True)(dev)
    prec = cuda.jit("float32(float32, float32)", device=True)(dev)
    assert "div.approx.ftz.f32" in fast.inspect_asm("float32(float32, float32)")
    assert "div.rn.f32" in prec.inspect_asm("float32(float32, float32)")
    every = prec.inspect_asm()
    assert len(every) == 1 and ".func" in list(every.values())[0]


def test_inspect_asm_keyed_by_any_spelling():
    nvrtc_or_skip()
    sig = (cuda.float64[::1],)

    def body(x):
        x[0] = 1
    k = cuda.jit(sig)(body)
    asm = k.inspect_asm()
    assert asm[sig] == asm["(float64[::1])"] and ".entry" in asm[sig]


# ---- raise ----

class KernelError(Exception):
    pass


def raises_value_error(do_raise):
    if do_raise:
        raise ValueError


def raises_in_branches(x, out):
    i = cuda.grid(1)
    if x == 1:
        raise KernelError
    elif x == 2:
        raise KernelError("foo", 3)
    else:
        y = 2 * x
    out[i] = y          # assigned on every path that gets here


def test_raise_compiles_to_a_record_and_an_end():
    src = cuda.jit(raises_in_branches).inspect_cuda("(int32, int32[::1])")
    assert src.count("cj_record(3, ") == 2 and src.count("return;") >= 2


def test_raise_in_a_device_function_exits_the_thread():
    @cuda.jit(device=True)
    def checked(x):
        if x < 0:
            raise ValueError("negative")
        return x * 2

    @cuda.jit
    def k(a):
        a[0] = checked(a[0])
    assert 'asm volatile("exit;")' in k.inspect_cuda("(int32[::1],)")
    nvrtc_or_skip()
    assert "exit;" in k.inspect_ptx("(int32[::1],)")


def bare_raise(x):
    raise


def raise_instance_of_variable(x):
    raise ValueError(x)


def raise_not_a_class(x):
    raise x


def raise_from(x):
    raise ValueError("a") from KernelError


@pytest.mark.parametrize("fn, error, words", [
    (bare_raise, cujit.CompileError, "bare raise"),
    (raise_instance_of_variable, TypeError, "must be constants"),
    (raise_not_a_class, TypeError, "exception class known at compile time"),
    (raise_from, cujit.CompileError, "raise ... from"),
])
def test_raise_errors(fn, error, words):
    with pytest.raises(error, match=re.escape(words)) as e:
        cuda.jit(fn).inspect_cuda("(int32,)")
    assert isinstance(e.value, cujit.CompileError) and e.value.lineno is not None


RAISE_SCENARIO = textwrap.dedent('''
    import numpy as np
    from cujit import cuda


    class MyError(Exception):
        pass


    @cuda.jit
    def fake_raise(x):
        raise MyError("boom", 3)


    try:
        fake_raise[4, 8](np.int32(1))
    except MyError as e:
        text = str(e)
        assert text.startswith("In function 'fake_raise', file "), text
        assert ", line 7, tid=[5, 0, 0] ctaid=[3, 0, 0]: ('boom', 3)" in text, text
    else:
        raise AssertionError("no MyError")
    print("raise ok")
''')


def test_raise_reaches_the_host(fake_driver, tmp_path):  # noqa: F811
    """The fake driver's kernel cj_fake_raise_* writes a raise record (line 7,
    block 3, thread 5): the launch raises the user's class with its
    arguments and the place."""
    script = tmp_path / "raise_scenario.py"
    script.write_text(RAISE_SCENARIO)
    env = dict(os.environ, CUJIT_CACHE_DIR=str(tmp_path / "cache"),
               LD_LIBRARY_PATH=fake_driver + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    r = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                       timeout=300, cwd=str(tmp_path))
    assert r.returncode == 0 and "raise ok" in r.stdout, r.stdout + r.stderr


# ---- explicit signatures: a Python int out of range wraps ----

WRAP_SCENARIO = textwrap.dedent('''
    import numpy as np
    from cujit import cuda


    def simple_ffs(ary, c):
        ary[0] = cuda.ffs(c)


    k = cuda.jit("void(int32[:], int32)")(simple_ffs)
    ary = np.zeros(1, dtype=np.int32)
    k[1, 1](ary, 0x00100000)
    k[1, 1](ary, 0x80000000)        # wraps to -2**31, as in Numba
    try:
        k[1, 1](ary, 2.5j)
    except TypeError:
        pass
    else:
        raise AssertionError("a complex number was taken for int32")
    print("wrap ok")
''')


def test_int_argument_wraps_for_an_explicit_signature(fake_driver, tmp_path):  # noqa: F811
    script = tmp_path / "wrap_scenario.py"
    script.write_text(WRAP_SCENARIO)
    env = dict(os.environ, CUJIT_CACHE_DIR=str(tmp_path / "cache"),
               LD_LIBRARY_PATH=fake_driver + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    r = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                       timeout=300, cwd=str(tmp_path))
    assert r.returncode == 0 and "wrap ok" in r.stdout, r.stdout + r.stderr


# ---- a packed record dtype, used as a local array's dtype ----

PACKED = np.dtype([("a", np.uint8), ("b", np.int32)])     # align=False: b at offset 1


def test_unaligned_record_dtype_in_a_local_array():
    """NumPy's packed layout (b at offset 1) is a packed struct aligned to 1,
    as Numba's test_array_alignment declares local arrays of it"""
    @cuda.jit
    def f(out):
        a = cuda.local.array(4, dtype=PACKED)
        a[1].b = out.size
        out[0] = a.ctypes.data + a[1].b
    src = f.inspect_cuda("(uint64[::1],)")
    assert "__attribute__((packed, aligned(1)))" in src
    assert ".visible .entry" in f.inspect_ptx("(uint64[::1],)")
