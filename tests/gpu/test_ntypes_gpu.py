"""Kernels, device functions, vectorize and guvectorize typed with Numba's
type objects and signatures (cujit/_ntypes.py) on the GPU, against NumPy
on fresh random data.  tests/test_ntypes.py checks the same spellings and
cuda.compile_ptx without a GPU."""
import numpy as np
import pytest

import cujit
from cujit import cuda
from cujit.cuda import float32, float64, int32, int64, types, void

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()


def host(x):
    return x if isinstance(x, np.ndarray) else cujit.asnumpy(x)


@cuda.jit(void(float32[::1], float32, float32[::1], float32[::1]))
def saxpy(out, a, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@cuda.jit(float64(float64, float64), device=True)
def hypot2(a, b):
    return a * a + b * b


@cuda.jit((float64[::1], float64[::1], float64[::1]))
def call_hypot2(out, a, b):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = hypot2(a[i], b[i])


@cuda.jit([void(types.Array(int64, 2, "C"), int64), void(types.Array(int32, 2, "C"), int64)])
def add_rows(x, k):
    i, j = cuda.grid(2)
    if i < x.shape[0] and j < x.shape[1]:
        x[i, j] += k * i


def test_kernel_from_a_signature_object():
    n = 3001
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    a = np.float32(rng.standard_normal())
    out = cuda.device_array(n, np.float32)
    saxpy[(n + 127) // 128, 128](out, a, cuda.to_device(x), cuda.to_device(y))
    np.testing.assert_allclose(out.copy_to_host(), a * x + y, rtol=1e-5, atol=1e-6)
    assert saxpy.signatures == ["(float32[::1], float32, float32[::1], float32[::1])"]


def test_device_function_declared_with_a_signature():
    n = 1000
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    out = cuda.device_array(n, np.float64)
    call_hypot2[(n + 255) // 256, 256](out, cuda.to_device(a), cuda.to_device(b))
    np.testing.assert_allclose(out.copy_to_host(), a * a + b * b, rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
@cuda.jit(float32(float32, float32), device=True)
def add32(a, b):
    return a + b


@cuda.jit
def call_add32(out, a, b):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = add32(a[i], b[i])


def test_declared_signature_converts_the_arguments():
    """float64 data through a float32(float32, float32) device function: the
    sum is the float32 one, as in Numba"""
    n = 2000
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    out = cuda.device_array(n, np.float64)
    call_add32[(n + 255) // 256, 256](out, cuda.to_device(a), cuda.to_device(b))
    want = (a.astype(np.float32) + b.astype(np.float32)).astype(np.float64)
    got = out.copy_to_host()
    np.testing.assert_array_equal(got, want)
    assert not np.array_equal(got, a + b)


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_list_of_signature_objects_with_array_types(dtype):
    x = rng.integers(-1000, 1000, size=(37, 53)).astype(dtype)
    k = int(rng.integers(1, 9))
    d = cuda.to_device(x)
    add_rows[(5, 7), (8, 8)](d, k)
    want = x + (k * np.arange(37)[:, None]).astype(dtype)
    np.testing.assert_array_equal(d.copy_to_host(), want)


def test_vectorize_with_signature_objects():
    @cuda.vectorize([float32(float32, float32), float64(float64, float64)], target="cuda")
    def fma_like(a, b):
        return a * b + a

    for dt, tol in ((np.float32, 1e-6), (np.float64, 1e-12)):
        a = rng.standard_normal(4097).astype(dt)
        b = rng.standard_normal(4097).astype(dt)
        got = host(fma_like(a, b))
        assert got.dtype == dt
        np.testing.assert_allclose(got, a * b + a, rtol=tol, atol=tol)


def test_guvectorize_with_a_tuple_of_argument_types():
    @cuda.guvectorize([(float64[:], float64[:], float64[:])], "(n),(n)->()", target="cuda")
    def dot(x, y, r):
        s = 0.0
        for i in range(x.shape[0]):
            s += x[i] * y[i]
        r[0] = s

    a = rng.standard_normal((129, 17))
    b = rng.standard_normal((129, 17))
    np.testing.assert_allclose(host(dot(a, b)), np.sum(a * b, axis=1), rtol=1e-12)
