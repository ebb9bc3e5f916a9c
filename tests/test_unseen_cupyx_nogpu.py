"""The real-world-style cupyx.jit kernels of tests/unseen/cupyx_kernels.py
without a GPU: every case run through `from cujit import jit` against the
fake libcuda (tests/fakecuda/unseen_cupyx_scenarios.py, in one fresh
process), each launched kernel run on the CPU where its meaning allows and
compared with NumPy; and the regressions of what those kernels found
(NumPy's and CuPy's ufuncs in kernels, cupyx.jit's launch keywords)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import cujit
from cujit import jit
from test_runtime_nogpu import fake_driver, nvrtc_or_skip  # noqa: F401

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "unseen"))
import cupyx_harness as H  # noqa: E402

# cases whose kernels need threads running together beyond barriers and
# shared memory (shuffles, cub, cooperative groups, thrust): compiled and
# launched here, their values checked on the GPU only
COMPILED_ONLY = {"warp_reduce_shfl_down", "warp_butterfly_xor", "warp_scan_shfl_up_broadcast",
                 "syncwarp_shared_reduce", "cub_block_reduce_sum", "cub_warp_reduce_max",
                 "cg_thread_block_reduce", "cg_grid_sync_two_phase", "thrust_sort_rows"}


@pytest.fixture(scope="module")
def scenario_results(fake_driver, tmp_path_factory):  # noqa: F811
    nvrtc_or_skip()
    return H.fake_driver_results(fake_driver, tmp_path_factory.mktemp("unseen-cupyx-cache"))


def test_about_forty_cases():
    assert len(H.CASES) >= 40


@pytest.mark.parametrize("name", sorted(H.CASES))
def test_case_on_fake_driver(scenario_results, name):
    got = scenario_results[name]
    want = "compiled" if name in COMPILED_ONLY else "values"
    assert got == want, "%s: %s" % (name, got)


# ---- NumPy's ufuncs that kernels lacked (cupyx.jit kernels call CuPy's) ----

UNARY = ["floor", "ceil", "trunc", "rint", "fabs", "cbrt", "sign", "positive", "conjugate",
         "reciprocal", "signbit"]
BINARY = ["copysign", "power", "remainder", "floor_divide", "fmod"]


def _ufunc_kernel(f):
    if f.nin == 1:
        def k(x, y, out):
            i = jit.grid(1)
            if i < out.size:
                out[i] = f(x[i])
    else:
        def k(x, y, out):
            i = jit.grid(1)
            if i < out.size:
                out[i] = f(x[i], y[i])
    return jit.rawkernel()(k)


def _operands(name, dt, rng):
    n = 64
    if dt.kind == "f":
        x = rng.uniform(-9, 9, n).astype(dt)
        y = rng.uniform(0.5, 4, n).astype(dt) * rng.choice([-1, 1], n).astype(dt)
        if name == "reciprocal":
            x[x == 0] = 1
        if name == "power":
            x, y = np.abs(x), rng.uniform(-2, 3, n).astype(dt)
    elif dt.kind == "c":
        x = (rng.uniform(-3, 3, n) + 1j * rng.uniform(-3, 3, n)).astype(dt)
        y = (rng.uniform(-1, 2, n) + 1j * rng.uniform(-1, 1, n)).astype(dt)
    else:
        x = rng.integers(-50 if dt.kind == "i" else 0, 50, n).astype(dt)
        y = rng.integers(1, 7, n).astype(dt) * (rng.choice([-1, 1], n).astype(dt)
                                                 if dt.kind == "i" else 1)
        if name == "power":
            y = rng.integers(0, 4, n).astype(dt)
        if name == "reciprocal":
            x[x == 0] = 1
    return x, y


CASES_UF = [(name, dt) for name in UNARY + BINARY for dt in ("int32", "int64", "float32",
                                                                 "float64", "complex128")
            if not (dt == "complex128" and name in ("floor", "ceil", "trunc", "rint", "fabs",
                                                    "cbrt", "signbit", "copysign",
                                                    "remainder", "floor_divide", "fmod"))
            and not (dt.startswith("int") and name in ("rint", "fabs", "cbrt", "copysign"))]


@pytest.mark.parametrize("name, dt", CASES_UF)
def test_ufunc_values_on_host(tmp_path, name, dt):
    """each new ufunc in a kernel, run on the CPU through the host shim,
    against NumPy's result for the same operands"""
    from test_kernels_host import CXX, host_launcher
    if CXX is None:
        pytest.skip("no host C++ compiler")
    f = getattr(np, name)
    dt = np.dtype(dt)
    x, y = _operands(name, dt, np.random.default_rng(7))
    want = f(x) if f.nin == 1 else f(x, y)
    out = np.zeros(x.size, want.dtype)
    host_launcher(str(tmp_path))(_ufunc_kernel(f), 1, x.size, [x, y, out])
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(out, want, rtol=1e-6 if dt.itemsize <= 4 else 1e-13,
                                   atol=1e-6, equal_nan=True)
    else:
        np.testing.assert_array_equal(out, want)


def test_ufunc_out_form_on_host(tmp_path):
    """np.f(a, b, out): the calling thread writes every element of out"""
    from test_kernels_host import CXX, host_launcher
    if CXX is None:
        pytest.skip("no host C++ compiler")

    @jit.rawkernel()
    def k(a, b, c, r, p, f):
        np.remainder(a, b, r)
        np.power(a, 2, out=p)
        np.floor(c, f)

    rng = np.random.default_rng(3)
    a = rng.integers(-40, 40, (4, 5)).astype(np.int64)
    b = rng.integers(1, 6, 5).astype(np.int64) * rng.choice([-1, 1], 5)
    r, p, f = np.zeros_like(a), np.zeros_like(a), np.zeros(a.shape)
    c = a / 3
    host_launcher(str(tmp_path))(k, 1, 1, [a, b, c, r, p, f])
    np.testing.assert_array_equal(r, np.remainder(a, b))
    np.testing.assert_array_equal(p, a ** 2)
    np.testing.assert_array_equal(f, np.floor(c))


def test_ufunc_result_dtypes_are_numpys():
    """floor of an int32 stays int32, of bool is int8; fabs of int32 is float64"""
    def k(x, out):
        out[0] = np.floor(x[0])
        out[1] = np.fabs(x[0])
        out[2] = np.sign(x[0])
    src = jit.rawkernel()(k).inspect_cuda("(int32[::1], float64[::1])")
    assert "(double)cj_uf_floor(x.data[0LL])" in src and "cj_uf_fabs((double)" in src
    src = jit.rawkernel()(k).inspect_cuda("(bool[::1], float64[::1])")
    assert "cj_uf_floor((signed char)" in src


def test_ufunc_beside_integer_floor_division():
    """a kernel's own // of integers asks for the prelude's integer division
    alone: the ufuncs of // and % (which also need the float one) stay out"""
    @jit.rawkernel()
    def k(x, out, n):
        i = jit.grid(1)
        if i < n // 2:
            out[i] = np.exp(x[i])
    ptx = k.inspect_ptx("(float32[::1], float32[::1], int64)")
    assert ".visible .entry" in ptx


def test_ufunc_of_complex_where_numpy_has_none():
    def k(x, out):
        out[0] = np.floor(x[0])
    with pytest.raises(cujit.CompileTypeError, match=r"np.floor\(\) takes real numbers"):
        jit.rawkernel()(k).inspect_cuda("(complex128[::1], float64[::1])")


# ---- CuPy's ufuncs, known by their type without importing CuPy ----

def _fake_cupy_ufunc(numpy_name):
    """an object shaped as cupy.sqrt is: an instance of cupy._core._kernel's
    class ufunc, named cupy_<name>"""
    cls = type("ufunc", (), {"__module__": "cupy._core._kernel",
                             "__call__": lambda self, *a: None})
    u = cls()
    u.__name__ = "cupy_" + numpy_name
    return u


def test_cupy_ufuncs_are_numpys_in_kernels():
    csqrt, cmax, cdiv = (_fake_cupy_ufunc(n) for n in ("sqrt", "maximum", "true_divide"))

    @jit.rawkernel()
    def k(x, out):
        i = jit.grid(1)
        if i < x.size:
            out[i] = cdiv(cmax(csqrt(x[i]), 1.0), 2)

    src = k.inspect_cuda("(float32[::1], float64[::1])")
    assert "cj_uf_sqrt(" in src and "cj_uf_maximum(" in src and "cj_uf_divide(" in src
    assert ".visible .entry" in k.inspect_ptx("(float32[::1], float64[::1])")


def test_unknown_cupy_ufunc_says_so():
    ci0 = _fake_cupy_ufunc("i0")

    @jit.rawkernel()
    def k(x, out):
        out[0] = ci0(x[0])

    with pytest.raises(cujit.CompileTypeError, match=r"cannot call cupy\.i0 in a kernel"):
        k.inspect_cuda("(float32[::1], float32[::1])")


# ---- cupyx.jit's k[grid, block](*args, shared_mem=, stream=) ----

def test_launch_keywords(fake_driver, tmp_path):  # noqa: F811
    """run in a fresh process on the fake driver (launches need one)"""
    nvrtc_or_skip()
    code = r"""
import numpy as np, cujit
from cujit import jit

@jit.rawkernel()
def k(x):
    buf = jit.shared_memory(np.float32, None)
    x[0] = 1

x = cujit.to_device(np.zeros(4, np.float32))
s = cujit.Stream()
k[1, 32](x, shared_mem=128, stream=s)
k[1, 32](x, stream=None, shared_mem=64)
for call, words in ((lambda: k[1, 32](x, foo=1), "unexpected keyword argument 'foo'"),
                    (lambda: k[1, 32, s](x, stream=s), "got stream= again"),
                    (lambda: k[1, 32, 0, 64](x, shared_mem=8), "got shared_mem= again"),
                    (lambda: k[1, 32](x, shared_mem=-1), "must be >= 0")):
    try:
        call()
    except (TypeError, ValueError) as e:
        assert words in str(e), str(e)
    else:
        raise AssertionError(words)
print("keywords ok")
"""
    e = dict(os.environ, CUJIT_CACHE_DIR=str(tmp_path),
             LD_LIBRARY_PATH=fake_driver + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    r = subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0 and "keywords ok" in r.stdout, r.stdout + r.stderr
