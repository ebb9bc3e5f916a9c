"""Arithmetic with Python meaning: + - * / ** on ints and floats (int powers
and float powers), bitwise operators and shifts, unary operators, augmented
assignment with every operator, int8 / uint8 wrap-around as in NumPy."""
import numpy as np

from cujit import jit

from ._common import poison, rand


@jit.rawkernel()
def int_ops(a, b, out):
    i = jit.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[i, 0] = x + y
        out[i, 1] = x - y
        out[i, 2] = x * y
        out[i, 3] = x & y
        out[i, 4] = x | y
        out[i, 5] = x ^ y
        out[i, 6] = ~x
        out[i, 7] = -x
        out[i, 8] = +x
        out[i, 9] = x << 3
        out[i, 10] = x >> 2
        out[i, 11] = x ** 2
        out[i, 12] = (y & 7) ** 3
        out[i, 13] = x << (y & 7)
        out[i, 14] = x >> (y & 7)


def _int_ops_ref(a, b, out):
    t = a.dtype.type
    s = b & t(7)
    cols = [a + b, a - b, a * b, a & b, a | b, a ^ b, ~a, -a, +a, a << t(3), a >> t(2),
            a ** t(2), s ** t(3), a << s, a >> s]
    return {2: np.stack(cols, axis=1).astype(out.dtype)}


def _int_args(dt):
    lo = 0 if np.dtype(dt).kind == "u" else -1000
    return lambda: (rand(96, dt, lo, 1000), rand(96, dt, lo, 1000), poison((96, 15), dt))


@jit.rawkernel()
def float_ops(a, b, out):
    i = jit.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[i, 0] = x + y
        out[i, 1] = x - y
        out[i, 2] = x * y
        out[i, 3] = x / y
        out[i, 4] = -x
        out[i, 5] = +x
        out[i, 6] = abs(x) ** 0.5
        out[i, 7] = x ** 2
        out[i, 8] = abs(x) ** y
        out[i, 9] = x * 2.5 + 1.0
        out[i, 10] = y ** -1
        out[i, 11] = 2 ** y
        out[i, 12] = x ** 3                      # a negative base with an int exponent
        out[i, 13] = (x - 4.5) ** -2


def _float_ops_ref(a, b, out):
    t = a.dtype.type
    cols = [a + b, a - b, a * b, a / b, -a, +a, np.abs(a) ** 0.5, a ** 2, np.abs(a) ** b,
            a * 2.5 + 1.0, b ** -1.0, 2.0 ** b, a ** 3, (a - t(4.5)) ** t(-2)]
    return {2: np.stack([c.astype(np.float64) for c in cols], axis=1).astype(out.dtype)}


def _float_args(dt):
    return lambda: (rand(96, dt, -4, 4), rand(96, dt, 0.5, 4), poison((96, 14), dt))


@jit.rawkernel()
def true_division(a, b, out):
    i = jit.grid(1)
    if i < a.size:
        out[i] = a[i] / b[i]          # int / int is float64, as in Python


@jit.rawkernel()
def int_pow_float(a, out):
    i = jit.grid(1)
    if i < a.size:
        out[i, 0] = a[i] ** 0.5       # int ** float -> float64
        out[i, 1] = a[i] ** 3         # int ** int stays int
        out[i, 2] = 2.0 ** a[i]


@jit.rawkernel()
def python_int_powers(out):
    if jit.grid(1) == 0:
        out[0] = 2 ** -1             # Python ints: a negative exponent gives a float
        out[1] = 10 ** -2
        out[2] = (-2) ** 3
        out[3] = 2 ** 10


@jit.rawkernel()
def aug_ops(a, out, fout):
    i = jit.grid(1)
    if i < a.size:
        v = a[i]
        v += 7
        v -= 3
        v *= 5
        v //= 3
        v %= 1000
        v <<= 2
        v >>= 1
        v &= 0xFFF
        v |= 0x10
        v ^= 0x5
        v **= 2
        out[i] = v
        f = 1.5
        f /= 2
        f **= 3
        f += a[i]
        f -= 0.25
        f *= 2
        fout[i, 0] = f
        fout[i, 1] = a[i]
        fout[i, 1] //= 4
        fout[i, 1] += 0.5
        fout[i, 1] %= 7


def _aug_ops_ref(a, out, fout):
    vs, fs = [], []
    for x in a.tolist():
        v = x + 7 - 3
        v = (v * 5) // 3 % 1000
        v = (((v << 2) >> 1) & 0xFFF | 0x10) ^ 0x5
        vs.append(v ** 2)
        f = ((1.5 / 2) ** 3 + x - 0.25) * 2
        fs.append([f, (x // 4 + 0.5) % 7])
    return {1: np.array(vs, out.dtype), 2: np.array(fs, fout.dtype)}


@jit.rawkernel()
def small_int_wrap(a, b, out):
    i = jit.grid(1)
    if i < a.size:
        out[i, 0] = a[i] * b[i]       # int8 * int8 is int8: wraps as in NumPy
        out[i, 1] = a[i] + b[i]
        out[i, 2] = -a[i]
        out[i, 3] = a[i] + 1          # weak literal keeps the dtype


def _wrap_ref(a, b, out):
    with np.errstate(over="ignore"):
        cols = [a * b, a + b, -a, a + 1]
    return {2: np.stack(cols, axis=1).astype(out.dtype)}


def _wrap_args(dt):
    lo, hi = (-128, 127) if np.dtype(dt).kind == "i" else (0, 255)
    return lambda: (rand(64, dt, lo, hi), rand(64, dt, lo, hi), poison((64, 4), np.int64))


CASES = (
    [(int_ops, _int_args(dt)()) for dt in
     (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)]
    + [(float_ops, _float_args(dt)()) for dt in (np.float16, np.float32, np.float64)]
    + [
        (float_ops, _float_args(np.float32)(), [("double", False)]),
        (float_ops, _float_args(np.float16)(), [("cj_half", True)]),
        (float_ops, _float_args(np.float64)(), [("cj_half", False)]),
        (true_division, (rand(16, np.int32), rand(16, np.int32, 1, 9), poison(16, np.float64)),
         [("double", True)]),
        (true_division, (rand(16, np.uint8, 0, 9), rand(16, np.int64, 1, 9),
                         poison(16, np.float32))),
        (int_pow_float, (rand(16, np.int32, 0, 9), poison((16, 3), np.float64))),
        (python_int_powers, (poison(4, np.float64),)),
        (aug_ops, (rand(32, np.int64), poison(32, np.int64), poison((32, 2), np.float64))),
        (small_int_wrap, _wrap_args(np.int8)()),
        (small_int_wrap, _wrap_args(np.uint8)()),
    ]
)

RUN = (
    [(int_ops, 1, 128, _int_args(dt), _int_ops_ref)
     for dt in (np.int32, np.int64, np.uint32, np.uint64, np.int16)]
    + [(float_ops, 1, 128, _float_args(dt), _float_ops_ref)
       for dt in (np.float16, np.float32, np.float64)]
    + [
        (true_division, 1, 64,
         lambda: (rand(40, np.int32, -100, 100), rand(40, np.int32, 1, 9),
                  poison(40, np.float64)),
         lambda a, b, out: {2: a / b}),
        (int_pow_float, 1, 32, lambda: (rand(16, np.int32, 0, 9), poison((16, 3), np.float64)),
         lambda a, out: {1: np.stack([a ** 0.5, a ** 3, 2.0 ** a], axis=1)}),
        (python_int_powers, 1, 1, lambda: (poison(4, np.float64),),
         lambda out: {0: np.array([2 ** -1, 10 ** -2, (-2) ** 3, 2 ** 10])}),
        (aug_ops, 1, 64,
         lambda: (rand(40, np.int64, -1000, 1000), poison(40, np.int64),
                  poison((40, 2), np.float64)),
         _aug_ops_ref),
        (small_int_wrap, 1, 64, _wrap_args(np.int8), _wrap_ref),
        (small_int_wrap, 1, 64, _wrap_args(np.uint8), _wrap_ref),
    ]
)
