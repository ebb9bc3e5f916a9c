"""cujit.cuda.transpose (numba.cuda.kernels.transpose's) on the GPU against
NumPy's .T on fresh random data: numbers, bool and records (a record of 28
bytes, whose views the runtime once refused).  The kernels with NumPy's
reductions, array methods and cmath run from tests/kernels/npfuncs.py
through test_kernels_gpu.py."""
import numpy as np
import pytest

import cujit
from cujit import cuda

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()
RECORD = np.dtype([("i", np.int32), ("j", np.float32, (3, 2))], align=True)


def _random(shape, dtype):
    dt = np.dtype(dtype)
    if dt == RECORD:
        a = np.zeros(shape, RECORD)
        a["i"] = rng.integers(-1000, 1000, shape)
        a["j"] = rng.standard_normal(shape + (3, 2))
        return a
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
    return (rng.standard_normal(shape) * 100).astype(dt)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int16, np.complex128, np.bool_,
                                   RECORD], ids=str)
@pytest.mark.parametrize("shape", [(5, 6), (17, 16), (130, 257)])
def test_transpose_into_given_array(dtype, shape):
    a = _random(shape, dtype)
    d_a = cuda.to_device(a)
    d_b = cuda.device_array_like(np.ascontiguousarray(a.T))
    got = cuda.transpose(d_a, d_b)
    assert got is d_b
    np.testing.assert_array_equal(d_b.copy_to_host(), a.T)


def test_transpose_allocates_a_c_order_result():
    a = _random((33, 70), np.float64)
    got = cuda.transpose(cuda.to_device(a))
    assert isinstance(got, cujit.DeviceArray) and got.shape == (70, 33)
    assert got.strides == (33 * 8, 8)
    np.testing.assert_array_equal(got.copy_to_host(), a.T)


def test_transpose_of_a_strided_view():
    a = _random((20, 24), np.float64)
    v = cuda.to_device(a)[::2, 1::3]
    np.testing.assert_array_equal(cuda.transpose(v).copy_to_host(), a[::2, 1::3].T)


def test_transpose_shape_mismatch():
    d_a = cuda.to_device(_random((4, 5), np.float64))
    with pytest.raises(ValueError, match="shape"):
        cuda.transpose(d_a, cuda.device_array((4, 5), np.float64))
