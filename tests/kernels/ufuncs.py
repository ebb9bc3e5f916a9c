"""NumPy's elementwise ufuncs inside kernels: np.f(x) of numbers (each thread
its element) and np.f(x ..., out) of arrays (one thread writes every
element of out, the inputs broadcast against it), on floats with NaN, inf
and -0.0 sprinkled in, complex numbers, integers of every width (int64
against uint64 compared exactly) and bool, each against NumPy on fresh
random data."""
import warnings

import numpy as np

from cujit import cuda

from ._common import poison, rand

FLOAT1 = [np.sin, np.cos, np.tan, np.arcsin, np.arccos, np.arctan, np.sinh, np.cosh, np.tanh,
          np.arcsinh, np.arccosh, np.arctanh, np.log, np.log2, np.log10, np.log1p, np.exp,
          np.exp2, np.expm1, np.sqrt]
REAL1 = [np.deg2rad, np.radians, np.rad2deg, np.degrees]
BINARY = [np.greater, np.greater_equal, np.less, np.less_equal, np.equal, np.not_equal,
          np.logical_and, np.logical_or, np.logical_xor, np.maximum, np.minimum, np.fmax,
          np.fmin, np.add, np.subtract, np.multiply]
INT2 = [np.bitwise_and, np.bitwise_or, np.bitwise_xor]


@cuda.jit
def float_arrays(x, out):
    """every float ufunc of the array x, into a row of out each"""
    np.sin(x, out[0])
    np.cos(x, out[1])
    np.tan(x, out[2])
    np.arcsin(x, out[3])
    np.arccos(x, out[4])
    np.arctan(x, out[5])
    np.sinh(x, out[6])
    np.cosh(x, out[7])
    np.tanh(x, out[8])
    np.arcsinh(x, out[9])
    np.arccosh(x, out[10])
    np.arctanh(x, out[11])
    np.log(x, out[12])
    np.log2(x, out[13])
    np.log10(x, out[14])
    np.log1p(x, out[15])
    np.exp(x, out[16])
    np.exp2(x, out[17])
    np.expm1(x, out=out[18])
    np.sqrt(x, out[19])


@cuda.jit
def float_scalars(x, out):
    """the same ufuncs of one number per thread"""
    i = cuda.grid(1)
    if i < x.shape[0]:
        v = x[i]
        out[0, i] = np.sin(v)
        out[1, i] = np.cos(v)
        out[2, i] = np.tan(v)
        out[3, i] = np.arcsin(v)
        out[4, i] = np.arccos(v)
        out[5, i] = np.arctan(v)
        out[6, i] = np.sinh(v)
        out[7, i] = np.cosh(v)
        out[8, i] = np.tanh(v)
        out[9, i] = np.arcsinh(v)
        out[10, i] = np.arccosh(v)
        out[11, i] = np.arctanh(v)
        out[12, i] = np.log(v)
        out[13, i] = np.log2(v)
        out[14, i] = np.log10(v)
        out[15, i] = np.log1p(v)
        out[16, i] = np.exp(v)
        out[17, i] = np.exp2(v)
        out[18, i] = np.expm1(v)
        out[19, i] = np.sqrt(v)


def _with_specials(a, frac=0.15):
    a = a.copy()
    rng = np.random.default_rng()
    mask = rng.random(a.shape) < frac
    a[mask] = rng.choice(np.array([np.nan, np.inf, -np.inf, -0.0], a.dtype), mask.sum())
    return a


def _quiet(f):
    def ref(*args):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return f(*args)
    return ref


@_quiet
def _float_ref(x, out):
    o = out.copy()
    for k, f in enumerate(FLOAT1):
        o[k] = f(x)
    return {1: o}


def _floats(dtype, n=40, specials=True, lo=-3, hi=3):
    def make():
        x = rand(n, dtype, lo, hi)
        if specials:
            x = _with_specials(x)
        out_dt = np.result_type(np.sin(np.zeros(1, dtype)))
        return x, poison((len(FLOAT1), n), out_dt)
    return make


@cuda.jit
def real_ufuncs(x, y, out):
    """deg2rad and friends of an array, arctan2 and hypot of two arrays, a
    2-d array against a row (broadcast) and a number"""
    np.deg2rad(x, out[0])
    np.radians(x, out[1])
    np.rad2deg(x, out[2])
    np.degrees(x, out[3])
    np.arctan2(x, y, out[4])
    np.hypot(x, y, out[5])
    np.arctan2(x, y[0], out[6])
    np.hypot(x, 2.5, out[7])


@_quiet
def _real_ref(x, y, out):
    o = out.copy()
    for k, f in enumerate(REAL1):
        o[k] = f(x)
    o[4] = np.arctan2(x, y)
    o[5] = np.hypot(x, y)
    o[6] = np.arctan2(x, y[0])
    o[7] = np.hypot(x, 2.5)
    return {2: o}


def _real_args(dtype):
    def make():
        x = _with_specials(rand((3, 7), dtype, -400, 400))
        y = _with_specials(rand(7, dtype, -5, 5))
        return x, y, poison((8, 3, 7), dtype)
    return make


@cuda.jit
def binary_arrays(a, b, out):
    """the comparisons, logical, min / max and arithmetic ufuncs of a 2-d
    array and a row broadcast against it, written to a float64 out"""
    np.greater(a, b, out[0])
    np.greater_equal(a, b, out[1])
    np.less(a, b, out[2])
    np.less_equal(a, b, out[3])
    np.equal(a, b, out[4])
    np.not_equal(a, b, out[5])
    np.logical_and(a, b, out[6])
    np.logical_or(a, b, out[7])
    np.logical_xor(a, b, out[8])
    np.maximum(a, b, out[9])
    np.minimum(a, b, out[10])
    np.fmax(a, b, out[11])
    np.fmin(a, b, out[12])
    np.add(a, b, out[13])
    np.subtract(a, b, out[14])
    np.multiply(a, b, out[15])


@_quiet
def _binary_ref(a, b, out):
    o = out.copy()
    for k, f in enumerate(BINARY):
        o[k] = f(a, b)
    return {2: o}


def _binary_args(dtype, out_dtype=np.float64):
    def make():
        a = rand((4, 9), dtype, -4, 4)
        b = rand(9, dtype, -4, 4)
        if np.dtype(dtype).kind == "f":
            a, b = _with_specials(a, 0.2), _with_specials(b, 0.2)
        a[0] = b        # equal elements
        return a, b, poison((len(BINARY), 4, 9), out_dtype)
    return make


@cuda.jit
def binary_scalars(a, b, out):
    """the same of one pair of numbers per thread, into bool and number
    columns of out"""
    i = cuda.grid(1)
    if i < a.shape[0]:
        x = a[i]
        y = b[i]
        out[i, 0] = np.greater(x, y)
        out[i, 1] = np.greater_equal(x, y)
        out[i, 2] = np.less(x, y)
        out[i, 3] = np.less_equal(x, y)
        out[i, 4] = np.equal(x, y)
        out[i, 5] = np.not_equal(x, y)
        out[i, 6] = np.logical_and(x, y)
        out[i, 7] = np.logical_or(x, y)
        out[i, 8] = np.logical_xor(x, y)
        out[i, 9] = np.maximum(x, y)
        out[i, 10] = np.minimum(x, y)
        out[i, 11] = np.fmax(x, y)
        out[i, 12] = np.fmin(x, y)
        out[i, 13] = np.add(x, y)
        out[i, 14] = np.subtract(x, y)
        out[i, 15] = np.multiply(x, y)


@_quiet
def _binary_scalar_ref(a, b, out):
    o = out.copy()
    for k, f in enumerate(BINARY):
        o[:, k] = f(a, b)
    return {2: o}


def _pairs(dtype, n=50):
    def make():
        a = rand(n, dtype, -4, 4)
        b = rand(n, dtype, -4, 4)
        if np.dtype(dtype).kind == "f":
            a, b = _with_specials(a, 0.2), _with_specials(b, 0.2)
        b[::5] = a[::5]
        return a, b, poison((n, len(BINARY)), np.float64)
    return make


@cuda.jit
def int_ufuncs(a, b, out, flags):
    """bitwise ufuncs and invert of integers, logical_not and isnan / isinf /
    isfinite, negative, absolute and square"""
    np.bitwise_and(a, b, out[0])
    np.bitwise_or(a, b, out[1])
    np.bitwise_xor(a, b, out[2])
    np.invert(a, out[3])
    np.negative(a, out[4])
    np.absolute(a, out[5])
    np.square(b, out[6])
    np.logical_not(a, flags[0])
    np.isnan(a, flags[1])
    np.isinf(a, flags[2])
    np.isfinite(a, flags[3])


@_quiet
def _int_ref(a, b, out, flags):
    o, fl = out.copy(), flags.copy()
    for k, f in enumerate(INT2):
        o[k] = f(a, b)
    o[3] = np.invert(a)
    o[4] = np.negative(a)
    o[5] = np.absolute(a)
    o[6] = np.square(b)
    fl[0] = np.logical_not(a)
    fl[1] = np.isnan(a)
    fl[2] = np.isinf(a)
    fl[3] = np.isfinite(a)
    return {2: o, 3: fl}


def _ints(dtype):
    def make():
        info = np.iinfo(dtype)
        a = rand(30, dtype, info.min, info.max)
        b = rand(30, dtype, info.min, info.max)
        a[:3] = 0
        return a, b, poison((7, 30), dtype), poison((4, 30), np.bool_)
    return make


@cuda.jit
def mixed_compare(s, u, out):
    """int64 against uint64, as numbers and as arrays: exact (NumPy 1.25)"""
    i = cuda.grid(1)
    if i < s.shape[0]:
        out[0, i] = np.less(s[i], u[i])
        out[1, i] = np.greater_equal(u[i], s[i])
        out[2, i] = np.equal(s[i], u[i])
    if i == 0:
        np.less_equal(s, u, out[3])
        np.not_equal(u, s, out[4])
        np.greater(s, u, out[5])


def _mixed_ref(s, u, out):
    o = out.copy()
    o[0] = np.less(s, u)
    o[1] = np.greater_equal(u, s)
    o[2] = np.equal(s, u)
    o[3] = np.less_equal(s, u)
    o[4] = np.not_equal(u, s)
    o[5] = np.greater(s, u)
    return {2: o}


def _mixed_args():
    s = rand(40, np.int64, -3, 3)
    u = rand(40, np.uint64, 0, 3)
    s[:4] = [-1, -(1 << 62), 1 << 62, 2]
    u[:4] = [(1 << 64) - 1, (1 << 63) + 5, 1 << 62, 2]
    return s, u, poison((6, 40), np.bool_)


@cuda.jit
def complex_ufuncs(z, w, out, flags):
    """ufuncs of complex arrays: cmath's functions, log2, min / max and the
    comparisons (by real part, then imaginary), absolute"""
    np.sin(z, out[0])
    np.arccosh(z, out[1])
    np.log2(z, out[2])
    np.sqrt(z, out[3])
    np.maximum(z, w, out[4])
    np.fmin(z, w, out[5])
    np.multiply(z, w, out[6])
    np.absolute(z, out[7])
    np.less(z, w, flags[0])
    np.greater_equal(z, w, flags[1])
    np.logical_and(z, w, flags[2])
    np.isnan(z, flags[3])


@_quiet
def _complex_ref(z, w, out, flags):
    o, fl = out.copy(), flags.copy()
    o[0] = np.sin(z)
    o[1] = np.arccosh(z)
    o[2] = np.log2(z)
    o[3] = np.sqrt(z)
    o[4] = np.maximum(z, w)
    o[5] = np.fmin(z, w)
    o[6] = np.multiply(z, w)
    o[7] = np.absolute(z)
    fl[0] = np.less(z, w)
    fl[1] = np.greater_equal(z, w)
    fl[2] = np.logical_and(z, w)
    fl[3] = np.isnan(z)
    return {2: o, 3: fl}


def _complex_args(dtype):
    def make():
        z = rand(24, dtype, -3, 3)
        w = rand(24, dtype, -3, 3)
        w[::4] = z[::4].real + 1j * rand(6, np.float64, -3, 3)     # equal real parts
        z[3] = complex(np.nan, 1.0)
        z[6] = 0
        w[9] = complex(1.0, np.nan)
        return z, w, poison((8, 24), dtype), poison((4, 24), np.bool_)
    return make


@cuda.jit
def int_to_float(a, out):
    """integers and bool into float ufuncs: float64 (float32 for 1 and 2
    byte integers), as Numba computes them"""
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[0, i] = np.sqrt(a[i])
        out[1, i] = np.log1p(a[i])
        out[2, i] = np.divide(a[i], 3)
    if i == 0:
        np.sin(a, out[3])
        np.arctan2(a, 7, out[4])


@_quiet
def _int_to_float_ref(a, out):
    o = out.copy()
    f = np.float32 if a.dtype.itemsize <= 2 else np.float64
    o[0] = np.sqrt(a.astype(f))
    o[1] = np.log1p(a.astype(f))
    o[2] = np.divide(a, 3)      # true division of integers: float64
    o[3] = np.sin(a.astype(f))
    o[4] = np.arctan2(a.astype(f), f(7))
    return {1: o}


def _int_args(dtype):
    def make():
        return rand(33, dtype, 0, 100), poison((5, 33), np.float64)
    return make


def _fortran():
    x = np.asfortranarray(_with_specials(rand((5, 8), np.float64, -3, 3)))
    return x, poison((len(FLOAT1), 5, 8), np.float64)


RUN = (
    [(float_arrays, 1, 1, _floats(dt), _float_ref) for dt in (np.float64, np.float32)]
    + [(float_arrays, 1, 1, _floats(np.complex128, specials=False), _float_ref,
        {"rtol": 1e-10, "atol": 1e-12}),
       (float_arrays, 1, 1, _fortran, _float_ref),
       (float_arrays, 1, 1, lambda: (rand(6, np.float64, -3, 3),
                                     poison((len(FLOAT1), 6), np.float64)), _float_ref)]
    + [(float_scalars, 2, 32, _floats(dt), _float_ref)
       for dt in (np.float64, np.float32)]
    + [(float_scalars, 1, 64, _floats(np.complex64, specials=False), _float_ref,
        {"rtol": 1e-4, "atol": 1e-5})]
    + [(real_ufuncs, 1, 1, _real_args(dt), _real_ref) for dt in (np.float64, np.float32)]
    + [(binary_arrays, 1, 1, _binary_args(dt), _binary_ref)
       for dt in (np.float64, np.float32, np.int32, np.uint16)]
    + [(binary_arrays, 1, 1, _binary_args(np.int8, np.int8), _binary_ref)]
    + [(binary_scalars, 2, 32, _pairs(dt), _binary_scalar_ref)
       for dt in (np.float64, np.float32, np.int64, np.uint8)]
    + [(int_ufuncs, 1, 1, _ints(dt), _int_ref)
       for dt in (np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64, np.uint64)]
    + [(mixed_compare, 2, 32, _mixed_args, _mixed_ref)]
    + [(complex_ufuncs, 1, 1, _complex_args(dt), _complex_ref,
        {"rtol": 1e-4, "atol": 1e-5} if dt == np.complex64 else {"rtol": 1e-10, "atol": 1e-12})
       for dt in (np.complex128, np.complex64)]
    + [(int_to_float, 2, 32, _int_args(dt), _int_to_float_ref, {"rtol": 1e-6, "atol": 1e-6})
       for dt in (np.int8, np.uint16, np.int32, np.uint64, np.bool_)]
)

CASES = [
    (float_arrays, _floats(np.float32)(), [("cj_uf_map1<float>(", True),
                                          ("cj_uf_f_arccosh()", True)]),
    (float_scalars, _floats(np.float64)(), [("cj_uf_sin(", True)]),
    (binary_arrays, _binary_args(np.int32)(), [("cj_uf_map2<int, int>(", True)]),
    (mixed_compare, _mixed_args(), [("cj_uf_map2<long long, unsigned long long>(", True)]),
    (complex_ufuncs, _complex_args(np.complex64)(), [("cj_uf_map1<cj_complex64>(", True)]),
    (int_to_float, _int_args(np.int8)(), [("cj_uf_sqrt((float)", True)]),
]
