"""Intrinsics in Numba's spelling: cuda.fp16's functions and float16
operators, the math functions without a builtin of their own (exp2, frexp,
modf, ldexp, remainder, nextafter, degrees, radians), the operator module,
pow(), int.bit_count(), round(x, ndigits) with ndigits known at run time,
cuda.popc / clz / ffs / brev on every integer width, cuda.libdevice, and
max / min of floats (two: libdevice's fmax / fmin, as numba-cuda; more: Python's NaN rule).
References are NumPy's (or Python's math, element by element)."""
import math
import operator

import numpy as np

from cujit import cuda

from ._common import INT_DTYPES, poison, rand

N = 64
_F16 = {"rtol": 2e-3, "atol": 1e-3}


def _f16_pair():
    a = rand(N, np.float16, -4, 4)
    b = rand(N, np.float16, -4, 4)
    b[np.abs(b) < 0.25] = np.float16(0.5)
    b[::7] = a[::7]                     # some equal pairs for the comparisons
    return a, b


@cuda.jit
def fp16_arith(a, b, out, cmp):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = cuda.fp16.hadd(a[i], b[i])
        out[i, 1] = cuda.fp16.hsub(a[i], b[i])
        out[i, 2] = cuda.fp16.hmul(a[i], b[i])
        out[i, 3] = cuda.fp16.hdiv(a[i], b[i])
        out[i, 4] = cuda.fp16.hfma(a[i], b[i], a[i])
        out[i, 5] = cuda.fp16.hneg(a[i])
        out[i, 6] = cuda.fp16.habs(a[i])
        out[i, 7] = cuda.fp16.hmax(a[i], b[i])
        out[i, 8] = cuda.fp16.hmin(a[i], b[i])
        cmp[i, 0] = cuda.fp16.heq(a[i], b[i])
        cmp[i, 1] = cuda.fp16.hne(a[i], b[i])
        cmp[i, 2] = cuda.fp16.hlt(a[i], b[i])
        cmp[i, 3] = cuda.fp16.hle(a[i], b[i])
        cmp[i, 4] = cuda.fp16.hgt(a[i], b[i])
        cmp[i, 5] = cuda.fp16.hge(a[i], b[i])


def _fp16_arith_args():
    a, b = _f16_pair()
    return a, b, poison((N, 9), np.float16), poison((N, 6), np.bool_)


def _fp16_arith_ref(a, b, out, cmp):
    f = np.float32
    vals = [a + b, a - b, a * b, a / b, (a.astype(f) * b.astype(f) + a.astype(f)),
            -a, np.abs(a), np.maximum(a, b), np.minimum(a, b)]
    cmps = [a == b, a != b, a < b, a <= b, a > b, a >= b]
    return {2: np.stack([np.asarray(v).astype(np.float16) for v in vals], axis=1),
            3: np.stack(cmps, axis=1)}


FP16_MATH = ["hsqrt", "hrsqrt", "hrcp", "hexp", "hexp2", "hexp10", "hlog", "hlog2",
             "hlog10", "hsin", "hcos", "hceil", "hfloor", "hrint", "htrunc"]


@cuda.jit
def fp16_math(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = cuda.fp16.hsqrt(x[i])
        out[i, 1] = cuda.fp16.hrsqrt(x[i])
        out[i, 2] = cuda.fp16.hrcp(x[i])
        out[i, 3] = cuda.fp16.hexp(x[i])
        out[i, 4] = cuda.fp16.hexp2(x[i])
        out[i, 5] = cuda.fp16.hexp10(x[i])
        out[i, 6] = cuda.fp16.hlog(x[i])
        out[i, 7] = cuda.fp16.hlog2(x[i])
        out[i, 8] = cuda.fp16.hlog10(x[i])
        out[i, 9] = cuda.fp16.hsin(x[i])
        out[i, 10] = cuda.fp16.hcos(x[i])
        out[i, 11] = cuda.fp16.hceil(x[i])
        out[i, 12] = cuda.fp16.hfloor(x[i])
        out[i, 13] = cuda.fp16.hrint(x[i])
        out[i, 14] = cuda.fp16.htrunc(x[i])


def _fp16_math_ref(x, out):
    f = x.astype(np.float32)
    cols = [np.sqrt(f), 1 / np.sqrt(f), 1 / f, np.exp(f), np.exp2(f), 10 ** f, np.log(f),
            np.log2(f), np.log10(f), np.sin(f), np.cos(f), np.ceil(f), np.floor(f),
            np.rint(f), np.trunc(f)]
    return {1: np.stack(cols, axis=1).astype(np.float16)}


@cuda.jit
def fp16_operators(a, b, out, cmp):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = a[i] + b[i]
        out[i, 1] = a[i] - b[i]
        out[i, 2] = a[i] * b[i]
        out[i, 3] = a[i] / b[i]
        out[i, 4] = -a[i]
        out[i, 5] = abs(b[i])
        out[i, 6] = a[i] * np.int8(3) + b[i]     # int8 stays float16 (NumPy's rule)
        cmp[i, 0] = a[i] == b[i]
        cmp[i, 1] = a[i] != b[i]
        cmp[i, 2] = a[i] < b[i]
        cmp[i, 3] = a[i] <= b[i]
        cmp[i, 4] = a[i] > b[i]
        cmp[i, 5] = a[i] >= b[i]


def _fp16_operators_args():
    a, b = _f16_pair()
    return a, b, poison((N, 7), np.float16), poison((N, 6), np.bool_)


def _fp16_operators_ref(a, b, out, cmp):
    vals = [a + b, a - b, a * b, a / b, -a, np.abs(b), a * np.int8(3) + b]
    cmps = [a == b, a != b, a < b, a <= b, a > b, a >= b]
    return {2: np.stack(vals, axis=1), 3: np.stack(cmps, axis=1)}


@cuda.jit
def math_extra(x, y, k, out, e):
    i = cuda.grid(1)
    if i < x.size:
        m, ex = math.frexp(x[i])
        out[i, 0] = m
        e[i, 0] = ex
        fr, whole = math.modf(x[i])
        out[i, 1] = fr
        out[i, 2] = whole
        out[i, 3] = math.ldexp(x[i], k[i])
        out[i, 4] = math.exp2(x[i])
        out[i, 5] = math.remainder(x[i], y[i])
        out[i, 6] = math.nextafter(x[i], y[i])
        out[i, 7] = math.degrees(x[i])
        out[i, 8] = math.radians(x[i])


def _math_extra_args(dt):
    def make():
        y = rand(N, dt, -3, 3)
        y[np.abs(y) < 0.1] = dt(0.75)
        return (rand(N, dt, -6, 6), y, rand(N, np.int32, -4, 4), poison((N, 9), dt),
                poison((N, 1), np.int32))
    return make


def _math_extra_ref(x, y, k, out, e):
    m, ex = np.frexp(x)
    fr, whole = np.modf(x)
    rem = [math.remainder(a, b) for a, b in zip(x.astype(np.float64).tolist(),
                                                y.astype(np.float64).tolist())]
    cols = [m, fr, whole, np.ldexp(x, k), np.exp2(x), np.array(rem), np.nextafter(x, y),
            np.degrees(x), np.radians(x)]
    return {3: np.stack([np.asarray(c).astype(out.dtype) for c in cols], axis=1),
            4: ex.astype(np.int32).reshape(N, 1)}


@cuda.jit
def operator_funcs(a, b, out, cmp):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = operator.add(a[i], b[i])
        out[i, 1] = operator.sub(a[i], b[i])
        out[i, 2] = operator.mul(a[i], b[i])
        out[i, 3] = operator.truediv(a[i], b[i])
        out[i, 4] = operator.floordiv(a[i], b[i])
        out[i, 5] = operator.mod(a[i], b[i])
        out[i, 6] = operator.pow(a[i], 2)
        out[i, 7] = pow(a[i], 3)
        out[i, 8] = operator.neg(a[i])
        cmp[i, 0] = operator.lt(a[i], b[i])
        cmp[i, 1] = operator.ge(a[i], b[i])
        cmp[i, 2] = operator.eq(a[i], a[i])
        cmp[i, 3] = operator.not_(operator.ne(a[i], b[i]))


def _operator_args(dt):
    def make():
        b = rand(N, dt, -5, 5)
        b[b == 0] = 3
        return rand(N, dt, -5, 5), b, poison((N, 9), np.float64), poison((N, 4), np.bool_)
    return make


def _operator_ref(a, b, out, cmp):
    vals = [a + b, a - b, a * b, a / b, a // b, a % b, a ** 2, a ** 3, -a]
    cmps = [a < b, a >= b, a == a, ~(a != b)]
    return {2: np.stack([np.asarray(v, np.float64) for v in vals], axis=1),
            3: np.stack(cmps, axis=1)}


@cuda.jit
def int_operators(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = operator.and_(a[i], b[i])
        out[i, 1] = operator.or_(a[i], b[i])
        out[i, 2] = operator.xor(a[i], b[i])
        out[i, 3] = operator.lshift(a[i], 2)
        out[i, 4] = operator.rshift(a[i], 1)
        out[i, 5] = operator.invert(a[i])
        out[i, 6] = a[i].bit_count()


def _int_operator_args():
    return (rand(N, np.int32, -1000, 1000), rand(N, np.int32, -1000, 1000),
            poison((N, 7), np.int64))


def _int_operator_ref(a, b, out):
    bc = [bin(v & 0xFFFFFFFF).count("1") for v in a.tolist()]
    cols = [a & b, a | b, a ^ b, a << 2, a >> 1, ~a, np.array(bc)]
    return {2: np.stack([np.asarray(c, np.int64) for c in cols], axis=1)}


@cuda.jit
def round_digits(x, nd, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = round(x[i], nd[i])


def _round_args():
    return rand(N, np.float64, -50, 50), rand(N, np.int32, -2, 6), poison(N, np.float64)


def _round_ref(x, nd, out):
    return {2: np.array([round(v, d) for v, d in zip(x.tolist(), nd.tolist())])}


@cuda.jit
def bits(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = cuda.popc(x[i])
        out[i, 1] = cuda.clz(x[i])
        out[i, 2] = cuda.ffs(x[i])


def _bits_args(dt):
    def make():
        info = np.iinfo(dt)
        x = rand(N, dt, info.min, info.max)
        x[0] = 0
        x[1] = 1
        x[2] = info.max
        x[3] = info.min
        return x, poison((N, 3), np.int64)
    return make


def _bits_ref(x, out):
    w = x.dtype.itemsize * 8
    rows = []
    for v in x.tolist():
        u = v & ((1 << w) - 1)
        rows.append([bin(u).count("1"), w - u.bit_length(), (u & -u).bit_length()])
    return {1: np.array(rows, np.int64)}


@cuda.jit
def brev_bits(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = cuda.brev(x[i])


def _brev_args(dt):
    def make():
        info = np.iinfo(dt)
        return rand(N, dt, info.min, info.max), poison(N, dt)
    return make


def _brev_ref(x, out):
    w = x.dtype.itemsize * 8
    rev = [int(format(v & ((1 << w) - 1), "0%db" % w)[::-1], 2) for v in x.tolist()]
    return {1: np.array(rev, np.uint64).astype(x.dtype)}


@cuda.jit
def libdevice_calls(x, y, k, s, c, m, e, r):
    i = cuda.grid(1)
    if i < x.size:
        sv, cv = cuda.libdevice.sincos(x[i])
        s[i] = sv
        c[i] = cv
        mv, ev = cuda.libdevice.frexp(x[i])
        m[i] = mv
        e[i] = ev
        r[i, 0] = cuda.libdevice.sad(k[i], k[i] * 3, 5)
        r[i, 1] = cuda.libdevice.hypot(x[i], y[i])
        r[i, 2] = cuda.libdevice.cbrt(x[i])
        r[i, 3] = cuda.libdevice.sinf(y[i])


def _libdevice_args():
    return (rand(N, np.float64, -4, 4), rand(N, np.float64, -4, 4),
            rand(N, np.int32, -100, 100), poison(N, np.float64), poison(N, np.float64),
            poison(N, np.float64), poison(N, np.int32), poison((N, 4), np.float64))


def _libdevice_ref(x, y, k, s, c, m, e, r):
    mv, ev = np.frexp(x)
    cols = [np.abs(k - k * 3) + 5, np.hypot(x, y), np.cbrt(x),
            np.sin(y.astype(np.float32)).astype(np.float64)]
    return {3: np.sin(x), 4: np.cos(x), 5: mv, 6: ev.astype(np.int32),
            7: np.stack([np.asarray(v, np.float64) for v in cols], axis=1)}


@cuda.jit
def float_minmax(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i, 0] = max(a[i], b[i])
        out[i, 1] = min(a[i], b[i])
        out[i, 2] = max(a[i], b[i], a[i] * 2)


def _minmax_args(dt):
    def make():
        a, b = rand(N, dt, -5, 5), rand(N, dt, -5, 5)
        a[::5] = np.nan             # two floats: a NaN loses either side (fmax, as
        b[1::7] = np.nan            # numba-cuda); three: Python's rule (a NaN first wins)
        b[2::9] = a[2::9]
        return a, b, poison((N, 3), dt)
    return make


def _minmax_ref(a, b, out):
    rows = [[np.fmax(x, y), np.fmin(x, y), max(x, y, x * 2)]
            for x, y in zip(a.tolist(), b.tolist())]
    return {2: np.array(rows, a.dtype)}


_F32 = {"rtol": 2e-6, "atol": 1e-6}
_LD = {"rtol": 1e-6, "atol": 1e-7}     # sinf of float32 inside the float64 rows

CASES = [
    (fp16_arith, _fp16_arith_args(), [("cj_hadd", True)]),
    (fp16_math, (rand(N, np.float16, 0.5, 3), poison((N, 15), np.float16))),
    (fp16_operators, _fp16_operators_args(), [("cj_hadd", True), ("cj_hlt", True)]),
    (math_extra, _math_extra_args(np.float32)(), [("frexpf", True), ("exp2f", True)]),
    (math_extra, _math_extra_args(np.float64)(), [("frexp(", True), ("modf(", True)]),
    (operator_funcs, _operator_args(np.float64)()),
    (operator_funcs, _operator_args(np.int64)()),
    (int_operators, _int_operator_args(), [("__popc", True)]),
    (round_digits, _round_args(), [("cj_round_nd", True)]),
    (libdevice_calls, _libdevice_args(), [("__nv_sincos", True), ("__nv_sad", True)]),
    (float_minmax, _minmax_args(np.float32)(), [("cj_fmax", True)]),
    (float_minmax, _minmax_args(np.float64)(), [("= fmin(a.data[i], b.data[i]);", True)]),
] + [(bits, _bits_args(dt)()) for dt in INT_DTYPES] + [
    (brev_bits, _brev_args(dt)()) for dt in (np.uint32, np.uint64, np.int32, np.int64)]

RUN = [
    (fp16_arith, 1, N, _fp16_arith_args, _fp16_arith_ref, _F16),
    (fp16_math, 1, N, lambda: (rand(N, np.float16, 0.5, 3), poison((N, 15), np.float16)),
     _fp16_math_ref, _F16),
    (fp16_operators, 1, N, _fp16_operators_args, _fp16_operators_ref),
    (math_extra, 1, N, _math_extra_args(np.float32), _math_extra_ref, _F32),
    (math_extra, 1, N, _math_extra_args(np.float64), _math_extra_ref),
    (operator_funcs, 1, N, _operator_args(np.float64), _operator_ref),
    (operator_funcs, 1, N, _operator_args(np.int64), _operator_ref),
    (int_operators, 1, N, _int_operator_args, _int_operator_ref),
    (round_digits, 1, N, _round_args, _round_ref),
    (libdevice_calls, 1, N, _libdevice_args, _libdevice_ref, _LD),
    (float_minmax, 1, N, _minmax_args(np.float32), _minmax_ref),
    (float_minmax, 1, N, _minmax_args(np.float64), _minmax_ref),
] + [(bits, 1, N, _bits_args(dt), _bits_ref) for dt in INT_DTYPES] + [
    (brev_bits, 1, N, _brev_args(dt), _brev_ref)
    for dt in (np.uint32, np.uint64, np.int32, np.int64)]
