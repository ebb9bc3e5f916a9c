"""NumPy's functions and array methods inside kernels, and cmath: np.sum(a),
a.max(), np.nanmean(a), np.count_nonzero(a) ... over rows of arguments, local
arrays and global NumPy arrays (literal_unroll over a tuple of them),
a.copy(), a.view(dtype), a.reshape(shape), and cmath's functions on special
values, each against NumPy / CPython on fresh random data."""
import cmath
import math
import warnings

import numpy as np

from cujit import cuda
from cujit.cuda import literal_unroll

from ._common import poison, rand

NOPS = 15
REDUCTIONS = [np.sum, np.prod, np.min, np.max, np.mean, np.var, np.std, np.nansum, np.nanprod,
              np.nanmin, np.nanmax, np.nanmean, np.all, np.any, np.count_nonzero]


@cuda.jit
def row_reductions(x, out):
    """every reduction of row i, as a function or as the method"""
    i = cuda.grid(1)
    if i < x.shape[0]:
        r = x[i]
        out[i, 0] = np.sum(r)
        out[i, 1] = r.prod()
        out[i, 2] = np.min(r)
        out[i, 3] = r.max()
        out[i, 4] = r.mean()
        out[i, 5] = np.var(r)
        out[i, 6] = r.std()
        out[i, 7] = np.nansum(r)
        out[i, 8] = np.nanprod(r)
        out[i, 9] = np.nanmin(r)
        out[i, 10] = np.nanmax(r)
        out[i, 11] = np.nanmean(r)
        out[i, 12] = r.all()
        out[i, 13] = np.any(r)
        out[i, 14] = np.count_nonzero(r)


def _reduce_ref(x, out):
    o = np.empty_like(out)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for i in range(x.shape[0]):
            for k, f in enumerate(REDUCTIONS):
                o[i, k] = f(x[i])
    return {1: o}


def _with_specials(a, frac=0.15):
    """a copy of a random float array with NaN, inf, -inf and -0.0 sprinkled in;
    the first row keeps none (so that no column is all NaN)"""
    a = a.copy()
    rng = np.random.default_rng()
    mask = rng.random(a.shape) < frac
    mask[0] = False
    a[mask] = rng.choice(np.array([np.nan, np.inf, -np.inf, -0.0], a.dtype), mask.sum())
    return a


def _rows(dtype, shape, specials=False):
    def make():
        x = rand(shape, dtype, -3, 3)
        if specials:
            x = _with_specials(x)
        out_dt = np.float32 if np.dtype(dtype) == np.float32 else np.float64
        return x, poison((shape[0], NOPS), out_dt)
    return make


# globals read as constant tables, unrolled over (each typed on its own)
GLOBALS = (
    _with_specials(rand(9, np.float64)),
    rand((3, 4), np.int32, -50, 50),
    rand((2, 3, 2), np.float32),
    rand((4, 5), np.bool_),
    rand(6, np.uint8, 0, 200),
    rand((5, 3), np.float64)[::-1, ::2],
)
EMPTY = (np.zeros(0, np.float64), np.zeros((0, 3), np.int64))


@cuda.jit
def global_reductions(out, empty):
    k = 0
    for a in literal_unroll(GLOBALS):
        out[k, 0] = np.sum(a)
        out[k, 1] = a.max()
        out[k, 2] = np.min(a)
        out[k, 3] = a.mean()
        out[k, 4] = np.std(a)
        out[k, 5] = np.count_nonzero(a)
        out[k, 6] = a.any()
        out[k, 7] = np.all(a)
        out[k, 8] = a.size
        k += 1
    j = 0
    for e in EMPTY:
        empty[j, 0] = e.sum()
        empty[j, 1] = np.prod(e)
        empty[j, 2] = np.count_nonzero(e)
        empty[j, 3] = e.any()
        empty[j, 4] = np.all(e)
        j += 1


def _globals_ref(out, empty):
    o = np.empty_like(out)
    for k, a in enumerate(GLOBALS):
        o[k] = [np.sum(a), a.max(), np.min(a), a.mean(), np.std(a), np.count_nonzero(a),
                a.any(), np.all(a), a.size]
    e = np.empty_like(empty)
    for j, a in enumerate(EMPTY):
        e[j] = [a.sum(), np.prod(a), np.count_nonzero(a), a.any(), np.all(a)]
    return {0: o, 1: e}


TABLE = rand((3, 4), np.float64)


@cuda.jit
def local_reductions(x, out):
    """a local array filled from row i, a copy of it and of a global array"""
    i = cuda.grid(1)
    if i < x.shape[0]:
        loc = cuda.local.array(8, np.float64)
        for j in range(8):
            loc[j] = x[i, j]
        c = loc.copy()
        t = TABLE.copy()
        loc[0] = 1000.0             # the copy keeps the old value
        out[i, 0] = np.sum(c)
        out[i, 1] = c.max()
        out[i, 2] = np.var(loc)
        out[i, 3] = t.sum() + t[2, 3]
        out[i, 4] = np.mean(loc)


def _local_ref(x, out):
    o = np.empty_like(out)
    for i in range(x.shape[0]):
        c = x[i, :8].copy()
        loc = c.copy()
        loc[0] = 1000.0
        o[i] = [c.sum(), c.max(), np.var(loc), TABLE.sum() + TABLE[2, 3], np.mean(loc)]
    return {1: o}


@cuda.jit
def views(b, words, x, grid2, grid3):
    """bytes read as int32 words; a 1-d array reshaped to 2-d and 3-d"""
    i = cuda.grid(1)
    if i < words.shape[0]:
        words[i] = b[4 * i:4 * i + 4].view(np.int32)[0]
    if i == 0:
        w = b.view(np.uint16)
        words[0] += w.shape[0] - w.shape[0]
        y = x.reshape((4, -1))
        for r in range(y.shape[0]):
            for c in range(y.shape[1]):
                grid2[r, c] = y[r, c]
        z = x.reshape(2, 3, 4)
        for p in range(2):
            for q in range(3):
                for s in range(4):
                    grid3[p, q, s] = z[p, q, s] + w.size


def _views_ref(b, words, x, grid2, grid3):
    return {1: b.view(np.int32).copy(), 3: x.reshape(4, -1).copy(),
            4: x.reshape(2, 3, 4) + b.size // 2}


@cuda.jit
def parts(z, w, out, total):
    """a.real and a.imag of complex arrays are views (written, given to atomics)"""
    i = cuda.grid(1)
    if i < z.shape[0]:
        cuda.atomic.add(z.real, i, 1)
        cuda.atomic.add(z.imag, i, 2)
        w.imag[i] *= 3
        out[i] = z.real[i] - z.imag[i] + w.real[i] + w.imag[i]
    if i == 0:
        total[0] = np.sum(w.real) + w.real.max()


def _parts_ref(z, w, out, total):
    z2 = z + (1 + 2j)
    w2 = (w.real + 3j * w.imag).astype(w.dtype)
    return {0: z2, 1: w2, 2: z2.real - z2.imag + w2.real + w2.imag,
            3: np.array([np.sum(w.real) + w.real.max()], total.dtype)}


# cmath: the peer tests' grid of special values and random points
_REALS = [-0.0, 0.0, 1.0, -1.0, 1.5, -3.5, -math.pi, math.pi, -math.inf, math.inf, math.nan]
CMATH_UNARY = ["sqrt", "exp", "log", "log10", "acos", "asin", "atan", "cos", "sin", "tan",
               "acosh", "asinh", "atanh", "cosh", "sinh", "tanh"]


@cuda.jit
def cmath_unary(z, out, preds, ph):
    i = cuda.grid(1)
    if i < z.shape[0]:
        v = z[i]
        out[i, 0] = cmath.sqrt(v)
        out[i, 1] = cmath.exp(v)
        out[i, 2] = cmath.log(v)
        out[i, 3] = cmath.log10(v)
        out[i, 4] = cmath.acos(v)
        out[i, 5] = cmath.asin(v)
        out[i, 6] = cmath.atan(v)
        out[i, 7] = cmath.cos(v)
        out[i, 8] = cmath.sin(v)
        out[i, 9] = cmath.tan(v)
        out[i, 10] = cmath.acosh(v)
        out[i, 11] = cmath.asinh(v)
        out[i, 12] = cmath.atanh(v)
        out[i, 13] = cmath.cosh(v)
        out[i, 14] = cmath.sinh(v)
        out[i, 15] = cmath.tanh(v)
        out[i, 16] = complex(*cmath.polar(v))
        out[i, 17] = cmath.rect(v.real, v.imag)
        out[i, 18] = cmath.log(v, 2.5 - 1j)
        preds[i, 0] = cmath.isnan(v)
        preds[i, 1] = cmath.isinf(v)
        preds[i, 2] = cmath.isfinite(v)
        ph[i] = cmath.phase(v)


def _cmath_points(dtype):
    def make():
        grid = [complex(x, y) for x in _REALS for y in _REALS]
        rnd = rand(64, np.complex128, -4, 4) * 10.0 ** np.random.default_rng().integers(-2, 2, 64)
        z = np.array(grid + list(rnd), dtype)
        rdt = np.float32 if np.dtype(dtype) == np.complex64 else np.float64
        return z, poison((z.size, 19), dtype), np.zeros((z.size, 3), np.bool_), poison(z.size, rdt)
    return make


def _cmath_expected(z, k):
    if k < 16:
        return getattr(cmath, CMATH_UNARY[k])(z)
    if k == 16:
        return complex(*cmath.polar(z))
    if k == 17:
        return cmath.rect(z.real, z.imag)
    return cmath.log(z, 2.5 - 1j)


def _close(g, e, scale, tol):
    if math.isnan(e):
        return math.isnan(g)
    if math.isinf(e):
        return g == e
    return abs(g - e) <= tol * max(scale, 1e-300)


def _cmath_ref(z, out, preds, ph):
    single = z.dtype == np.complex64
    tol = 2e-6 if single else 1e-14

    def check(got):
        bad = []
        for i, v in enumerate(z):
            v = complex(v)
            for k in range(19):
                try:
                    e = _cmath_expected(v, k)
                except (ValueError, ZeroDivisionError, OverflowError):
                    continue        # CPython raises: no value to compare
                if single:
                    with np.errstate(all="ignore"):
                        e = complex(np.complex64(e))
                g = complex(got[i, k])
                scale = abs(e) if cmath.isfinite(e) else 0.0
                if not (_close(g.real, e.real, scale, tol) and _close(g.imag, e.imag, scale, tol)):
                    bad.append((["sqrt", "exp", "log", "log10", "acos", "asin", "atan", "cos",
                                 "sin", "tan", "acosh", "asinh", "atanh", "cosh", "sinh",
                                 "tanh", "polar", "rect", "log_base"][k], v, e, g))
        assert not bad, "%d wrong, first ones: %s" % (len(bad), bad[:5])

    zs = [complex(v) for v in z]
    p = np.array([[cmath.isnan(v), cmath.isinf(v), cmath.isfinite(v)] for v in zs])
    phase = np.array([cmath.phase(v) for v in zs], ph.dtype)
    return {1: check, 2: p, 3: phase}


RUN = (
    [(row_reductions, 1, 32, _rows(dt, (12, 7), specials), _reduce_ref)
     for dt, specials in ((np.float64, True), (np.float64, False), (np.float32, True),
                          (np.int32, False), (np.uint8, False), (np.bool_, False))]
    + [(row_reductions, 1, 32, _rows(np.float64, (8, 40), True), _reduce_ref),
       (global_reductions, 1, 1, lambda: (poison((len(GLOBALS), 9), np.float64),
                                          poison((len(EMPTY), 5), np.float64)), _globals_ref),
       (local_reductions, 1, 32, lambda: (rand((10, 9), np.float64), poison((10, 5), np.float64)),
        _local_ref),
       (views, 1, 32, lambda: (rand(64, np.uint8, 0, 255), poison(16, np.int32),
                               rand(24, np.float64), poison((4, 6), np.float64),
                               poison((2, 3, 4), np.float64)), _views_ref),
       (parts, 1, 32, lambda: (rand(20, np.complex128), rand(20, np.complex64),
                               poison(20, np.float64), poison(1, np.float32)), _parts_ref),
       (cmath_unary, 2, 128, _cmath_points(np.complex128), _cmath_ref),
       (cmath_unary, 2, 128, _cmath_points(np.complex64), _cmath_ref)]
)

CASES = [
    (row_reductions, _rows(np.float64, (4, 7))(), [("cj_np_sum<double>", True),
                                                  ("cj_np_extreme<double>", True)]),
    (row_reductions, _rows(np.int32, (4, 7))(), [("cj_np_sum<long long>", True),
                                                ("cj_np_mean<double>", True)]),
    (global_reductions, (poison((len(GLOBALS), 9), np.float64),
                         poison((len(EMPTY), 5), np.float64)), [("cj_table5", True)]),
    (cmath_unary, _cmath_points(np.complex64)(), [("cj_csqrt(", True)]),
]
