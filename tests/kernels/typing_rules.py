"""Typing: every argument dtype (arrays and scalars, Python int / float /
complex / bool arguments), NumPy 2 promotion with weak Python literals
(NEP 50), variables that unify over their assignments, 32- and 64-bit
index arithmetic."""
import numpy as np

from cujit import jit

from ._common import ALL_DTYPES, huge, poison, rand


@jit.rawkernel()
def copy_any(x, out):
    i = jit.grid(1)
    if i < x.size:
        out[i] = x[i]


@jit.rawkernel()
def fill_scalar(s, out):
    i = jit.grid(1)
    if i < out.size:
        out[i] = s


SCALARS = [np.bool_(False), np.int8(-5), np.int16(300), np.int32(-70000), np.int64(2 ** 40),
           np.uint8(200), np.uint16(60000), np.uint32(4000000000), np.uint64(2 ** 63 + 1),
           np.float16(1.5), np.float32(0.1), np.float64(0.1), np.complex64(1 - 2j),
           np.complex128(0.5 + 0.25j), 7, -2.5, 3 + 4j, False]   # bools: the poison is True


def _out_for(s):
    return poison(8, np.asarray(s).dtype)


@jit.rawkernel()
def nep50_float32(x, out):
    i = jit.grid(1)
    if i < x.size:
        out[i] = x[i] * 2.5 + 1.0                # float32: no double anywhere


@jit.rawkernel()
def nep50_weak_ints(x, out):
    i = jit.grid(1)
    if i < x.size:
        out[i, 0] = x[i] + 1                     # int8 + 1 wraps at 127 like NumPy
        out[i, 1] = x[i] * 2
        out[i, 2] = x[i] - 100


@jit.rawkernel()
def strong_python_float_arg(x, s, out):
    i = jit.grid(1)
    if i < x.size:
        out[i] = x[i] * s                        # a Python float argument is float64


@jit.rawkernel()
def promotions(i8, u8, i16, i32, u32, i64, u64, f16, f32, b, out):
    i = jit.grid(1)
    if i < out.shape[0]:
        out[i, 0] = u8[i] + i8[i]                # int16
        out[i, 1] = i32[i] + f32[i]              # float64
        out[i, 2] = i16[i] + f32[i]              # float32
        out[i, 3] = i64[i] + u64[i]              # float64
        out[i, 4] = u32[i] + i32[i]              # int64
        out[i, 5] = b[i] + i8[i]                 # int8
        out[i, 6] = i32[i] * 1.5                 # float64
        out[i, 7] = f16[i] + 1.5                 # float16
        out[i, 8] = f16[i] + f32[i]              # float32
        out[i, 9] = u8[i] * u8[i]                # uint8 wraps
        out[i, 10] = i32[i] / 2                  # float64
        out[i, 11] = f32[i] ** 2                 # float32


def _promotion_args():
    n = 32
    i32 = rand(n, np.int32, -20, 20)
    i32[:4] = [16777217, -16777217, 16777219, 2 ** 30 + 1]  # not exact in float32
    f32 = rand(n, np.float32, -4, 4)
    f32[:4] = 0
    return (rand(n, np.int8, -100, 100), rand(n, np.uint8, 100, 255), rand(n, np.int16),
            i32, rand(n, np.uint32, 0, 10 ** 9), rand(n, np.int64, -1000, 1000),
            rand(n, np.uint64, 0, 1000), rand(n, np.float16, -4, 4), f32,
            rand(n, np.bool_), poison((n, 12), np.float64))


def _promotion_ref(i8, u8, i16, i32, u32, i64, u64, f16, f32, b, out):
    cols = [u8 + i8, i32 + f32, i16 + f32, i64 + u64, u32 + i32, b + i8, i32 * 1.5,
            f16 + np.float16(1.5), f16 + f32, u8 * u8, i32 / 2, f32 ** 2]
    return {10: np.stack([c.astype(np.float64) for c in cols], axis=1)}


@jit.rawkernel()
def unify_widening(k, f, out):
    i = jit.grid(1)
    if i < k.size:
        v = k[i]                                 # int16 ...
        if v > 0:
            v = v * 1.5                          # ... widened to float64
        out[i, 0] = v
        w = 1
        if k[i] < 0:
            w = 2.5                              # weak int and weak float meet
        out[i, 1] = w
        acc = 0.0
        for j in range(4):
            acc += f[i, j]                       # weak 0.0 and float32 meet as float32
        out[i, 2] = acc
        n = 0
        n += k[i]
        out[i, 3] = n


def _unify_ref(k, f, out):
    v = np.where(k > 0, k * 1.5, k)
    w = np.where(k < 0, 2.5, 1)
    acc = f.astype(np.float32).sum(axis=1, dtype=np.float32)
    return {2: np.stack([v, w, acc.astype(np.float64), k.astype(np.float64)], axis=1)}


@jit.rawkernel()
def float32_accumulate(f, out):
    i = jit.grid(1)
    if i < f.shape[0]:
        acc = 0.0
        for j in range(f.shape[1]):
            acc += f[i, j] * 0.5
        out[i] = acc


@jit.rawkernel()
def index_arith_width(x, out):
    i = jit.grid(1)
    if i < x.size:
        out[i] = x[x.size - 1 - i]


CASES = (
    [(copy_any, (rand(8, dt), poison(8, dt))) for dt in ALL_DTYPES]
    + [(copy_any, (rand(8, dt), poison(8, np.float64)))
       for dt in ALL_DTYPES if np.dtype(dt).kind != "c"]
    + [(fill_scalar, (s, _out_for(s))) for s in SCALARS]
    + [
        (copy_any, (rand(8, np.float32), poison(8, np.float32)), [("cj_half", False)]),
        (nep50_float32, (rand(16, np.float32), poison(16, np.float32)), [("double", False)]),
        (nep50_float32, (rand(16, np.float16), poison(16, np.float16)), [("double", False)]),
        (nep50_weak_ints, (rand(16, np.int8, 100, 127), poison((16, 3), np.int64))),
        (strong_python_float_arg, (rand(16, np.float32), 0.1, poison(16, np.float64)),
         [("double", True)]),
        (strong_python_float_arg, (rand(16, np.float32), np.float32(0.1), poison(16, np.float32)),
         [("double", False)]),
        (promotions, _promotion_args()),
        (unify_widening, (rand(16, np.int16), rand((16, 4), np.float32),
                          poison((16, 4), np.float64))),
        (float32_accumulate, (rand((16, 8), np.float32), poison(16, np.float32)),
         [("double", False)]),
        (index_arith_width, (rand(16, np.float32), poison(16, np.float32))),
        (index_arith_width, (huge(np.float32), huge(np.float32))),
    ]
)

RUN = (
    [(copy_any, 1, 8, (lambda dt: lambda: (rand(8, dt), poison(8, dt)))(dt),
      lambda x, out: {1: x.copy()}) for dt in ALL_DTYPES]
    + [(fill_scalar, 1, 8, (lambda s: lambda: (s, _out_for(s)))(s),
        lambda s, out: {1: np.full(8, s, out.dtype)}) for s in SCALARS]
    + [
        (nep50_float32, 1, 16, lambda: (rand(16, np.float32), poison(16, np.float32)),
         lambda x, out: {1: x * np.float32(2.5) + np.float32(1.0)}),
        (nep50_weak_ints, 1, 16, lambda: (rand(16, np.int8, 100, 127), poison((16, 3), np.int64)),
         lambda x, out: {1: np.stack([x + 1, x * 2, x - 100], axis=1).astype(np.int64)}),
        (strong_python_float_arg, 1, 16, lambda: (rand(16, np.float32), 0.1,
                                                  poison(16, np.float64)),
         lambda x, s, out: {2: x.astype(np.float64) * 0.1}, {"rtol": 1e-14}),
        (promotions, 1, 32, _promotion_args, _promotion_ref),
        (unify_widening, 1, 16, lambda: (rand(16, np.int16), rand((16, 4), np.float32),
                                         poison((16, 4), np.float64)), _unify_ref),
        (float32_accumulate, 1, 16, lambda: (rand((16, 8), np.float32), poison(16, np.float32)),
         lambda f, out: {1: (f * np.float32(0.5)).sum(axis=1, dtype=np.float32)}),
    ]
)
