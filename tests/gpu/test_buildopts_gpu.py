"""Numba's build options on the GPU, against NumPy on fresh random data: a
linked .cu whose #include files come from its own directory and from
CUDA_NVRTC_EXTRA_SEARCH_PATHS (an edited header changes the results of the
next kernel), opt=False (no fma contraction: bitwise NumPy's x * y + z),
and lineinfo=True (the same results as without).  tests/test_buildopts.py
checks the PTX, the keys and the LTO-IR without a GPU."""
import math

import numpy as np
import pytest

from cujit import cuda

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()


def write_tree(root, scale):
    (root / "src").mkdir(exist_ok=True)
    (root / "inc").mkdir(exist_ok=True)
    (root / "src" / "local.cuh").write_text(
        "template <typename T> __device__ T mymul(T a, T b) { return a * b; }\n")
    (root / "inc" / "deeper.cuh").write_text("#define SCALE %d.0f\n" % scale)
    (root / "inc" / "extra.cuh").write_text(
        '#include "deeper.cuh"\n'
        "template <typename T> __device__ T myadd(T a, T b) { return a + b; }\n")
    cu = root / "src" / "saxpy.cu"
    cu.write_text('#include "local.cuh"\n#include <extra.cuh>\n'
                  'extern "C" __device__ int saxpy(float *r, float a, float x, float y) {\n'
                  '    *r = myadd(mymul(a, x), y) * SCALE;\n    return 0;\n}\n')
    return cu


def saxpy_kernel(cu):
    saxpy = cuda.declare_device("saxpy", "float32(float32, float32, float32)", link=str(cu))

    @cuda.jit
    def k(r, a, x, y):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = saxpy(a, x[i], y[i])
    return k


@pytest.fixture
def search_path():
    saved = cuda.config.CUDA_NVRTC_EXTRA_SEARCH_PATHS
    yield
    cuda.config.CUDA_NVRTC_EXTRA_SEARCH_PATHS = saved


def run_saxpy(cu, n=3001):
    a = np.float32(rng.uniform(0.5, 2.0))
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    r = np.full(n, np.nan, np.float32)
    saxpy_kernel(cu)[(n + 127) // 128, 128](r, a, x, y)
    return r, a * x + y


def test_linked_source_with_include_paths(tmp_path, search_path):
    cu = write_tree(tmp_path, 3)
    cuda.config.CUDA_NVRTC_EXTRA_SEARCH_PATHS = str(tmp_path / "inc")
    r, axpy = run_saxpy(cu)
    np.testing.assert_allclose(r, axpy * 3, rtol=1e-5, atol=1e-5)
    # a header two levels down edited: the next kernel compiles it again
    (tmp_path / "inc" / "deeper.cuh").write_text("#define SCALE -2.0f\n")
    r, axpy = run_saxpy(cu)
    np.testing.assert_allclose(r, axpy * -2, rtol=1e-5, atol=1e-5)


def fma_like(x, y, z):
    return x * y + z


def test_opt_false_rounds_like_numpy():
    """opt=False contracts nothing into an fma, so each step rounds as
    NumPy's does: bitwise equal results"""
    dev = cuda.jit("float64(float64, float64, float64)", device=True, opt=False)(fma_like)

    @cuda.jit(opt=False)
    def k(r, x, y, z):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = dev(x[i], y[i], z[i])
    n = 4099
    x, y, z = (rng.standard_normal(n) for _ in range(3))
    r = np.full(n, np.nan)
    k[(n + 255) // 256, 256](r, x, y, z)
    np.testing.assert_array_equal(r, x * y + z)


def test_lineinfo_kernel_runs():
    @cuda.jit(lineinfo=True)
    def k(r, x):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = x[i] * x[i] - 1.0
    n = 2500
    x = rng.standard_normal(n).astype(np.float32)
    r = np.full(n, np.nan, np.float32)
    k[(n + 127) // 128, 128](r, x)
    np.testing.assert_allclose(r, x * x - np.float32(1), rtol=1e-5, atol=1e-6)
    assert ".loc" in k.inspect_asm(k.signatures[0])


def series(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15):
    """sixteen live values through a loop: 60-70 registers unlimited on sm_90
    (ptxas -v); the same function gives NumPy's reference on the host"""
    s = 0.0
    for k in range(16):
        s += (math.sin(a0 * k + a1) * a2 + math.cos(a3 * k + a4) * a5
              + a6 * a7 * math.exp(-a8 * k) + a9 * a10 - a11 * a12
              + a13 / (1.0 + a14 * a14 + a15 * a15 * k))
        a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15 = \
            a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a0 + s * 1e-3
    return s


def heavy_kernel(max_registers):
    dev = cuda.jit(device=True)(series)

    @cuda.jit(max_registers=max_registers)
    def heavy(r, x):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = dev(x[i, 0], x[i, 1], x[i, 2], x[i, 3], x[i, 4], x[i, 5], x[i, 6], x[i, 7],
                       x[i, 8], x[i, 9], x[i, 10], x[i, 11], x[i, 12], x[i, 13], x[i, 14],
                       x[i, 15])
    return heavy


def test_max_registers_caps_the_kernel():
    """held to 32 registers (spilling), the results stay the host's"""
    n = 300
    x = rng.uniform(-1.0, 1.0, (n, 16))
    want = np.array([series(*map(float, row)) for row in x])
    assert np.isfinite(want).all() and np.ptp(want) > 0
    for cap in (None, 32):
        k = heavy_kernel(cap)
        r = np.full(n, np.nan)
        k[(n + 63) // 64, 64](r, x)
        np.testing.assert_allclose(r, want, rtol=1e-9, atol=1e-12 * np.abs(want).max())
        regs = k.get_regs_per_thread(k.signatures[0])
        assert (regs <= 32) if cap else (regs > 32), (cap, regs)
