"""Division semantics: // and % floor for negative operands (Python meaning)
for every integer and float dtype, with weak literals, constants folded at
compile time, mixed signed / unsigned operands (NumPy 2 promotion) and true
division."""
import numpy as np

from cujit import jit

from ._common import nonzero, poison, rand


@jit.rawkernel()
def floordiv_mod(a, b, q, r):
    i = jit.grid(1)
    if i < a.size:
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]


def _fdm_ref(a, b, q, r):
    return {2: np.floor_divide(a, b), 3: np.remainder(a, b)}


def _fdm_args(dt, n=128):
    dt = np.dtype(dt)
    if dt.kind == "u":
        lo, hi = 0, 200
    elif dt.kind == "i":
        lo, hi = -100, 100
    else:
        lo, hi = -20, 20
    def make():
        a = rand(n, dt, lo, hi)
        b = nonzero(n, dt, lo if dt.kind != "f" else -6, 9 if dt.kind != "f" else 6)
        if dt.kind == "f":
            b[np.abs(b) < 0.25] = 0.75
            a[:8] = np.array([-7.5, 7.5, -7.5, 7.5, -4.0, 4.0, -0.0, 3.0], dt)
            b[:8] = np.array([2.0, -2.0, -2.0, 2.0, 2.0, -2.0, 3.0, 3.0], dt)
        elif dt.kind == "i":
            a[:6] = np.array([-7, 7, -7, 7, -6, 6], dt)
            b[:6] = np.array([2, -2, -2, 2, 3, -3], dt)
        return a, b, poison(n, dt), poison(n, dt)
    return make


DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
          np.float16, np.float32, np.float64]


@jit.rawkernel()
def div_literals(a, out):
    i = jit.grid(1)
    if i < a.size:
        x = a[i]
        out[i, 0] = x // 3
        out[i, 1] = x % 3
        out[i, 2] = x // -3
        out[i, 3] = x % -3
        out[i, 4] = -7 // 2            # -4: folded with Python meaning
        out[i, 5] = -7 % 2             # 1
        out[i, 6] = 7 % -2             # -1
        out[i, 7] = x / 4              # true division
        out[i, 8] = x // 2.5           # int // float is a float floor division
        out[i, 9] = x % 2.5
        out[i, 10] = -7.5 // 2         # -4.0
        out[i, 11] = -7.5 % 2          # 0.5


def _div_literals_ref(a, out):
    rows = [[x // 3, x % 3, x // -3, x % -3, -7 // 2, -7 % 2, 7 % -2, x / 4, x // 2.5,
             x % 2.5, -7.5 // 2, -7.5 % 2] for x in a.tolist()]
    return {1: np.array(rows, np.float64)}


@jit.rawkernel()
def mixed_sign_division(a, u, q, r):
    i = jit.grid(1)
    if i < a.size:
        q[i] = a[i] // u[i]            # int32 // uint32 is int64: -7 // 2 == -4
        r[i] = a[i] % u[i]


@jit.rawkernel()
def int64_uint64_division(a, u, q):
    i = jit.grid(1)
    if i < a.size:
        q[i] = a[i] // u[i]            # int64 with uint64 promotes to float64


@jit.rawkernel()
def runtime_divisor(a, d, q, r):
    i = jit.grid(1)
    if i < a.size:
        q[i] = a[i] // d
        r[i] = a[i] % d


@jit.rawkernel()
def divmod_by_thread(out):
    i = jit.threadIdx.x
    out[i, 0] = (i - 8) // 3           # thread indices are signed
    out[i, 1] = (i - 8) % 3
    out[i, 2] = (i - 8) // -3
    out[i, 3] = (i - 8) % -3


def _divmod_thread_ref(out):
    rows = [[(i - 8) // 3, (i - 8) % 3, (i - 8) // -3, (i - 8) % -3] for i in range(16)]
    return {0: np.array(rows, out.dtype)}


CASES = (
    [(floordiv_mod, _fdm_args(dt)()) for dt in DTYPES]
    + [
        (div_literals, (rand(32, np.int32, -50, 50), poison((32, 12), np.float64))),
        (div_literals, (rand(32, np.int64, -50, 50), poison((32, 12), np.float64))),
        (mixed_sign_division, (rand(32, np.int32), nonzero(32, np.uint32, 1, 9),
                               poison(32, np.int64), poison(32, np.int64))),
        (int64_uint64_division, (rand(32, np.int64), nonzero(32, np.uint64, 1, 9),
                                 poison(32, np.float64))),
        (runtime_divisor, (rand(32, np.int32), np.int32(-3), poison(32, np.int32),
                           poison(32, np.int32))),
        (runtime_divisor, (rand(32, np.float32), -2.5, poison(32, np.float64),
                           poison(32, np.float64))),
        (divmod_by_thread, (poison((16, 4), np.int64),)),
    ]
)

RUN = (
    [(floordiv_mod, 1, 128, _fdm_args(dt), _fdm_ref) for dt in DTYPES]
    + [
        (div_literals, 1, 64, lambda: (rand(40, np.int32, -50, 50), poison((40, 12), np.float64)),
         _div_literals_ref),
        (mixed_sign_division, 1, 64,
         lambda: (rand(40, np.int32, -50, 50), nonzero(40, np.uint32, 1, 9),
                  poison(40, np.int64), poison(40, np.int64)),
         lambda a, u, q, r: {2: np.floor_divide(a, u), 3: np.remainder(a, u)}),
        (int64_uint64_division, 1, 64,
         lambda: (rand(40, np.int64, -50, 50), nonzero(40, np.uint64, 1, 9),
                  poison(40, np.float64)),
         lambda a, u, q: {2: np.floor_divide(a, u)}),
        (runtime_divisor, 1, 64,
         lambda: (rand(40, np.int32, -50, 50), np.int32(-3), poison(40, np.int32),
                  poison(40, np.int32)),
         lambda a, d, q, r: {2: np.floor_divide(a, d), 3: np.remainder(a, d)}),
        (runtime_divisor, 1, 64,
         lambda: (rand(40, np.float32, -20, 20), -2.5, poison(40, np.float64),
                  poison(40, np.float64)),
         lambda a, d, q, r: {2: np.floor_divide(a.astype(np.float64), d),
                             3: np.remainder(a.astype(np.float64), d)}),
        (divmod_by_thread, 1, 16, lambda: (poison((16, 4), np.int64),), _divmod_thread_ref),
    ]
)
