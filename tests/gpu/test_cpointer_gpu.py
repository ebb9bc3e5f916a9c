"""Raw pointer parameters (types.CPointer / "dtype*") on the GPU, against
NumPy on fresh random data: a kernel launched with device addresses as
Python ints, cache-hint loads and stores through a pointer, a pointer
passed on to a device function.  tests/test_cpointer.py checks the same
kernels' CUDA and PTX without a GPU."""
import numpy as np
import pytest

from cujit import cuda
from cujit.cuda import types

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()
i32p = types.CPointer(types.int32)
f32p = types.CPointer(types.float32)


def addr(d):
    return d.__cuda_array_interface__["data"][0]


@cuda.jit(types.void(i32p, types.int32, i32p, i32p, types.uint32))
def axpy(r, a, x, y, n):
    i = cuda.grid(1)
    if i < n:
        r[i] = a * x[i] + y[i]


def test_axpy_through_pointers():
    n = 1000
    hx = rng.integers(-1000, 1000, n, dtype=np.int32)
    hy = rng.integers(-1000, 1000, n, dtype=np.int32)
    a = int(rng.integers(2, 50))
    dx, dy = cuda.to_device(hx), cuda.to_device(hy)
    dr = cuda.device_array_like(dx)
    axpy[(n + 127) // 128, 128](addr(dr), a, addr(dx), addr(dy), n)
    np.testing.assert_array_equal(dr.copy_to_host(), a * hx + hy)


@cuda.jit(device=True)
def scaled(p, i, s):
    return p[i] * s


@cuda.jit(types.void(f32p, types.float32[::1], types.float32, types.int64))
def hinted(p, out, s, n):
    i = cuda.grid(1)
    if i < n:
        v = cuda.ldcg(p, i)
        out[i] = scaled(p, i, s) + v
        cuda.stcs(p, i, v + 1)
        p[i] += 0.5


def test_hinted_loads_stores_and_device_call():
    n = 777
    h = rng.standard_normal(n).astype(np.float32)
    s = np.float32(rng.uniform(0.5, 2.0))
    d = cuda.to_device(h)
    out = cuda.device_array(n, np.float32)
    hinted[(n + 63) // 64, 64](addr(d), out, s, n)
    np.testing.assert_allclose(out.copy_to_host(), h * s + h, rtol=1e-6)
    np.testing.assert_allclose(d.copy_to_host(), (h + 1) + np.float32(0.5), rtol=1e-6)


def test_pointer_at_an_offset():
    n = 300
    h = rng.standard_normal(n).astype(np.float32)
    d = cuda.to_device(h)
    k = 17

    @cuda.jit(types.void(f32p, types.int64))
    def neg(p, m):
        i = cuda.grid(1)
        if i < m:
            p[i] = -p[i]

    neg[4, 128](addr(d) + 4 * k, n - k)
    want = h.copy()
    want[k:] = -want[k:]
    np.testing.assert_array_equal(d.copy_to_host(), want)


@cuda.jit(types.void(f32p, types.int64, types.int64, types.float32[:, ::1],
                     types.float32[:, ::1]))
def views(p, m, n, c_out, f_out):
    c = cuda.carray(p, (m, n))
    f = cuda.farray(p, (m, n), dtype=cuda.float32)
    i, j = cuda.grid(2)
    if i < m and j < n:
        c_out[i, j] = c[i, j] * 2
        f_out[i, j] = f[i, j] + c.shape[1] + f.size


def test_carray_farray_over_pointer():
    m, n = 37, 23
    h = rng.standard_normal(m * n).astype(np.float32)
    d = cuda.to_device(h)
    c_out = cuda.device_array((m, n), np.float32)
    f_out = cuda.device_array((m, n), np.float32)
    views[(2, 2), (32, 16)](addr(d), m, n, c_out, f_out)
    np.testing.assert_allclose(c_out.copy_to_host(), h.reshape(m, n) * 2, rtol=1e-6)
    np.testing.assert_allclose(f_out.copy_to_host(),
                               h.reshape((m, n), order="F") + n + m * n, rtol=1e-6)


def test_carray_constant_shape_numba_form():
    @cuda.jit(types.void(types.CPointer(types.float32)))
    def add(a_ptr):
        a = cuda.carray(a_ptr, (1,), dtype=cuda.float32)
        a[0] += 1.2

    v = np.float32(rng.uniform(-5, 5))
    d = cuda.to_device(np.array([v], dtype=np.float32))
    add[1, 1](int(d.gpu_data.device_pointer))
    assert d.copy_to_host()[0] == np.float32(v + np.float32(1.2))
