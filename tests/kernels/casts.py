"""Casts and builtins: int() float() bool() complex(), NumPy dtype casts
(np.float32(x), numpy.int64(x)), abs, n-ary min / max, round (half to even)
and len."""
import numpy
import numpy as np

from cujit import jit

from ._common import poison, rand

HALVES = [-3.5, -2.5, -1.5, -0.5, 0.0, 0.5, 1.5, 2.5, 3.5, 3.7, -3.7, 9.99, -9.99, 0.49]


def _float_data(n, dt=np.float64):
    x = rand(n, dt, -10, 10)
    x[:len(HALVES)] = HALVES
    return x


@jit.rawkernel()
def py_casts(f, k, out_i, out_f, out_b, out_c):
    i = jit.grid(1)
    if i < f.size:
        x = f[i]
        out_i[i, 0] = int(x)                # truncates toward zero
        out_i[i, 1] = int(x > 0)
        out_i[i, 2] = round(x)              # half to even
        out_i[i, 3] = int(k[i]) * 3
        out_f[i, 0] = float(int(x))
        out_f[i, 1] = float(k[i]) / 4
        out_f[i, 2] = float(x > 1)
        out_b[i, 0] = bool(x)
        out_b[i, 1] = bool(int(x))
        out_b[i, 2] = bool(k[i])
        out_c[i, 0] = complex(x, 2 * x)
        out_c[i, 1] = complex(k[i])


def _py_casts_ref(f, k, out_i, out_f, out_b, out_c):
    fl, kl = f.tolist(), k.tolist()
    oi = [[int(x), int(x > 0), round(x), int(v) * 3] for x, v in zip(fl, kl)]
    of = [[float(int(x)), float(v) / 4, float(x > 1)] for x, v in zip(fl, kl)]
    ob = [[bool(x), bool(int(x)), bool(v)] for x, v in zip(fl, kl)]
    oc = [[complex(x, 2 * x), complex(v)] for x, v in zip(fl, kl)]
    return {2: np.array(oi, out_i.dtype), 3: np.array(of, out_f.dtype),
            4: np.array(ob, bool), 5: np.array(oc, out_c.dtype)}


def _py_casts_args(dt=np.float64):
    def make():
        n = 48
        k = rand(n, np.int32, -3, 3)
        return (_float_data(n, dt), k, poison((n, 4), np.int64), poison((n, 3), np.float64),
                poison((n, 3), np.bool_), poison((n, 2), np.complex128))
    return make


@jit.rawkernel()
def np_casts(f, out_f32, out_i, out_u8, out_c):
    i = jit.grid(1)
    if i < f.size:
        x = f[i]
        out_f32[i, 0] = np.float32(x)
        out_f32[i, 1] = np.float32(x) * 2.5          # stays float32
        out_f32[i, 2] = np.float16(x)
        out_f32[i, 3] = numpy.float64(np.float32(x))
        out_i[i, 0] = np.int32(x)                    # truncates, as astype does
        out_i[i, 1] = numpy.int64(x * 100)
        out_i[i, 2] = np.int8(int(x))
        out_i[i, 3] = np.int16(x) + np.int16(1)
        out_u8[i] = np.uint8(abs(x) * 10)
        out_c[i] = np.complex64(x)


def _np_casts_ref(f, out_f32, out_i, out_u8, out_c):
    f32 = f.astype(np.float32)
    of = np.stack([f32, f32 * np.float32(2.5), f.astype(np.float16).astype(np.float32), f32],
                  axis=1)
    oi = np.stack([f.astype(np.int32), (f * 100).astype(np.int64),
                   np.trunc(f).astype(np.int8), f.astype(np.int16) + np.int16(1)], axis=1)
    return {1: of, 2: oi.astype(np.int64), 3: (np.abs(f) * 10).astype(np.uint8),
            4: f.astype(np.complex64)}


def _np_casts_args():
    n = 48
    return (_float_data(n), poison((n, 4), np.float32), poison((n, 4), np.int64),
            poison(n, np.uint8), poison(n, np.complex64))


@jit.rawkernel()
def builtins_minmax(a, b, c, k, out):
    i = jit.grid(1)
    if i < a.size:
        out[i, 0] = abs(a[i])
        out[i, 1] = min(a[i], b[i])
        out[i, 2] = max(a[i], b[i], c[i])             # n-ary
        out[i, 3] = min(a[i], 0.5, c[i], b[i])
        out[i, 4] = max(abs(a[i] - b[i]), 1.0)
        out[i, 5] = round(a[i])
        out[i, 6] = min(k[i], 3)
        out[i, 7] = max(k[i], -k[i], 2)
        out[i, 8] = abs(k[i])
        out[i, 9] = min(k[i], a[i])                   # int32 with float32 meet as float64


def _minmax_ref(a, b, c, k, out):
    cols = [np.abs(a), np.minimum(a, b), np.maximum(np.maximum(a, b), c),
            np.minimum(np.minimum(np.minimum(a, np.float32(0.5)), c), b),
            np.maximum(np.abs(a - b), np.float32(1.0)), np.rint(a), np.minimum(k, 3),
            np.maximum(np.maximum(k, -k), 2), np.abs(k), np.minimum(k, a)]
    return {4: np.stack([x.astype(np.float64) for x in cols], axis=1)}


def _minmax_args():
    n = 64
    a = rand(n, np.float32, -5, 5)
    a[:8] = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -3.5]
    return (a, rand(n, np.float32, -5, 5), rand(n, np.float32, -5, 5),
            rand(n, np.int32, -5, 5), poison((n, 10), np.float64))


@jit.rawkernel()
def round_ndigits(x, out):
    i = jit.grid(1)
    if i < x.size:
        out[i] = round(x[i], 2)


@jit.rawkernel()
def lengths(x, m, out):
    if jit.grid(1) == 0:
        out[0] = len(x)
        out[1] = len(m)
        out[2] = len(m) * 10 + m.shape[1]


@jit.rawkernel()
def wrapping_casts(f, o8, o16, u8, u16, u32):
    """Floats outside a narrow integer type wrap as NumPy's casts do on
    x86-64 (through int32; uint32 through int64), not saturate.  Values
    outside int32 itself are left out: NumPy gives x86's "invalid" pattern
    there (with a warning), the GPU saturates."""
    i = jit.grid(1)
    if i < f.size:
        o8[i] = np.int8(f[i])
        o16[i] = np.int16(f[i])
        u8[i] = np.uint8(f[i])
        u16[i] = np.uint16(f[i])
        u32[i] = np.uint32(f[i])


def _wrapping_args():
    n = 40
    f = np.concatenate([rng_floats(n - 8), [-1.0, -3.5, 300.0, 70000.0, -129.9, 128.5,
                                            -70000.0, 2.0e9]])
    return (f, poison(n, np.int8), poison(n, np.int16), poison(n, np.uint8),
            poison(n, np.uint16), poison(n, np.uint32))


def rng_floats(n):
    return np.random.default_rng().uniform(-1000.0, 1000.0, n)


def _wrapping_ref(f, o8, o16, u8, u16, u32):
    with np.errstate(invalid="ignore"):
        return {1: f.astype(np.int8), 2: f.astype(np.int16), 3: f.astype(np.uint8),
                4: f.astype(np.uint16), 5: f.astype(np.uint32)}


CASES = [
    (py_casts, _py_casts_args()()),
    (py_casts, _py_casts_args(np.float32)()),
    (np_casts, _np_casts_args()),
    (builtins_minmax, _minmax_args()),
    (round_ndigits, (rand(16, np.float64), poison(16, np.float64))),
    (lengths, (rand(7, np.float32), rand((3, 5), np.int8), poison(3, np.int64))),
    (wrapping_casts, _wrapping_args()),
]

RUN = [
    (wrapping_casts, 1, 40, _wrapping_args, _wrapping_ref),
    (py_casts, 1, 64, _py_casts_args(), _py_casts_ref),
    (np_casts, 1, 64, _np_casts_args, _np_casts_ref),
    (builtins_minmax, 1, 64, _minmax_args, _minmax_ref),
    (round_ndigits, 1, 16, lambda: (rand(16, np.float64), poison(16, np.float64)),
     lambda x, out: {1: np.array([round(v, 2) for v in x.tolist()])}),
    (lengths, 1, 1, lambda: (rand(7, np.float32), rand((3, 5), np.int8), poison(3, np.int64)),
     lambda x, m, out: {2: np.array([7, 3, 35], np.int64)}),
]
