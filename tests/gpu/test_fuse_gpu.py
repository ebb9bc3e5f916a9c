"""@cujit.fuse on the GPU: every fused form against NumPy evaluating the same
Python function (f.__wrapped__) on host copies of fresh random data, across
dtypes, shapes (0-d, empty, broadcasting, strided, F order) and axes.

Each case is a plain function (CASES); tests/fakecuda/fuse_scenarios.py
runs the same ones without a GPU, through the fake libcuda with the kernels
compiled for the host (tests/test_fuse_nogpu.py)."""
import math

import numpy as np
import pytest

import cujit

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()

FLOATS = [np.float16, np.float32, np.float64]
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
COMPLEX = [np.complex64, np.complex128]


def rand(shape, dtype=np.float32, lo=-3.0, hi=3.0):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        v = rng.integers(0, 2, size=shape)
    elif dt.kind == "u":
        v = rng.integers(0, 40, size=shape)
    elif dt.kind == "i":
        v = rng.integers(-40, 40, size=shape)
    elif dt.kind == "c":
        v = rng.uniform(lo, hi, size=shape) + 1j * rng.uniform(lo, hi, size=shape)
    else:
        v = rng.uniform(lo, hi, size=shape)
    return np.array(v, dtype=dt)


def host(x):
    return x if isinstance(x, np.ndarray) else cujit.asnumpy(x)


def tol(dt):
    dt = np.dtype(dt)
    if dt.kind == "c":
        dt = np.dtype(dt.char.lower())
    return {2: 2e-2, 4: 2e-5, 8: 1e-9}.get(dt.itemsize, 0)


def compare(got, want, rtol=None):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            compare(g, w, rtol)
        return
    want = np.asarray(want)
    got = host(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
    else:
        t = tol(want.dtype) if rtol is None else rtol
        np.testing.assert_allclose(got.astype(want.dtype), want, rtol=t, atol=t, equal_nan=True)


def dev(a):
    return cujit.to_device(a) if isinstance(a, np.ndarray) else a


def check(f, *args, rtol=None, device=True):
    """f on device copies (or the host arrays themselves) against f.__wrapped__
    on host copies"""
    want = f.__wrapped__(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    got = f(*[dev(a) for a in args]) if device else f(*args)
    compare(got, want, rtol)
    return got


# ---- elementwise ----


@cujit.fuse
def chain(a, x, y, z):
    return np.exp(a * np.sin(x) + np.cos(y)) * z - 1


@cujit.fuse
def arith(x, y):
    return x * y + x


@cujit.fuse
def arith_sub(x, y):
    return (x - y) * 2 + y // 3


@cujit.fuse
def compare_where(x, y, lo):
    m = np.where(x > y, x, y)
    return np.clip(m, lo, 2.5), np.minimum(x, y), np.maximum(x, y), abs(x - y) <= 1


@cujit.fuse(kernel_name="fused_polar")
def polar(x, y):
    r = np.sqrt(x * x + y * y)
    t = np.arctan2(y, x)
    return r, t


@cujit.fuse
def nan_aware(x, y):
    return np.isnan(x), np.maximum(x, y), np.minimum(y, x), np.isfinite(y)


@cujit.fuse
def casts(x):
    return x.astype(np.float32) * 2, np.float64(x) / 3


@cujit.fuse
def logic(x, y):
    return np.logical_and(x > 0, y > 0) | np.logical_not(x < -1)


@cujit.fuse
def math_scalar(x, s):
    return x * math.sqrt(s) + math.cos(s)


SCALE = 3


@cujit.fuse
def small_int_math(x):
    return np.sqrt(np.abs(x)) + np.sin(x)


@cujit.fuse
def compile_time_if(x):
    if SCALE > 2:
        y = x * SCALE
    else:
        y = x - SCALE
    return y + 1


@cujit.fuse
def spelled_cujit(x, y):
    return cujit.exp(cujit.minimum(x, y)) + cujit.sqrt(cujit.abs(x))


def spelled_numpy(x, y):
    return np.exp(np.minimum(x, y)) + np.sqrt(np.abs(x))


def check_chain_float32():
    n = 10000
    x, y, z = rand(n), rand(n), rand(n)
    check(chain, np.float32(1.5), x, y, z)
    check(chain, 0.75, x, y, z)


def check_chain_float64():
    x, y, z = rand(4099, np.float64), rand(4099, np.float64), rand(4099, np.float64)
    check(chain, 2.0, x, y, z)


def check_arith_dtypes():
    for dt in INTS + FLOATS + COMPLEX:
        x, y = rand((17, 33), dt), rand((17, 33), dt)
        check(arith, x, y)
        check(arith, x, 3)
    for dt in [np.int16, np.int64, np.float32, np.float64]:
        x, y = rand(1000, dt), rand(1000, dt, lo=1.0)
        if np.dtype(dt).kind == "i":
            y = np.where(y == 0, 1, y).astype(dt)
        check(arith_sub, x, y)


def check_bool_inputs():
    a, b = rand(300, bool), rand(300, bool)
    check(arith, a, b)
    check(logic, rand(300), rand(300, np.int32))


def check_mixed_dtypes():
    check(arith, rand(513, np.int8), rand(513, np.float32))
    check(arith, rand(513, np.uint8), rand(513, np.int16))
    check(arith, rand(513, np.float16), rand(513, np.float64))
    check(arith, rand(513, np.int32), 2.5)          # weak float: float64
    check(arith, rand(513, np.float32), np.float64(1.5))
    check(arith, rand(513, np.int8), 7)             # weak int: stays int8


def check_where_clip_minmax():
    for dt in [np.float32, np.float64, np.int32]:
        x, y = rand((40, 50), dt), rand((40, 50), dt)
        check(compare_where, x, y, -1)


def check_nans():
    x, y = rand(1000, np.float32), rand(1000, np.float32)
    x[::7] = np.nan
    y[::5] = np.nan
    y[::11] = np.inf
    check(nan_aware, x, y)


def check_two_outputs_kernel_name():
    x, y = rand((64, 65), np.float64), rand((64, 65), np.float64)
    check(polar, x, y)


def check_casts():
    check(casts, rand(1000, np.int32))
    check(casts, rand(1000, np.float64))


def check_math_on_scalars():
    check(math_scalar, rand(999), 2.0)
    check(math_scalar, rand(999, np.float64), 0.5)


def check_math_of_small_ints_is_float16():
    # NumPy's loops: int8 / uint8 / bool -> float16, int16 -> float32, int32 -> float64
    for dt in [np.int8, np.uint8, np.bool_, np.int16, np.int32]:
        check(small_int_math, rand(300, dt))


def check_compile_time_if():
    check(compile_time_if, rand(100, np.int64))


def check_cujit_spelling():
    # the reference in NumPy's spelling: cujit.exp of a host array runs cujit's own kernel
    x, y = rand(2000), rand(2000)
    compare(spelled_cujit(dev(x), dev(y)), spelled_numpy(x, y))


def check_cupy_spelling():
    try:
        import cupy as cp
    except ImportError:
        return      # cp.exp means the fused exp only where CuPy is installed

    @cujit.fuse
    def cpf(x, y):
        return cp.exp(x) * cp.sin(y) + cp.maximum(x, y)

    x, y = rand(5000), rand(5000)
    want = cpf.__wrapped__(cp.asarray(x), cp.asarray(y))
    compare(cpf(cp.asarray(x), cp.asarray(y)), cp.asnumpy(want))


def check_broadcasting():
    a, b, c = rand((5, 1, 7)), rand((3, 1)), rand(7)
    check(chain, 1.25, a, b, c)
    check(arith, rand((4, 1), np.int32), rand((1, 6), np.int32))


def check_zero_d_and_empty():
    check(arith, rand((), np.float32), rand((), np.float32))
    check(arith, rand((), np.float64), rand(5, np.float64))
    check(arith, rand((0, 3)), rand(3))
    check(chain, 2.0, rand(0), rand(0), rand(0))


def check_strided_and_f_order():
    big = rand((40, 90), np.float64)
    x = big[::2, ::3]
    y = np.asfortranarray(rand((20, 30), np.float64))
    check(arith, x, y)
    f = np.asfortranarray(rand((33, 17)))
    g = np.asfortranarray(rand((33, 17)))
    r = check(arith, f, g)
    assert r.__cuda_array_interface__["strides"] == (4, 33 * 4)     # F order kept
    check(chain, 0.5, x, y, rand(30, np.float64))
    check(arith, big[:, ::-1], big)


def check_host_arrays():
    x, y = rand((30, 31)), rand((30, 31))
    check(arith, x, y, device=False)


def check_int_overflow_wraps_like_numpy():
    x = np.array([100, 120, -128, 127], np.int8)
    check(arith, x, np.array([3, 2, 5, 1], np.int8))


# ---- in place ----


@cujit.fuse
def axpy_inplace(a, x, y):
    y += a * x


@cujit.fuse
def add_out(x, y, z):
    np.add(x, y, out=z)
    return z * 2


@cujit.fuse
def two_inplace(x, y, s):
    x *= s
    y -= x


def _inplace_case(f, args, device):
    want_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = f.__wrapped__(*want_args)
    dargs = [dev(a) for a in args] if device else list(args)
    got = f(*dargs)
    if want is None:
        assert got is None
    else:
        compare(got, want)
    for d, w in zip(dargs, want_args):
        if isinstance(w, np.ndarray):
            compare(host(d), w)


def check_inplace():
    for device in (True, False):
        x, y = rand(1000, np.float32), rand(1000, np.float32)
        _inplace_case(axpy_inplace, [np.float32(2), x, y], device)
        x, y, z = rand((20, 30)), rand((20, 30)), rand((20, 30))
        _inplace_case(add_out, [x, y, z], device)
        x, y = rand(777, np.int64), rand(777, np.int64)
        _inplace_case(two_inplace, [x, y, 3], device)


def check_inplace_broadcast_input():
    y = rand((6, 8))
    _inplace_case(axpy_inplace, [1.5, rand(8), y], True)


# ---- reductions ----


@cujit.fuse
def dot_rows(x, y):
    return np.sum(x * y, axis=-1)


@cujit.fuse
def total(x, y):
    return np.sum(x * y)


@cujit.fuse
def sum_axis0(x, y):
    return (x + y).sum(axis=0)


@cujit.fuse
def sum_axes_keep(x):
    return np.sum(x * 2, axis=(0, 2), keepdims=True)


@cujit.fuse
def prod_rows(x):
    return np.prod(x, axis=1)


@cujit.fuse
def min_of(x, y):
    return np.min(x - y, axis=-1)


@cujit.fuse
def max_of(x):
    return np.max(np.abs(x), axis=0)


@cujit.fuse
def mean_of(x, y):
    return np.mean(x * y, axis=1)


@cujit.fuse
def mean_all(x):
    return x.mean()


@cujit.fuse
def any_big(x):
    return np.any(x > 2.5, axis=-1)


@cujit.fuse
def all_pos(x):
    return np.all(x > -2.9, axis=None)


@cujit.fuse
def norm_sq(x, y, s):
    d = x - y
    return np.sum(d * d * s, axis=-2)


@cujit.fuse
def argmin_rows(x, y):
    return np.argmin(x - y, axis=-1)


@cujit.fuse
def argmax_all(x):
    return (x * 2).argmax()


@cujit.fuse
def argmax_axis0(x):
    return np.argmax(np.abs(x), axis=0, keepdims=True)


def check_argmin_argmax():
    for dt in [np.float32, np.float64, np.int32, np.int8, np.uint16]:
        check(argmin_rows, rand((13, 700), dt), rand((13, 700), dt))   # ties: the first
        check(argmax_all, rand((40, 31), dt))
        check(argmax_all, np.asfortranarray(rand((40, 31), dt)))      # C order indices
        check(argmax_axis0, rand((300, 5), dt))                      # a thread per output
    f = rand((4, 100), np.float64)
    f[1, 30] = f[1, 70] = f[2, 5] = np.nan      # NumPy: the first NaN
    check(argmin_rows, f, np.zeros(100))
    check(argmax_all, f)
    check(argmax_axis0, f)


def check_argmin_argmax_split():
    check(argmax_all, rand(300000, np.float32))
    check(argmin_rows, rand((3, 200000), np.float32), rand((3, 200000), np.float32))
    try:
        argmax_all(dev(rand((0, 4))))
    except ValueError as e:
        assert "empty sequence" in str(e)
    else:
        raise AssertionError("no ValueError for argmax of nothing")


def check_sum_rows():
    x, y = rand((300, 1000), np.float32, 0, 1), rand((300, 1000), np.float32, 0, 1)
    check(dot_rows, x, y, rtol=1e-4)
    x, y = rand((7, 5, 33), np.float64), rand((7, 5, 33), np.float64)
    check(dot_rows, x, y)


def check_sum_all():
    x, y = rand(100003, np.float32, 0, 1), rand(100003, np.float32, 0, 1)
    check(total, x, y, rtol=1e-4)
    check(total, rand((30, 40), np.float64), rand((30, 40), np.float64))
    check(total, rand((), np.float64), rand((), np.float64))


def check_sum_axes():
    check(sum_axis0, rand((500, 70), np.float64), rand((500, 70), np.float64))
    check(sum_axes_keep, rand((6, 5, 9), np.float64))
    check(sum_axes_keep, rand((6, 5, 9), np.int32))
    check(norm_sq, rand((20, 30, 4), np.float64), rand((30, 4), np.float64), 0.5)


def check_sum_dtypes():
    for dt in INTS + [np.float32, np.float64] + COMPLEX:
        x, y = rand((9, 257), dt, 0, 1), rand((9, 257), dt, 0, 1)
        check(dot_rows, x, y, rtol=1e-4 if np.dtype(dt) in (np.float32, np.complex64) else None)
    check(dot_rows, rand((9, 50), bool), rand((9, 50), bool))
    h = rand((9, 64), np.float16, -1, 1)
    check(dot_rows, h, h, rtol=3e-2)


def check_prod_min_max():
    check(prod_rows, rand((12, 9), np.int8))
    check(prod_rows, rand((12, 9), np.float64, 0.5, 1.5))
    for dt in [np.float32, np.float64, np.int32, np.uint8, np.int64]:
        check(min_of, rand((13, 70), dt), rand((13, 70), dt))
        check(max_of, rand((40, 3), dt))
    x = rand((10, 20), np.float64)
    x[3, 5] = np.nan
    check(min_of, x, rand((10, 20), np.float64))
    check(max_of, x)


def check_mean_any_all():
    check(mean_of, rand((25, 80), np.int32), rand((25, 80), np.int32))
    check(mean_of, rand((25, 80), np.float32, 0, 1), rand((25, 80), np.float32, 0, 1),
          rtol=1e-4)
    check(mean_all, rand((31, 7), np.float64))
    check(any_big, rand((40, 33)))
    check(all_pos, rand((40, 33)))
    check(all_pos, rand(0))


def check_reduction_broadcast_strided():
    big = rand((60, 80), np.float64)
    check(dot_rows, big[::3, ::2], rand(40, np.float64))
    check(dot_rows, rand((5, 1, 30), np.float64), rand((4, 30), np.float64))
    f = np.asfortranarray(rand((50, 60), np.float64))
    check(dot_rows, f, f)
    check(sum_axis0, f, rand(60, np.float64))
    check(total, big.T, 2.0)


def check_reduction_empty():
    check(dot_rows, rand((4, 0)), rand((4, 0)))
    check(total, rand(0), rand(0))
    check(mean_of, rand((0, 5), np.float64), rand((0, 5), np.float64))
    try:
        min_of(dev(rand((3, 0))), dev(rand((3, 0))))
    except ValueError as e:
        assert "zero-size array" in str(e)
    else:
        raise AssertionError("no ValueError for min of nothing")


def check_reduction_host_arrays():
    x, y = rand((64, 100), np.float32, 0, 1), rand((64, 100), np.float32, 0, 1)
    check(dot_rows, x, y, rtol=1e-4, device=False)


def check_large_rows_split():
    # few outputs, long rows: several blocks per output and a second pass
    x, y = rand((3, 300000), np.float32, 0, 1), rand((3, 300000), np.float32, 0, 1)
    check(dot_rows, x, y, rtol=1e-3)
    x = rand((2000, 9), np.float64)
    check(sum_axis0, x, x)


CASES = [v for k, v in sorted(globals().items()) if k.startswith("check_")]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__[6:] for c in CASES])
def test_fuse(case):
    case()
