"""debug=True's exception checks on the GPU (codegen/checks.c), each on fresh
random data: a zero divisor raises ZeroDivisionError on the host naming the
thread, and the thread stops before its later stores; other threads finish
and match NumPy; without debug=True (or for a float divisor under
fastmath=True) nothing is raised and the IEEE result is stored; a tuple
index out of range raises IndexError('tuple index out of range'), and
negative indices count from the end.  The kernels that rebind variables run
from tests/kernels/rebinding.py (test_kernels_gpu.py).  Without a GPU:
tests/test_debug_checks_nogpu.py (the host shim)."""
import numpy as np
import pytest

from cujit import cuda

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()


def divide(r, x, y):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = y[i] / x[i]
        r[i] += 1.0


def test_float_zero_divisor_raises_and_stops_the_thread():
    f = cuda.jit(debug=True, opt=False)(divide)
    n = 64
    x = rng.uniform(1, 2, n)
    y = rng.uniform(-5, 5, n)
    bad = int(rng.integers(0, n))
    x[bad] = 0.0
    d = cuda.to_device(np.full(n, np.nan))     # a launch that raises copies no host
    with pytest.raises(ZeroDivisionError) as e:     # array back (nor does Numba's)
        f[1, n](d, x, y)
    assert "division by zero" in str(e.value)
    assert "tid=[%d, 0, 0]" % bad in str(e.value), str(e.value)
    r = d.copy_to_host()
    ok = np.arange(n) != bad
    np.testing.assert_allclose(r[ok], (y / np.where(ok, x, 1) + 1.0)[ok], rtol=1e-12)
    assert np.isnan(r[bad]), "the raising thread must not store"


def test_no_debug_gives_inf_and_goes_on():
    f = cuda.jit(divide)
    n = 32
    x = rng.uniform(1, 2, n)
    y = rng.uniform(1, 5, n)
    x[3] = 0.0
    r = np.full(n, np.nan)
    f[1, n](r, x, y)
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(r, y / x + 1.0, rtol=1e-12)


def test_fastmath_float_divisor_not_checked():
    def g(r, x, y):
        r[0] = x / y
    f = cuda.jit((cuda.float32[::1], cuda.float32, cuda.float32), fastmath=True, debug=True,
                 opt=False)(g)
    r = np.full(1, np.nan, np.float32)
    f[1, 1](r, np.float32(rng.uniform(1, 2)), np.float32(0.0))
    assert np.isinf(r[0])


def test_integer_floordiv_by_zero():
    @cuda.jit(debug=True, opt=False)
    def k(r, a, b):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = a[i] // b[i] + a[i] % b[i]

    n = 48
    a = rng.integers(-100, 100, n)
    b = rng.integers(1, 9, n) * rng.choice([-1, 1], n)
    r = np.full(n, -77, np.int64)
    k[1, n](r, a, b)
    np.testing.assert_array_equal(r, a // b + a % b)
    bad = int(rng.integers(0, n))
    b[bad] = 0
    d = cuda.to_device(np.full(n, -77, np.int64))
    with pytest.raises(ZeroDivisionError):
        k[1, n](d, a, b)
    r = d.copy_to_host()
    assert r[bad] == -77, "the raising thread must not store"
    ok = np.arange(n) != bad
    np.testing.assert_array_equal(r[ok], (a // np.where(ok, b, 1) + a % np.where(ok, b, 1))[ok])


def test_tuple_index_out_of_range():
    def foo(ary):
        x = cuda.threadIdx.x
        if x == 2:
            ary.shape[-x]

    unsafe = cuda.jit(foo)
    safe = cuda.jit(debug=True, opt=False)(foo)
    a = rng.standard_normal(int(rng.integers(2, 9)))
    unsafe[1, 3](a)
    with pytest.raises(IndexError) as e:
        safe[1, 3](a)
    assert "tuple index out of range" in str(e.value)


def test_negative_tuple_index_counts_from_the_end():
    @cuda.jit(debug=True, opt=False)
    def k(ary, out):
        x = cuda.threadIdx.x
        out[x] = ary.shape[-x]

    shape = tuple(int(v) for v in rng.integers(2, 6, 3))
    a = np.zeros(shape)
    out = np.full(3, -77, np.int64)
    k[1, 3](a, out)
    np.testing.assert_array_equal(out, [shape[0], shape[-1], shape[-2]])
