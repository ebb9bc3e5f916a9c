"""@guvectorize on the GPU, against NumPy computed directly on fresh random
data: dot "(n),(n)->()", matmul "(m,n),(n,p)->(m,p)", loop broadcasting,
strided and F-order inputs, out=, float32 / float64 / int64, lazy typing,
numbers as "()" inputs and several outputs.

Each case is a plain function (CASES); tests/fakecuda/gufunc_scenarios.py
runs the same ones without a GPU, through the fake libcuda with the
kernels compiled for the host (tests/test_gufunc_nogpu.py)."""
import math

import numpy as np
import pytest

import cujit
from cujit import jit

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()


def rand(shape, dtype=np.float32):
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-50, 50, size=shape).astype(dtype)
    return rng.uniform(-2.0, 2.0, size=shape).astype(dtype)


def host(x):
    return x if isinstance(x, np.ndarray) else cujit.asnumpy(x)


def close(got, want, dtype):
    got = host(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == np.dtype(dtype), (got.dtype, dtype)
    if np.dtype(dtype).kind in "iu":
        np.testing.assert_array_equal(got, want)
    else:
        tol = 1e-4 if np.dtype(dtype) == np.float32 else 1e-10
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


# signatures are tried in order (NumPy's rule for a ufunc's loops): the
# first one every input casts to safely
@cujit.guvectorize(["void(int64[:], int64[:], int64[:])",
                    "void(float32[:], float32[:], float32[:])",
                    "void(float64[:], float64[:], float64[:])"], "(n),(n)->()")
def dot(a, b, out):
    acc = a[0] * b[0]
    for i in range(1, a.shape[0]):
        acc += a[i] * b[i]
    out[0] = acc


@cujit.guvectorize("(m,n),(n,p)->(m,p)", target="cuda")
def matmul(a, b, c):
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            s = a[i, 0] * b[0, j]
            for k in range(1, a.shape[1]):
                s += a[i, k] * b[k, j]
            c[i, j] = s


@cujit.guvectorize(["void(float32[:], float32, float32[:])"], "(n),()->(n)")
def axpy_row(x, a, out):
    for i in range(x.shape[0]):
        out[i] = a * x[i] + math.sqrt(abs(x[i]))


@cujit.guvectorize("(n)->(),()")
def minmax(x, lo, hi):
    lo[0] = x[0]
    hi[0] = x[0]
    for i in range(1, x.shape[0]):
        lo[0] = min(lo[0], x[i])
        hi[0] = max(hi[0], x[i])


@cujit.guvectorize("(n)->(n)")
def cumsum_local(x, out):
    # a local array over a fixed bound
    buf = jit.local_memory(np.float64, 64)
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
        buf[i % 64] = s
        out[i] = buf[i % 64]


def check_dot_dtypes():
    for dt in (np.float32, np.float64, np.int64):
        a, b = rand((100, 17), dt), rand((100, 17), dt)
        close(dot(a, b), np.sum(a * b, axis=-1), dt)


def check_dot_device_arrays():
    a, b = rand((3, 5, 33)), rand((3, 5, 33))
    r = dot(cujit.to_device(a), cujit.to_device(b))
    assert isinstance(r, cujit.DeviceArray)
    close(r, np.sum(a * b, axis=-1), np.float32)


def check_dot_cast_to_signature():
    # inputs take the first signature they cast to safely, and are cast to it
    a, b = rand((20, 9), np.int32), rand((20, 9), np.int32)
    close(dot(a, b), np.sum(a.astype(np.int64) * b, axis=-1), np.int64)
    a, b = rand((20, 9), np.float16), rand((20, 9), np.float32)
    close(dot(a, b), np.sum(a.astype(np.float32) * b, axis=-1), np.float32)


def check_dot_broadcast():
    a, b = rand((4, 1, 10)), rand((6, 10))
    close(dot(a, b), np.sum(a * b, axis=-1), np.float32)
    v = rand(10)
    m = rand((7, 10))
    close(dot(v, m), m @ v, np.float32)


def check_dot_single_instance():
    a, b = rand(50, np.float64), rand(50, np.float64)
    r = host(dot(a, b))
    assert r.shape == ()
    np.testing.assert_allclose(r, a @ b, rtol=1e-12)


def check_matmul_dtypes():
    for dt in (np.float32, np.float64, np.int64):
        a, b = rand((8, 5, 3), dt), rand((8, 3, 4), dt)
        close(matmul(a, b), a @ b, dt)


def check_matmul_broadcast():
    a, b = rand((2, 1, 5, 3)), rand((4, 3, 6))
    close(matmul(a, b), a @ b, np.float32)


def check_matmul_strided_and_f_order():
    a = rand((6, 7, 10), np.float64)[:, ::2, 1:9:2]          # (6, 4, 4), strided
    b = np.asfortranarray(rand((6, 4, 3), np.float64))       # F order
    close(matmul(a, b), a @ b, np.float64)
    t = rand((5, 3, 6), np.float64).transpose(0, 2, 1)       # core dims transposed
    close(matmul(t, b[:5, :3, :]), t @ b[:5, :3, :], np.float64)
    d = cujit.to_device(rand((9, 4, 4), np.float64))[::3]   # device view, strided loop
    close(matmul(d, b[:3]), host(d) @ b[:3], np.float64)


def check_matmul_out():
    a, b = rand((3, 4, 2)), rand((3, 2, 5))
    out = cujit.empty((3, 4, 5), np.float32)
    r = matmul(a, b, out=out)
    assert r is out
    close(out, a @ b, np.float32)
    out2 = cujit.empty((3, 4, 5), np.float32)
    assert matmul(a, b, out2) is out2                        # outputs after the inputs
    close(out2, a @ b, np.float32)
    h = np.zeros((3, 4, 5), np.float64)                      # host out=, another dtype
    matmul(a.astype(np.float64), b.astype(np.float64), out=h)
    np.testing.assert_allclose(h, a.astype(np.float64) @ b, rtol=1e-10)
    fo = cujit.to_device(np.asfortranarray(np.zeros((3, 4, 5), np.float32)))
    matmul(a, b, out=(fo,))
    close(fo, a @ b, np.float32)


def check_lazy_typing():
    for dt in (np.float32, np.float64, np.int64):
        a, b = rand((10, 3, 3), dt), rand((3, 3), dt)
        close(matmul(a, b), a @ b, dt)
    a, b = rand((4, 2, 3), np.float32), rand((3, 2), np.float64)
    close(matmul(a, b), a.astype(np.float64) @ b, np.float64)   # NumPy's result dtype


def check_scalar_inputs():
    x = rand((5, 12))
    want = np.float32(2.5) * x + np.sqrt(np.abs(x))
    close(axpy_row(x, 2.5), want, np.float32)
    a = rand(5)                                              # one scalar per loop instance
    want = a[:, None] * x + np.sqrt(np.abs(x))
    close(axpy_row(x, a), want, np.float32)


def check_two_outputs():
    x = rand((9, 31), np.float64)
    lo, hi = minmax(x)
    close(lo, x.min(axis=-1), np.float64)
    close(hi, x.max(axis=-1), np.float64)


def check_local_array():
    x = rand((6, 40), np.float64)
    close(cumsum_local(x), np.cumsum(x, axis=-1), np.float64)


def check_many_instances():
    a, b = rand((1000, 3, 8)), rand((8, 3))
    close(matmul(a, b), a @ b, np.float32)


def check_empty_loop():
    a, b = rand((0, 5)), rand((0, 5))
    r = host(dot(a, b))
    assert r.shape == (0,)


CASES = [v for k, v in sorted(globals().items()) if k.startswith("check_")]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__[6:] for c in CASES])
def test_gufunc(case):
    case()
