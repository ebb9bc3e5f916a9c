"""Numba's Optional return values without a GPU: what the C++ holds (a
cj_opt<T>, its flag for `is None`, cj_opt_get where the value is used), the
unwrap of a None on the host shim (TypeError recorded with Numba's words,
the thread stopped before its store), and the refusals.  What the kernels
compute: tests/kernels/optional.py (host shim and GPU)."""
import os
import sys

import numpy as np
import pytest

import cujit
from cujit import cuda

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_debug_checks_nogpu import CXX, run_host, tmp  # noqa: E402,F401

rng = np.random.default_rng()


@cuda.jit(device=True)
def half_if_even(x):
    if x % 2 == 0:
        return x // 2


def use_directly(r, a):
    i = cuda.grid(1)
    if i < a.size:
        r[i] = half_if_even(a[i]) * 10       # no test: a None raises TypeError


def test_device_function_returns_optional():
    src = cuda.jit(use_directly).inspect_cuda(np.zeros(4, np.int64), np.zeros(4, np.int64))
    assert "static __device__ __forceinline__ cj_opt<long long> " in src, src
    assert "return {};" in src, src
    assert "cj_opt_get(cj_dev_half_if_even" in src, src


def test_all_paths_return_a_value_is_not_optional():
    @cuda.jit(device=True)
    def always(x):
        if x > 0:
            return x
        else:
            return -x

    @cuda.jit
    def k(r, a):
        r[0] = always(a[0])
    src = k.inspect_cuda(np.zeros(1), np.zeros(1))
    assert "cj_opt" not in src, src


def test_while_true_without_break_is_not_optional():
    @cuda.jit(device=True)
    def first_above(a, t):
        i = 0
        while True:
            if a[i] > t:
                return i
            i += 1

    @cuda.jit
    def k(r, a):
        r[0] = first_above(a, 0.5)
    src = k.inspect_cuda(np.zeros(1, np.int64), np.zeros(4))
    assert "cj_opt" not in src, src


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler (g++ or clang++)")
def test_unwrapping_none_raises_type_error_on_host(tmp):
    k = cuda.jit(use_directly)
    n = 16
    a = rng.integers(-50, 50, n).astype(np.int64) * 2      # even: values
    odd = int(rng.integers(0, n))
    a[odd] += 1                                             # odd: None
    r = np.full(n, -77, np.int64)
    rec, src = run_host(k, tmp, 1, n, r, a)
    assert rec is not None and rec.kind == 3, src
    assert rec.thread[0] == odd
    assert rec.line == use_directly.__code__.co_firstlineno + 3
    assert r[odd] == -77, "the thread must stop before its store"
    ok = np.arange(n) != odd
    np.testing.assert_array_equal(r[ok], (a[ok] // 2) * 10)


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler (g++ or clang++)")
def test_no_none_records_nothing(tmp):
    k = cuda.jit(use_directly)
    a = rng.integers(-50, 50, 8).astype(np.int64) * 2
    r = np.full(8, -77, np.int64)
    rec, _ = run_host(k, tmp, 1, 8, r, a)
    assert rec is None
    np.testing.assert_array_equal(r, (a // 2) * 10)


def test_optional_record_is_refused():
    rec = np.dtype([("a", np.int32), ("b", np.float64)])

    @cuda.jit(device=True)
    def pick(arr, i):
        if i > 0:
            return arr[i]

    @cuda.jit
    def k(r, arr):
        x = pick(arr, cuda.grid(1))
        r[0] = x.b
    with pytest.raises(cujit.CompileTypeError) as e:
        k.inspect_cuda(np.zeros(1), np.zeros(3, rec))
    assert "None on another" in str(e.value), str(e.value)


def test_optional_message_names_numba_type():
    @cuda.jit(device=True)
    def f(x):
        if x > 0:
            return x

    @cuda.jit
    def k(r, a):
        v = f(a[0])
        r[0] = v[0]         # an Optional(float64) is no tuple
    with pytest.raises(cujit.CompileError):
        k.inspect_cuda(np.zeros(1), np.zeros(1))


def test_variable_only_none_is_no_storage_and_tests_true():
    def k(r, a):
        x = None
        if x is None:
            r[0] = a[0]
    src = cuda.jit(k).inspect_cuda(np.zeros(1), np.zeros(1))
    body = src[src.index("/* k at"):]
    assert " x" not in body.replace("(", " ").split("{", 1)[1].split("r.data")[0], body


def test_none_variable_used_as_a_value_is_an_error():
    def k(r, a):
        x = None
        r[0] = a[0]
        r[1] = x
    with pytest.raises(cujit.CompileTypeError) as e:
        cuda.jit(k).inspect_cuda(np.zeros(2), np.zeros(1))
    assert "none" in str(e.value).lower(), str(e.value)
    assert e.value.lineno == k.__code__.co_firstlineno + 3


def test_none_then_value_in_sequence_is_a_plain_variable():
    def k(r, a):
        x = None
        x = a[0] * 2
        r[0] = x
    src = cuda.jit(k).inspect_cuda(np.zeros(1), np.zeros(1))
    assert "cj_opt" not in src, src


def test_conditional_expression_with_none_is_refused():
    def k(r, a):
        v = a[0] if a[0] > 0 else None
        r[0] = v
    with pytest.raises(cujit.CompileTypeError):
        cuda.jit(k).inspect_cuda(np.zeros(1), np.zeros(1))


# ---- an Optional where the signature declares a value ----

def maybe_next(x):
    if x > 0:
        return x + 1
    else:
        return


maybe_next_device = cuda.jit(device=True)(maybe_next)


def wrapper_func(x):
    return maybe_next_device(x)


def test_cabi_compile_of_optional_result():
    """numba-cuda's test_compile_cabi_calling_device_function_returning_optional:
    the C-ABI entry returns the declared int32, its function converts its
    Optional result with cj_opt_get (NVRTC rejected cj_opt<long long> -> int)"""
    from cujit.cuda import types
    code, ret = cuda.compile(wrapper_func, types.int32(types.int32), output="ltoir", abi="c")
    assert isinstance(code, bytes) and len(code) > 0
    assert str(ret) == "int32"
    ptx, _ = cuda.compile(wrapper_func, types.int32(types.int32), output="ptx", abi="c")
    assert ".visible .func  (.param .b32 func_retval0) wrapper_func(" in ptx, ptx[:3000]


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler (g++ or clang++)")
def test_declared_device_function_returning_callee_optional(tmp):
    """cuda.jit("int32(int32)", device=True) returning an Optional callee's
    result compiles (Numba casts), its value where there is one and a
    TypeError recorded where it is None"""
    declared = cuda.jit("int32(int32)", device=True)(wrapper_func)

    def k(r, a):
        i = cuda.grid(1)
        if i < a.size:
            r[i] = declared(a[i])
    kern = cuda.jit(k)
    n = 12
    a = rng.integers(1, 1000, n).astype(np.int32)
    bad = int(rng.integers(0, n))
    a[bad] = -int(rng.integers(0, 5))
    r = np.full(n, -77, np.int64)
    rec, src = run_host(kern, tmp, 1, n, r, a)
    assert "cj_opt_get(cj_dev_maybe_next" in src, src
    assert rec is not None and rec.kind == 3 and rec.thread[0] == bad, src
    assert rec.line == wrapper_func.__code__.co_firstlineno + 1
    ok = np.arange(n) != bad
    np.testing.assert_array_equal(r[ok], a[ok] + 1)
    assert r[bad] == -77


def test_declared_return_that_does_not_convert_is_a_type_error():
    """a tuple where int32 is declared: a TypeError at the def line (NVRTC
    rejected the entry before, and the error named another function's line)"""
    from cujit.cuda import types

    def pair(x):
        return (maybe_next_device(x), 1)
    with pytest.raises(cujit.CompileTypeError) as e:
        cuda.compile(pair, types.int32(types.int32), output="ptx", abi="c")
    assert isinstance(e.value, TypeError)
    assert "'pair' is declared to return int32" in str(e.value), str(e.value)
    assert e.value.lineno == pair.__code__.co_firstlineno


def test_entry_carries_the_def_line():
    """the C-ABI entry has a #line of its function, so that NVRTC's
    complaints about it name that function's file and line"""
    import subprocess
    code = ("import sys; sys.path.insert(0, %r); import test_optional_nogpu as t; "
            "from cujit import cuda; from cujit.cuda import types; "
            "cuda.compile(t.wrapper_func, types.int32(types.int32), output='ptx', abi='c')"
            % HERE)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, CUJIT_DUMP="1", CUJIT_FRONT_KEY="0"))
    out = r.stdout + r.stderr
    line = wrapper_func.__code__.co_firstlineno
    assert '#line %d "%s"\nextern "C" __device__' % (line, __file__) in out, out[-3000:]
