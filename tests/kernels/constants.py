"""Global and closure constants folded in at compile time: bool, int, float,
complex, NumPy scalars (which keep their dtype) and tuples of these; Python
numbers stay weak (NEP 50) like literals; closures built by a factory."""
import numpy as np

from cujit import jit

from ._common import poison, rand

N_ITEMS = 8
SCALE = 2.5
ENABLED = True
DISABLED = False
OFFSET = 1 - 2j
EPS32 = np.float32(1e-3)
SEVEN16 = np.int16(7)
SHAPE = (4, 8)
PAIR = (3, 0.5)


@jit.rawkernel()
def use_globals(x, out):
    i = jit.grid(1)
    if i < x.size:
        v = x[i] * SCALE + N_ITEMS             # weak: stays float32
        if ENABLED:
            v += EPS32
        if DISABLED:
            v = -v
        out[i] = v


@jit.rawkernel()
def numpy_scalar_global(x, out):
    i = jit.grid(1)
    if i < x.size:
        out[i] = x[i] + SEVEN16                 # int8 + int16 is int16: no int8 wrap


@jit.rawkernel()
def tuple_globals(out, cout):
    buf = jit.shared_memory(np.int32, SHAPE)
    t = jit.threadIdx.x
    r = t // SHAPE[1]
    c = t % SHAPE[1]
    buf[r, c] = t
    jit.syncthreads()
    a, b = PAIR
    out[t] = buf[SHAPE[0] - 1 - r, c] * a + b
    if t == 0:
        cout[0] = OFFSET * 2


def _tuple_globals_ref(out):
    t = np.arange(32)
    r, c = t // 8, t % 8
    return ((3 - r) * 8 + c) * 3 + 0.5


def make_scaler(factor, bias):
    @jit.rawkernel()
    def scaler(x, out):
        i = jit.grid(1)
        if i < x.size:
            out[i] = x[i] * factor + bias       # closure constants
    return scaler


scale_by_3 = make_scaler(3, 0.25)
scale_by_half = make_scaler(0.5, np.float64(-1))


def make_table_kernel(table):
    @jit.rawkernel()
    def lookup(k, out):
        i = jit.grid(1)
        if i < k.size:
            j = k[i]
            v = table[0]
            if j == 1:
                v = table[1]
            elif j == 2:
                v = table[2]
            out[i] = v
    return lookup


lookup_small = make_table_kernel((10, 20, 30))


CASES = [
    (use_globals, (rand(16, np.float32), poison(16, np.float32)), [("double", False)]),
    (use_globals, (rand(16, np.float64), poison(16, np.float64))),
    (numpy_scalar_global, (rand(16, np.int8, 100, 127), poison(16, np.int64))),
    (tuple_globals, (poison(32, np.float64), poison(1, np.complex128))),
    (scale_by_3, (rand(16, np.float32), poison(16, np.float32)), [("double", False)]),
    (scale_by_half, (rand(16, np.float32), poison(16, np.float64)), [("double", True)]),
    (lookup_small, (rand(16, np.int32, 0, 2), poison(16, np.int64))),
]

RUN = [
    (use_globals, 1, 16, lambda: (rand(16, np.float32), poison(16, np.float32)),
     lambda x, out: {1: x * np.float32(2.5) + np.float32(8) + np.float32(1e-3)}),
    (numpy_scalar_global, 1, 16, lambda: (rand(16, np.int8, 100, 127), poison(16, np.int64)),
     lambda x, out: {1: x.astype(np.int64) + 7}),
    (tuple_globals, 1, 32, lambda: (poison(32, np.float64), poison(1, np.complex128)),
     lambda out, cout: {0: _tuple_globals_ref(out), 1: np.array([(1 - 2j) * 2])}),
    (scale_by_3, 1, 16, lambda: (rand(16, np.float32), poison(16, np.float32)),
     lambda x, out: {1: x * np.float32(3) + np.float32(0.25)}),
    (scale_by_half, 1, 16, lambda: (rand(16, np.float32), poison(16, np.float64)),
     lambda x, out: {1: x.astype(np.float64) * 0.5 - 1}),
    (lookup_small, 1, 16, lambda: (rand(16, np.int32, 0, 2), poison(16, np.int64)),
     lambda k, out: {1: np.array([10, 20, 30])[k]}),
]
