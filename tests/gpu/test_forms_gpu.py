"""@vectorize and @reduce on the GPU, against NumPy on fresh random data."""
import math

import numpy as np
import pytest

import cujit
from cujit import jit, reduce, vectorize

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()


def rand(shape, dtype=np.float32, lo=-4.0, hi=4.0):
    a = rng.uniform(lo, hi, size=shape)
    return a.astype(dtype)


@vectorize
def rel(x, y):
    return abs(x - y) / max(abs(x), abs(y), 1e-12)


def rel_ref(x, y):
    return np.abs(x - y) / np.maximum(np.maximum(np.abs(x), np.abs(y)), 1e-12)


@jit.rawkernel(device=True)
def cube(v):
    return v * v * v


@vectorize
def poly(x):
    return cube(x) - 2 * x + math.sqrt(abs(x))


@vectorize
def divmod_v(a, b):
    return a // b, a % b


@vectorize(["float32(float32, float32)", "float64(float64, float64)"])
def hyp(a, b):
    return math.sqrt(a * a + b * b)


def test_two_inputs_float32():
    x, y = rand(100003), rand(100003)
    got = rel(cujit.to_device(x), cujit.to_device(y))
    assert got.dtype == np.float32
    np.testing.assert_allclose(cujit.asnumpy(got), rel_ref(x, y), rtol=1e-6)


def test_numpy_inputs_and_weak_scalar():
    x = rand(1000)
    got = cujit.asnumpy(rel(x, 2.0))
    assert got.dtype == np.float32          # NEP 50: the Python float is weak
    np.testing.assert_allclose(got, rel_ref(x, np.float32(2.0)), rtol=1e-6)


def test_broadcasting_and_mixed_dtypes():
    a, b = rand((37, 1, 5), np.float64), rand((4, 5), np.float32)
    got = cujit.asnumpy(rel(cujit.to_device(a), cujit.to_device(b)))
    ref = rel_ref(a, b)
    assert got.shape == ref.shape and got.dtype == ref.dtype
    np.testing.assert_allclose(got, ref, rtol=1e-12)


def test_strided_and_fortran_inputs():
    a = rand((64, 48), np.float64)
    f = np.asfortranarray(rand((64, 48), np.float64))
    da, df = cujit.to_device(a), cujit.to_device(f)
    got = cujit.asnumpy(rel(da[::2, 1::3], df[::2, 1::3]))
    np.testing.assert_allclose(got, rel_ref(a[::2, 1::3], f[::2, 1::3]), rtol=1e-12)
    gf = rel(df, df)                           # F inputs give an F result
    assert gf.f_contiguous
    np.testing.assert_allclose(cujit.asnumpy(gf), rel_ref(f, f), rtol=1e-12)


def test_device_function_and_math():
    x = rand(5000, np.float64)
    got = cujit.asnumpy(poly(cujit.to_device(x)))
    want = x ** 3 - 2 * x + np.sqrt(np.abs(x))
    # the terms cancel near the roots (a result of 2e-4 from terms near 1), and
    # the GPU fuses multiply-adds: the rounding error is bounded by the terms'
    # size, not the result's
    bound = 1e-12 * (np.abs(x) ** 3 + 2 * np.abs(x) + np.sqrt(np.abs(x)))
    assert np.all(np.abs(got - want) <= bound), np.max(np.abs(got - want) / bound)


def test_tuple_return_and_out():
    a = rng.integers(-50, 50, size=999).astype(np.int32)
    b = rng.integers(1, 9, size=999).astype(np.int32) * rng.choice([-1, 1], size=999).astype(np.int32)
    q = cujit.empty(999, dtype=np.int32)
    r = cujit.empty(999, dtype=np.int32)
    res = divmod_v(cujit.to_device(a), cujit.to_device(b), out=(q, r))
    assert res[0] is q and res[1] is r
    np.testing.assert_array_equal(cujit.asnumpy(q), a // b)
    np.testing.assert_array_equal(cujit.asnumpy(r), a % b)


def test_lambda_and_empty_and_0d():
    sq = vectorize(lambda v: v * v + 1)
    x = rand(77, np.float32)
    np.testing.assert_allclose(cujit.asnumpy(sq(cujit.to_device(x))), x * x + 1, rtol=1e-6)
    e = sq(cujit.empty(0, dtype=np.float32))
    assert e.shape == (0,)
    z = sq(np.float64(3.0))
    assert z.shape == () and float(cujit.asnumpy(z)) == 10.0


def test_eager_signatures():
    x = rand(1000, np.float32)
    got = hyp(cujit.to_device(x), cujit.to_device(x))
    assert got.dtype == np.float32
    np.testing.assert_allclose(cujit.asnumpy(got), np.sqrt(2 * x * x), rtol=1e-6)
    i = rng.integers(0, 9, 100).astype(np.int16)
    got = hyp(i, i)                            # int16 casts safely to float32 first
    assert got.dtype == np.float32
    with pytest.raises(TypeError, match="signatures"):
        hyp(np.ones(4, np.complex64), np.ones(4, np.complex64))


@reduce(identity=0)
def add(a, b):
    return a + b


@reduce
def biggest(a, b):
    return a if a > b else b


@pytest.mark.parametrize("shape,axis", [((1 << 20) + 3, None), ((300, 517), 0),
                                        ((300, 517), 1), ((300, 517), -1), ((300, 517), None),
                                        ((6, 7, 8, 9), (0, 2)), ((6, 7, 8, 9), (1, 3)),
                                        ((6, 7, 8, 9), (3,))])
def test_sum_axes(shape, axis):
    x = rand(shape, np.float64)
    got = cujit.asnumpy(add(cujit.to_device(x), axis=axis))
    np.testing.assert_allclose(got, x.sum(axis=axis), rtol=1e-9, atol=1e-9)


def test_keepdims_map_dtype():
    x = rand((120, 33), np.float32)
    got = add(cujit.to_device(x), axis=1, keepdims=True, map=lambda v: v * v, dtype=np.float64)
    assert got.shape == (120, 1) and got.dtype == np.float64
    np.testing.assert_allclose(cujit.asnumpy(got), (x.astype(np.float64) ** 2).sum(1, keepdims=True),
                               rtol=1e-12)


def test_sum_of_squares_large_deterministic():
    x = rand(1 << 24, np.float32)
    d = cujit.to_device(x)
    a = cujit.asnumpy(add(d, map=lambda v: v * v))
    b = cujit.asnumpy(add(d, map=lambda v: v * v))
    assert a.tobytes() == b.tobytes()          # same order every run
    np.testing.assert_allclose(a, (x.astype(np.float64) ** 2).sum(), rtol=1e-4)


def test_no_identity_max_and_empty():
    x = rand((50, 70), np.float32)
    np.testing.assert_array_equal(cujit.asnumpy(biggest(cujit.to_device(x), axis=0)), x.max(0))
    np.testing.assert_array_equal(cujit.asnumpy(biggest(x)), x.max())
    with pytest.raises(ValueError, match="identity"):
        biggest(np.zeros(0, np.float32))
    e = add(cujit.empty((0, 5), dtype=np.float32), axis=0)
    np.testing.assert_array_equal(cujit.asnumpy(e), np.zeros(5, np.float32))


def test_strided_reduction_input():
    x = rand((200, 90), np.float64)
    d = cujit.to_device(x)
    np.testing.assert_allclose(cujit.asnumpy(add(d[::3, 5::2], axis=0)), x[::3, 5::2].sum(0),
                               rtol=1e-12)
    np.testing.assert_allclose(cujit.asnumpy(add(d.T if hasattr(d, "T") else d, axis=1)),
                               (x.T if hasattr(d, "T") else x).sum(1), rtol=1e-12)


def test_int_reduction_with_out():
    x = rng.integers(-1000, 1000, size=(64, 64)).astype(np.int64)
    out = cujit.empty(64, dtype=np.int64)
    r = add(cujit.to_device(x), axis=0, out=out)
    assert r is out
    np.testing.assert_array_equal(cujit.asnumpy(out), x.sum(0))


# ---- Python int arguments: NumPy 2's ranges (NEP 50) ----

@vectorize
def int_mix(a, b):
    return (a + b) ^ (a & b) | (b - a)


@vectorize
def int_minmax(a, b):
    return min(a, b), max(b, a)


@vectorize
def int_compare(a, b):
    return a < b, a <= b, a == b, a != b, b > a, b >= a


@vectorize(["uint8(uint8, uint8)"])
def add_u8(a, b):
    return a + b


INT_TYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


def python_ints(dtype):
    """in-range Python ints for dtype: its edges and random ones; for int32
    and int64 a margin of 100 from the edges (the elements are below 100), so
    that no signed sum overflows (undefined in C++); for uint64 below 2**63
    (a Python int argument travels as an int64)"""
    info = np.iinfo(dtype)
    lo, hi = int(info.min), min(int(info.max), (1 << 63) - 1)
    if info.kind == "i" and info.bits >= 32:
        lo, hi = lo + 100, hi - 100
    return [lo, hi, 0, 1] + [int(v) for v in rng.integers(lo, hi, size=3, endpoint=True,
                                                          dtype=dtype)]


@pytest.mark.parametrize("dtype", INT_TYPES)
def test_python_int_in_range_gives_numpy(dtype):
    x = rng.integers(0, 100, size=10007).astype(dtype)
    d = cujit.to_device(x)
    for v in python_ints(dtype):
        with np.errstate(over="ignore"):
            ref = int_mix.py_func(x, v)          # NumPy, the Python int weak
            lo, hi = np.minimum(x, v), np.maximum(v, x)
        got = int_mix(d, v)
        assert got.dtype == ref.dtype == dtype
        np.testing.assert_array_equal(cujit.asnumpy(got), ref)
        g_lo, g_hi = int_minmax(d, v)
        np.testing.assert_array_equal(cujit.asnumpy(g_lo), lo)
        np.testing.assert_array_equal(cujit.asnumpy(g_hi), hi)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.uint16, np.int32, np.uint64])
def test_python_int_out_of_range_raises_then_runs(dtype):
    info = np.iinfo(dtype)
    d = cujit.to_device(rng.integers(0, 100, size=1000).astype(dtype))
    for v in (int(info.max) + 1, int(info.min) - 1):
        if v >= 1 << 63:
            continue                            # beyond int64: a separate limit
        with pytest.raises(OverflowError) as np_err:
            np.add(np.zeros(3, dtype), v)
        with pytest.raises(OverflowError) as err:
            int_mix(d, v)
        assert str(err.value) == str(np_err.value)
    x = rng.integers(0, 100, size=1000).astype(dtype)
    np.testing.assert_array_equal(cujit.asnumpy(int_mix(cujit.to_device(x), 7)),
                                  int_mix.py_func(x, 7))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.uint32, np.uint64])
def test_python_int_comparisons_are_exact(dtype):
    x = rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, size=4099, endpoint=True,
                     dtype=dtype)
    d = cujit.to_device(x)
    info = np.iinfo(dtype)
    values = [300, -1, -129, 255, 256, 1 << 40, -(1 << 40), int(info.min), int(info.max),
              int(x[17])]
    for v in values:
        if not -(1 << 63) <= v < 1 << 63:
            continue
        got = int_compare(d, v)
        ref = (x < v, x <= v, x == v, x != v, v > x, v >= x)
        for g, r in zip(got, ref):
            np.testing.assert_array_equal(cujit.asnumpy(g), r)


def test_eager_signature_python_int():
    x = rng.integers(0, 256, size=5000).astype(np.uint8)
    d = cujit.to_device(x)
    for v in (0, 1, 200, 255):
        np.testing.assert_array_equal(cujit.asnumpy(add_u8(d, v)), np.add(x, v))
    for v in (256, -1):
        with pytest.raises(OverflowError, match="Python integer %d out of bounds for uint8" % v):
            add_u8(d, v)
