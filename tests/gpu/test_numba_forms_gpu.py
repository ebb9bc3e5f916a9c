"""Numba's host-side rules for @cuda.vectorize / @cuda.guvectorize (and
cujit's with target='cuda'), cujit/_numba_forms.py, against NumPy on fresh
random data: host inputs give NumPy arrays, device inputs device arrays,
tuples are arrays, Python scalars pick the float64 / int64 signature, a
gufunc's old-style scalar, Numba's casts of host inputs, outputs given
positionally or by out=, results on a stream that is dropped before them
(Numba's test_1d_async crashed there), and datetime64 / timedelta64 arrays
and scalars given to kernels (as their int64 counts).  The CASES run here on the GPU and
on the CPU through the fake driver (tests/fakecuda/hostsem_scenarios.py)."""
import numpy as np
import pytest

import cujit
from cujit import cuda
from cujit.cuda import float32, float64, int32, void

pytestmark = pytest.mark.gpu
rng = np.random.default_rng()
SIGS = [int32(int32, int32), float32(float32, float32), float64(float64, float64)]


def _add(a, b):
    return a + b


def _mul_add(a, b):
    return a * b + a


add_nb = cuda.vectorize(SIGS)(_add)
add_target = cujit.vectorize(SIGS, target="cuda")(_mul_add)
add_cujit = cujit.vectorize(SIGS)(_add)


def _add_scalars(a, b):         # its own kernel names: scalar operands are parameters
    return a + b


add_scalars = cuda.vectorize(SIGS)(_add_scalars)


@cuda.guvectorize([void(float64[:], float64[:], float64[:])], "(n),(n)->()")
def dot_nb(x, y, r):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * y[i]
    r[0] = s


@cuda.guvectorize(["void(float32[:], float32[:], float32[:])"], "(x)->(x),(x)")
def copy_and_double(a, b, c):
    for i in range(a.shape[0]):
        b[i] = a[i]
        c[i] = a[i] * 2


@cuda.guvectorize(["void(int32[:], int32[:], int32[:])"], "(n),()->(n)")
def add_first(x, y, res):
    for i in range(x.shape[0]):
        res[i] = x[i] + y[0]


@cuda.guvectorize(["void(int32, int32[:], int32[:])"], "(),(t)->(t)")
def scale_row(a, b, out):
    for i in range(b.shape[0]):
        out[i] = a * b[i]


@cuda.guvectorize(["void(int32, int32[:])"], "()->()")
def twice(inp, out):
    out[0] = inp * 2


def ints(shape, dt=np.int32):
    return rng.integers(-1000, 1000, shape).astype(dt)


def check_vectorize_host_inputs():
    for f, ref in ((add_nb, np.add), (add_target, lambda a, b: a * b + a)):
        for dt in (np.float64, np.float32, np.int32):
            n = int(rng.integers(900, 1100))
            a = rng.standard_normal(n).astype(dt) if dt != np.int32 else ints(n)
            b = rng.standard_normal(n).astype(dt) if dt != np.int32 else ints(n)
            r = f(a, b)
            assert type(r) is np.ndarray and r.dtype == dt, (type(r), r.dtype)
            tol = 1e-5 if dt == np.float32 else 1e-12       # a * b + a may be fused
            np.testing.assert_allclose(r, ref(a, b), rtol=tol, atol=tol)


def check_vectorize_device_inputs():
    a = rng.standard_normal((37, 41)).astype(np.float32)
    b = rng.standard_normal((37, 41)).astype(np.float32)
    r = add_nb(cuda.to_device(a), b)
    assert isinstance(r, cujit.DeviceArray)
    np.testing.assert_allclose(r.copy_to_host(), a + b, rtol=1e-6)
    r = add_cujit(a, b)                     # cujit's own rule: a DeviceArray
    assert isinstance(r, cujit.DeviceArray)
    np.testing.assert_allclose(r.copy_to_host(), a + b, rtol=1e-6)


def check_vectorize_out_and_tuples():
    a, b = ints(513), ints(513)
    out = np.zeros_like(a)
    assert add_nb(a, b, out=out) is out
    np.testing.assert_array_equal(out, a + b)
    t1, t2 = tuple(rng.standard_normal(5)), tuple(rng.standard_normal(5))
    r = add_nb(t1, t2)
    assert type(r) is np.ndarray and r.dtype == np.float64
    np.testing.assert_allclose(r, np.add(t1, t2), rtol=1e-12)


def check_vectorize_python_scalars():
    x, y = float(rng.standard_normal()), float(rng.standard_normal())
    r = add_scalars(x, y)                   # float64(float64, float64), not float32
    assert r.dtype == np.float64
    assert r == x + y
    i, j = int(rng.integers(-1000, 1000)), int(rng.integers(-1000, 1000))
    assert add_scalars(np.int32(i), np.int32(j)) == i + j


def check_vectorize_stream_dropped_first():
    res = []
    for dt in (np.float64, np.float32, np.int32):
        s = cuda.stream()
        a = rng.standard_normal(10007).astype(dt) if dt != np.int32 else ints(10007)
        d = cuda.to_device(a, s)
        r = add_nb(d, d, stream=s)
        del s                               # the result keeps its stream alive
        np.testing.assert_allclose(r.copy_to_host(), a + a, rtol=1e-6)
        res.append(r)
    del res


def check_reduce():
    for n in (8, 100, 1025):
        x = ints(n)
        r = add_nb.reduce(x)
        assert r.dtype == np.int32 and r == x.sum(dtype=np.int32)


def check_gufunc_host_and_device():
    x, y = rng.standard_normal((129, 17)), rng.standard_normal((129, 17))
    r = dot_nb(x, y)
    assert type(r) is np.ndarray and r.shape == (129,)
    np.testing.assert_allclose(r, np.sum(x * y, axis=1), rtol=1e-12, atol=1e-12)
    d = dot_nb(cuda.to_device(x), y)
    assert isinstance(d, cujit.DeviceArray)
    np.testing.assert_allclose(d.copy_to_host(), np.sum(x * y, axis=1), rtol=1e-12, atol=1e-12)
    r = dot_nb(tuple(map(tuple, x[:3])), tuple(map(tuple, y[:3])))
    np.testing.assert_allclose(r, np.sum(x[:3] * y[:3], axis=1), rtol=1e-12,
                               atol=1e-12)


def check_gufunc_outputs():
    a = rng.standard_normal(300).astype(np.float32)
    b, c = copy_and_double(a)
    assert type(b) is np.ndarray and type(c) is np.ndarray
    np.testing.assert_array_equal(b, a)
    np.testing.assert_allclose(c, a * 2, rtol=1e-6)
    b2, c2 = np.zeros_like(a), np.zeros_like(a)
    got = copy_and_double(a, b2, c2)
    assert got[0] is b2 and got[1] is c2
    np.testing.assert_allclose(c2, a * 2, rtol=1e-6)


def check_gufunc_old_style_scalar():
    a, b = ints(4), ints(1)
    res = np.zeros(4, np.int32)
    assert add_first(a, b, out=res) is res
    np.testing.assert_array_equal(res, a + b[0])
    a, b = ints((5, 7)), ints(5)
    res = np.zeros((5, 7), np.int32)
    add_first(a, b, res)
    np.testing.assert_array_equal(res, a + b[:, None])


def check_gufunc_scalars():
    k = int(rng.integers(2, 9))
    b = ints(10)
    r = scale_row(np.int64(k), b)           # Numba casts the host int64 to int32
    assert type(r) is np.ndarray and r.dtype == np.int32
    np.testing.assert_array_equal(r, k * b)
    v = int(rng.integers(-1000, 1000))
    assert twice(v) == 2 * v
    x = ints(10)
    r = twice(x)
    assert type(r) is np.ndarray and r.dtype == np.int32
    np.testing.assert_array_equal(r, 2 * x)


@cuda.jit
def time_between(start, end, delta):
    for i in range(cuda.grid(1), delta.size, cuda.gridsize(1)):
        delta[i] = end[i] - start[i]


@cuda.jit
def match_dates(dates, target, delta, matches, shifted):
    for i in range(cuda.grid(1), matches.size, cuda.gridsize(1)):
        matches[i] = dates[i] == target
        shifted[i] = dates[i] - delta


def random_dates(n, unit="D"):
    return np.datetime64("2005-02-01", unit) + rng.integers(0, 10000, n).astype("m8[%s]" % unit)


def check_datetime_arrays():
    for unit in ("D", "s"):
        n = int(rng.integers(300, 400))
        a, b = random_dates(n, unit), random_dates(n, unit)
        delta = np.zeros(n, "m8[%s]" % unit)
        time_between[3, 64](a, b, delta)
        np.testing.assert_array_equal(delta, b - a)
        assert delta.dtype == np.dtype("m8[%s]" % unit)


def check_datetime_scalars():
    dates = random_dates(257)
    k = int(rng.integers(0, 257))
    target, step = dates[k], np.timedelta64(int(rng.integers(1, 50)), "D")
    matches = np.zeros(257, np.bool_)
    shifted = np.zeros(257, "M8[D]")
    match_dates[2, 128](dates, target, step, matches, shifted)
    np.testing.assert_array_equal(matches, dates == target)
    np.testing.assert_array_equal(shifted, dates - step)


def _avg(a, b):
    return (a + b) // 2


def _avg_wrapping(a, b):        # the same body, its own kernel name for the host run
    return (a + b) // 2


def _scale_add(x, y):
    return x * 0.1 + y


U8 = ["uint8(uint8, uint8)"]
avg_nb, avg_cujit = cuda.vectorize(U8)(_avg), cujit.vectorize(U8)(_avg_wrapping)
scale_nb = cuda.vectorize(["float32(float32, float32)"])(_scale_add)


def check_vectorize_numba_typing():
    """the body of a Numba-spelled ufunc computes by Numba's rules: uint8 +
    uint8 in 64 bits (no wrap), a float32 times a Python float in float64,
    rounded once to the declared float32; cujit's own vectorize keeps NumPy's
    (the uint8 sum wraps)"""
    a = rng.integers(0, 256, 4099, dtype=np.uint8)
    b = rng.integers(0, 256, 4099, dtype=np.uint8)
    assert ((a.astype(np.int64) + b) > 255).any()
    np.testing.assert_array_equal(avg_nb(a, b), ((a.astype(np.int64) + b) // 2).astype(np.uint8))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(np.asarray(avg_cujit(a, b).copy_to_host()), (a + b) // 2)
    x = rng.standard_normal(4099).astype(np.float32)
    y = rng.standard_normal(4099).astype(np.float32)
    want = (x.astype(np.float64) * 0.1 + y.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(scale_nb(x, y), want)


def check_datetime_on_device():
    dates = random_dates(100)
    d = cuda.to_device(dates)                 # its int64 counts
    assert d.dtype == np.int64
    np.testing.assert_array_equal(d.copy_to_host(), dates.view(np.int64))
    np.testing.assert_array_equal(d.copy_to_host().view("M8[D]"), dates)


CASES = [check_vectorize_host_inputs, check_vectorize_device_inputs,
         check_vectorize_out_and_tuples, check_vectorize_python_scalars,
         check_vectorize_stream_dropped_first, check_reduce, check_gufunc_host_and_device,
         check_gufunc_outputs, check_gufunc_old_style_scalar, check_gufunc_scalars,
         check_datetime_arrays, check_datetime_scalars, check_datetime_on_device,
         check_vectorize_numba_typing]
# not run on the CPU by hostsem_scenarios.py: reductions synchronise threads,
# which its one-thread-at-a-time launch cannot
NOT_ON_HOST = [check_reduce]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_numba_forms(case):
    case()
