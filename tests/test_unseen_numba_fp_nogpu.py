"""The floating-point kernels of tests/unseen/numba_fp.py without a GPU:
every case's host code runs unchanged under cujit.cuda against the fake
libcuda (tests/fakecuda/unseen_fp_scenarios.py, one fresh process for all
cases), each launched kernel built for the host and run there on the
parameters cujit packed (one host thread per CUDA thread where the block's
threads work together); the results are checked against NumPy at the
cases' tolerances, which assume Numba's float64 accumulators.  Also the
regression tests of what these kernels found: numba-cuda's typing of
math.floor / ceil / trunc (a float), of math on integers (float64) and on
float16 (float32 outside the half-precision functions), of float() (keeps
float32) and of complex() of float32 parts (complex64), and atomics indexed
by such floats."""
import math
import os
import sys

import numpy as np
import pytest

import cujit
from cujit import cuda
from test_kernels_host import CXX
from test_runtime_nogpu import fake_driver, nvrtc_or_skip  # noqa: F401

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "unseen"))
import corpus  # noqa: E402
import numba_fp  # noqa: E402

NAMES = [fn.__name__ for fn in numba_fp.CASES]
results, test_case_on_host, test_module_has_enough_cases = corpus.host_tests(
    numba_fp, "unseen_fp_scenarios.py", timeout=1500, drop_env=("UNSEEN_FP_LOOSE",))



# ---- regressions: Numba's result types, as numba-cuda 0.30's compile_ptx gives them ----

def _resty(src, argty):
    ns = {"math": math, "np": np}
    exec("def f(x):\n    return %s\n" % src, ns)
    return str(cuda.compile_ptx(ns["f"], "(%s,)" % argty, device=True, cc=(9, 0))[1])


@pytest.mark.parametrize("src, argty, want", [
    ("math.floor(x)", "float32", "float32"),        # numba-cuda: a float, not an int
    ("math.ceil(x)", "float64", "float64"),
    ("math.trunc(x)", "float16", "float16"),
    ("math.floor(x)", "int32", "float64"),
    ("math.floor(x) + x", "float32", "float32"),
    ("math.sqrt(x)", "uint8", "float64"),           # an integer computes in float64
    ("math.exp(x)", "int16", "float64"),
    ("math.sin(x)", "bool", "float64"),
    ("math.sqrt(x)", "float16", "float16"),         # numba-cuda's half-precision set
    ("math.tanh(x)", "float16", "float16"),
    ("math.erf(x)", "float16", "float32"),          # the others compute in float32
    ("math.atan2(x, x)", "float16", "float32"),
    ("math.hypot(x, x)", "float16", "float32"),
    ("math.log1p(x)", "float16", "float32"),
    ("math.exp(x)", "float32", "float32"),
    ("math.exp(x * 0.5)", "float32", "float64"),
    ("float(x)", "float32", "float32"),             # float() keeps float32 / float16
    ("float(x)", "float16", "float16"),
    ("float(x)", "int32", "float64"),
    ("complex(x, x)", "float32", "complex64"),      # complex() of float32 parts
    ("complex(x)", "float32", "complex64"),
    ("complex(x, 1.0)", "float32", "complex128"),
    ("complex(x, x)", "float64", "complex128"),
    ("complex(x, x)", "int32", "complex128"),
    ("round(x, 2)", "float16", "float32"),          # round(x, n): a float of an int or half
    ("round(x, 2)", "int32", "float64"),
    ("round(x, -1)", "int64", "float64"),
    ("round(x, 2)", "float32", "float32"),
    ("round(x)", "float32", "int64"),
])
def test_numba_result_types(src, argty, want):
    nvrtc_or_skip()
    assert _resty(src, argty) == want


def test_rawkernel_math_keeps_python_and_numpy_types():
    """jit.rawkernel (cupyx's rules) is not cuda.jit: math.floor is still
    Python's int and math of uint8 NumPy's float32"""
    nvrtc_or_skip()
    from cujit import jit

    @jit.rawkernel()
    def k(x, u, out, out2):
        i = jit.threadIdx.x
        out[i] = math.floor(x[i]) + 0 * u[i]
        out2[i] = math.sqrt(u[i])
    src = k.inspect_cuda("(float32[:], uint8[:], float64[:], float64[:])") \
        if hasattr(k, "inspect_cuda") else None
    if src is None:
        pytest.skip("rawkernel has no inspect_cuda")
    assert "sqrtf(" in src, src
    assert "(long long)floorf(" in src or "(int64_t)floorf(" in src, src


def test_float_indices_of_atomics():
    """cuda.atomic.add(h, (math.floor(x) + 4, 0), 1) takes the float index
    as Numba does (cast to an integer; the quantize case checks floor's NaN
    and infinities on the host); a float indexing an array is refused, as
    in Numba"""
    nvrtc_or_skip()

    def k(x, q, h):
        i = cuda.grid(1)
        if i < x.size:
            q[i] = math.floor(x[i])
            if x[i] == x[i] and abs(x[i]) < 4:
                cuda.atomic.add(h, (math.floor(x[i]) + 4, 0), 1)
    ker = cuda.jit(k)
    sig = "void(float64[::1], float64[::1], int32[:, ::1])"
    src = ker.inspect_cuda(sig)
    assert "floor(" in src and ".target" in ker.inspect_ptx(sig)

    def bad(x, out):
        out[math.floor(x[0])] = 1.0     # Numba refuses a float index too
    with pytest.raises(cujit.CompileError, match="indices must be integers, got float64"):
        cuda.jit(bad).inspect_cuda("void(float64[::1], float64[::1])")


@pytest.fixture
def launch(tmp_path):
    nvrtc_or_skip()
    if CXX is None:
        pytest.skip("no host C++ compiler (g++ or clang++)")
    from test_kernels_host import host_launcher
    return host_launcher(str(tmp_path))


def test_numba_math_values_on_host(launch):
    """the values of what numba-cuda types otherwise: floor of NaN / inf
    stays, floor(x_f32) * h_f32 is a float32 product, math of uint8 and
    float16 computes in float64 / float32, round(int, -2) is a float
    rounded at the hundreds, round(float16, 1) a float32"""
    rng = np.random.default_rng(5)

    @cuda.jit
    def k(x, h, u, q, i, out):
        j = cuda.grid(1)
        if j < x.size:
            out[j, 0] = math.floor(x[j])
            out[j, 1] = math.floor(x[j] / h) * h
            out[j, 2] = math.sqrt(u[j])
            out[j, 3] = math.atan2(q[j], q[j] + np.float16(1))
            out[j, 4] = round(i[j], -2)
            out[j, 5] = round(q[j], 1)
    n = 64
    x = rng.uniform(-50, 50, n).astype(np.float32)
    x[:3] = [np.nan, np.inf, -np.inf]
    h = np.float32(0.37)
    u = rng.integers(0, 256, n).astype(np.uint8)
    q = rng.uniform(-3, 3, n).astype(np.float16)
    iv = rng.integers(-100000, 100000, n)
    out = np.zeros((n, 6))
    launch(k, 1, 64, [x, h, u, q, iv, out])
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(out[:, 0], np.floor(x).astype(np.float64))
        want1 = (np.floor(x / h) * h).astype(np.float64)
    np.testing.assert_array_equal(out[3:, 1], want1[3:])
    np.testing.assert_allclose(out[:, 2], np.sqrt(u.astype(np.float64)), rtol=1e-15)
    q32 = q.astype(np.float32)
    np.testing.assert_allclose(out[:, 3], np.arctan2(q32, (q + np.float16(1)).astype(np.float32)),
                               rtol=1e-6)
    np.testing.assert_array_equal(out[:, 4], np.round(iv.astype(np.float64), -2))
    np.testing.assert_allclose(out[:, 5], np.round(q32, 1).astype(np.float64), rtol=1e-6)
