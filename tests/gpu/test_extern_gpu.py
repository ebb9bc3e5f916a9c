"""Foreign device functions (cuda.declare_device) on the GPU, against NumPy
on fresh random data: a .cu file and a cuda.CUSource (also through
tests/kernels/externs.py, which test_kernels_gpu.py runs), a .cu changed
between two kernels, a pointer from ffi.from_buffer, and a cooperative
foreign function (a grid barrier from <cooperative_groups.h>) launched at
the grid max_cooperative_grid_blocks gives.  tests/test_extern.py checks
the same without a GPU."""
import numpy as np
import pytest

from cujit import cuda
from cujit.cuda import types

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()

AXPY = cuda.CUSource("""
extern "C" __device__ int axpy(float *out, float a, float x, float y) {
    *out = a * x + y;
    return 0;
}
""")
axpy = cuda.declare_device("axpy", "float32(float32, float32, float32)", link=AXPY)

BARRIER = cuda.CUSource("""
#include <cooperative_groups.h>
extern "C" __device__ int grid_barrier(void *out) {
    cooperative_groups::this_grid().sync();
    return 0;
}
""")
barrier = cuda.declare_device("grid_barrier", "void()", link=BARRIER, use_cooperative=True)


@cuda.jit
def use_axpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = axpy(a, x[i], y[i])


def test_cusource_against_numpy():
    n = 5000
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    a = np.float32(rng.uniform(-3, 3))
    out = cuda.device_array(n, np.float32)
    use_axpy[(n + 255) // 256, 256](a, cuda.to_device(x), cuda.to_device(y), out)
    np.testing.assert_allclose(out.copy_to_host(), a * x + y, rtol=1e-6, atol=1e-6)


def _scaled_kernel(path):
    scale = cuda.declare_device("scale", "int64(int64)", link=str(path))

    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = scale(x[i])
    return k


def test_changed_cu_file_compiles_again(tmp_path):
    path = tmp_path / "scale.cu"
    x = rng.integers(-10**6, 10**6, 3000, dtype=np.int64)
    for factor in rng.choice(np.arange(2, 50), 2, replace=False):
        path.write_text('extern "C" __device__ int scale(long long *o, long long a) '
                        '{ *o = a * %d; return 0; }' % factor)
        out = cuda.device_array(x.size, np.int64)
        _scaled_kernel(path)[(x.size + 127) // 128, 128](cuda.to_device(x), out)
        np.testing.assert_array_equal(out.copy_to_host(), x * factor)


def test_from_buffer_pointer():
    cffi = pytest.importorskip("cffi")
    ffi = cffi.FFI()
    add_to = cuda.declare_device("add_to", types.void(types.CPointer(types.float64),
                                                      types.float64), abi="c",
                                 link=cuda.CUSource('extern "C" __device__ void '
                                                    'add_to(double *p, double v) { *p += v; }'))

    @cuda.jit
    def k(x, y):
        i = cuda.grid(1)
        if i < x.size:
            add_to(ffi.from_buffer(x[i:]), y[i])

    x, y = rng.standard_normal(777), rng.standard_normal(777)
    dx = cuda.to_device(x)
    k[7, 128](dx, cuda.to_device(y))
    np.testing.assert_allclose(dx.copy_to_host(), x + y, rtol=1e-15)


@cuda.jit
def rotate_after_barrier(x, out):
    i = cuda.grid(1)
    x[i] = x[i] * 3 + 1
    barrier()                       # every block's writes are seen after it
    out[i] = x[(i + 4099) % x.size]


def test_cooperative_foreign_barrier_at_the_largest_grid():
    threads = 256
    sig = (types.int32[::1], types.int32[::1])
    rotate_after_barrier.compile(sig)
    ov = rotate_after_barrier.overloads[sig]
    assert ov.cooperative
    blocks = ov.max_cooperative_grid_blocks(threads)
    assert blocks >= 1 and blocks == ov.max_cooperative_grid_blocks((16, 16))
    n = blocks * threads
    x = rng.integers(-10**6, 10**6, n, dtype=np.int32)
    dx, out = cuda.to_device(x), cuda.device_array(n, np.int32)
    rotate_after_barrier[blocks, threads](dx, out)
    np.testing.assert_array_equal(out.copy_to_host(), np.roll(x * 3 + 1, -4099))
    with pytest.raises(ValueError, match=r"at most %d" % blocks):
        rotate_after_barrier[blocks + 1, threads](dx, out)
