"""x in t and x not in t: t a tuple (written out, a parameter, a global,
built in the kernel, a.shape, heterogeneous, empty), a list written out,
range(...) (computed arithmetically, steps of either sign, float x) or an
array (every element), in both spellings; x is evaluated once."""
import numpy as np

from cujit import cuda, jit

from . import _common
from ._common import poison

_own = np.random.default_rng()


def rand(*args, **kwargs):
    """_common.rand from a stream of this module's own, so that the data of
    the modules after it stay as they were (as optional.py does)"""
    saved, _common._rng = _common._rng, _own
    try:
        return _common.rand(*args, **kwargs)
    finally:
        _common._rng = saved

PRIMES = (2, 3, 5, 7)           # a global tuple, folded in as a constant
MIXED = (1, 2.5, True)          # heterogeneous


@jit.rawkernel()
def in_tuples(x, y, out):
    i = jit.grid(1)
    if i < x.size:
        v = x[i]
        out[i, 0] = v in (2, 3)
        out[i, 1] = v not in (2, 3)
        out[i, 2] = v in PRIMES
        out[i, 3] = v in (x[0], 9, y[i] + 1.0) or v in (-2,)
        out[i, 4] = y[i] in MIXED               # float against int, float, bool
        out[i, 5] = v in (y[i], -1)             # built in the kernel
        out[i, 6] = v in [4, -4]                # a list written out
        out[i, 7] = v in ()
        out[i, 8] = v + 1 in x.shape            # a.shape's items
        out[i, 9] = 1 if v in (0, 1) else 3     # in a conditional expression


def _tuples_args():
    x = rand(64, np.int32, -6, 10)
    x[:8] = [2, 3, 5, 7, 1, 0, 4, 63]
    y = rand(64, np.float32, -3, 3).round(1)
    y[:6] = [1.0, 2.5, 0.0, 2.0, 1.0, 3.0]
    y[6:12] = x[6:12]
    return x, y, poison((64, 10), np.int32)


def _tuples_ref(x, y, out):
    v = x
    cols = [np.isin(v, (2, 3)), ~np.isin(v, (2, 3)), np.isin(v, PRIMES),
            (v == x[0]) | (v == 9) | (v == y + 1.0) | (v == -2),
            np.isin(y, (1.0, 2.5)), (v == y) | (v == -1), np.isin(v, (4, -4)),
            np.zeros(v.shape, bool), v + 1 == x.size, np.where(np.isin(v, (0, 1)), 1, 3)]
    return {2: np.stack([c.astype(np.int32) for c in cols], axis=1)}


@jit.rawkernel()
def in_tuple_params(x, t, u, out):
    """tuple parameters: a UniTuple and a heterogeneous one (int, float)"""
    i = jit.grid(1)
    if i < x.size:
        out[i, 0] = x[i] in t
        out[i, 1] = x[i] not in u


def _params_args():
    x = rand(64, np.float32, -4, 4).round()
    x[:3] = [1.5, -2, 9]
    return x, (1, -2, 9), (3, 1.5), poison((64, 2), np.int32)


def _params_ref(x, t, u, out):
    return {3: np.stack([np.isin(x, t), ~np.isin(x, u)], axis=1).astype(np.int32)}


@jit.rawkernel()
def in_uint8_weak(x, out):
    """NEP 50: a Python int outside uint8's range is compared exactly (never
    equal), not wrapped into it"""
    i = jit.grid(1)
    if i < x.size:
        out[i, 0] = x[i] in (300, -1, 7)
        out[i, 1] = x[i] not in (256, 44)


def _uint8_ref(x, out):
    return {1: np.stack([x == 7, x != 44], axis=1).astype(np.int32)}


def _uint8_args():
    x = rand(48, np.uint8, 0, 255)
    x[:4] = [7, 44, 255, 0]
    return x, poison((48, 2), np.int32)


@jit.rawkernel()
def in_ranges(x, f, lo, hi, s, out):
    i = jit.grid(1)
    if i < x.size:
        out[i, 0] = x[i] in range(lo, hi, s)
        out[i, 1] = x[i] in range(hi, lo, -s)     # the same steps, downwards
        out[i, 2] = x[i] in range(hi)
        out[i, 3] = x[i] not in range(lo, hi)
        out[i, 4] = f[i] in range(lo, hi, s)      # a float: only an integer is in it


def _ranges_args():
    x = rand(96, np.int64, -20, 20)
    f = rand(96, np.float64, -20, 20)
    f[::2] = np.round(f[::2])
    return x, f, -7, 11, 3, poison((96, 5), np.int32)


def _ranges_ref(x, f, lo, hi, s, out):
    def inr(v, r):
        rs = set(r)
        return np.array([float(e).is_integer() and int(e) in rs for e in v])
    cols = [inr(x, range(lo, hi, s)), inr(x, range(hi, lo, -s)), inr(x, range(hi)),
            ~inr(x, range(lo, hi)), inr(f, range(lo, hi, s))]
    return {5: np.stack([c.astype(np.int32) for c in cols], axis=1)}


@jit.rawkernel()
def in_array(x, table, grid2, out):
    i = jit.grid(1)
    if i < x.size:
        out[i, 0] = x[i] in table
        out[i, 1] = x[i] not in grid2             # every element of a 2-d array


def _array_args():
    x = rand(64, np.float32, -8, 8).round()
    table = rand(5, np.int16, -8, 8)
    grid2 = rand((3, 4), np.float64, -8, 8).round()[:, ::2]
    return x, table, grid2, poison((64, 2), np.int32)


def _array_ref(x, table, grid2, out):
    return {3: np.stack([np.isin(x, table), ~np.isin(x, grid2)], axis=1).astype(np.int32)}


@jit.rawkernel()
def in_halves(h, tab, out):
    """float16 compared as float: items of float16 and of other types"""
    i = jit.grid(1)
    if i < h.size:
        out[i, 0] = h[i] in (h[0], np.float16(1.5), 2)
        out[i, 1] = h[i] in (h[1], np.float16(0.5))
        out[i, 2] = h[i] in range(-2, 3)
        out[i, 3] = h[i] in tab


def _halves_args():
    h = rand(32, np.float32, -3, 3).round().astype(np.float16)
    h[:3] = [1.5, 2.0, -0.5]
    tab = rand(4, np.float16, -3, 3).round()
    return h, tab, poison((32, 4), np.int32)


def _halves_ref(h, tab, out):
    f = h.astype(np.float64)
    ints = (f == np.round(f)) & (f >= -2) & (f < 3)
    cols = [(f == f[0]) | (f == 1.5) | (f == 2), (f == f[1]) | (f == 0.5), ints,
            np.isin(f, tab.astype(np.float64))]
    return {2: np.stack([c.astype(np.int32) for c in cols], axis=1)}


@cuda.jit
def in_numba(inp, t, out):
    """Numba's spelling (test_debuginfo's `inp[0] in (2, 3)`): int64 and
    float64 arithmetic, the tuple a UniTuple parameter"""
    i = cuda.grid(1)
    if i < inp.size:
        out[i, 0] = 1 if inp[i] in (2, 3) else 3
        out[i, 1] = inp[i] not in t
        out[i, 2] = inp[i] * 2 in range(0, 20, 4)
        out[i, 3] = inp[i] in (2.0, 9)


def _numba_args():
    inp = rand(64, np.int32, -4, 12)
    inp[:4] = [2, 3, 9, 10]
    return inp, (10, 11, -3), poison((64, 4), np.int64)


def _numba_ref(inp, t, out):
    cols = [np.where(np.isin(inp, (2, 3)), 1, 3), ~np.isin(inp, t),
            np.isin(inp * 2, range(0, 20, 4)), np.isin(inp, (2, 9))]
    return {2: np.stack([c.astype(np.int64) for c in cols], axis=1)}


CASES = [
    (in_tuples, _tuples_args(), [("cj_x == 2", True)]),
    (in_tuple_params, _params_args()),
    (in_uint8_weak, _uint8_args()),
    (in_ranges, _ranges_args()),
    (in_array, _array_args()),
    (in_halves, _halves_args()),
    (in_numba, _numba_args()),
]

RUN = [
    (in_tuples, 1, 64, _tuples_args, _tuples_ref),
    (in_tuple_params, 1, 64, _params_args, _params_ref),
    (in_uint8_weak, 1, 64, _uint8_args, _uint8_ref),
    (in_ranges, 1, 96, _ranges_args, _ranges_ref),
    (in_array, 1, 64, _array_args, _array_ref),
    (in_halves, 1, 32, _halves_args, _halves_ref),
    (in_numba, 1, 64, _numba_args, _numba_ref),
]
