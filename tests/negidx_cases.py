"""Kernels whose indices are negative at run time, for cuda.jit's Python
(Numba) semantics: a negative signed index counts from the end (u[i - 1] at
i == 0 is u[-1], the last element), on every dimension of global arrays,
views, shared, local and constant arrays, for reads, stores, augmented
assignments and atomics' indices; a slice's negative start counts from the
end too.  Each case: make(rng) -> the host inputs (fresh random data),
launch(kernel, inputs) -> what the kernel is given and the launch shape,
ref(inputs) -> NumPy's results, with Python's negative-index semantics.

load(api, tag) gives a fresh copy of this module whose global `cuda` is the
API module (cujit.cuda, numba.cuda, Numba's simulator), as after a user's
`from numba import cuda`, and its kernels() builds the kernels with it;
raw_kernels(jit) the same bodies as jit.rawkernel
(cujit's own dialect, which takes an index as it is, as cupyx.jit and CUDA
C++ do).  tests/test_negidx_nogpu.py runs them on the host shim,
tests/gpu/test_negidx_gpu.py on the GPU."""
import numpy as np

try:
    cuda  # noqa: B018  (set by load() before the module's code runs)
except NameError:
    cuda = None

N = 200             # elements of the 1-d cases
TPB = 64            # threads per block (the shared case's array is TPB long)
TABLE = np.array([0.5, -1.25, 2.0, 3.5, -0.75])     # the constant array's values


def load(api, tag):
    """A fresh copy of this module whose kernels see `api` as the global
    `cuda` (each API its own copy)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("%s_%s" % (__name__, tag), __file__)
    mod = importlib.util.module_from_spec(spec)
    mod.cuda = api
    spec.loader.exec_module(mod)
    return mod


def kernels():
    """name -> the cuda.jit kernel of each case, built with the global cuda"""
    @cuda.jit
    def periodic(u, out):
        i = cuda.grid(1)
        n = u.shape[0]
        if i < n:
            out[i] = u[i - 1] - 2 * u[i] + u[i + 1 - n]

    @cuda.jit
    def store_before(u, out):
        i = cuda.grid(1)
        if i < u.shape[0]:
            out[i - 1] = u[i]          # out[-1] = u[0] at i == 0

    @cuda.jit
    def aug_from_end(u, out):
        i = cuda.grid(1)
        n = u.shape[0]
        if i < n:
            out[i - n] += u[i]         # i - n is negative: out[i] += u[i]

    @cuda.jit
    def shift2d(a, out):
        i, j = cuda.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            out[i, j] = a[i - 1, j - 1]

    @cuda.jit
    def tuple_index(a, out):
        i, j = cuda.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            ij = (i - 2, j - 1)
            out[i, j] = a[ij]

    @cuda.jit
    def shared_local_const(u, out):
        sh = cuda.shared.array(TPB, dtype=np.float64)
        loc = cuda.local.array(8, dtype=np.float64)
        tab = cuda.const.array_like(TABLE)
        i = cuda.grid(1)
        t = cuda.threadIdx.x
        # every thread writes the same values: no barrier needed
        for k in range(TPB):
            sh[k] = u[k]
        for k in range(8):
            loc[k] = 2 * u[k]
        if i < out.shape[0]:
            out[i] = sh[t - 1] + loc[t % 8 - 1] + tab[i % 5 - 2]

    @cuda.jit
    def atomic_from_end(keys, h):
        i = cuda.grid(1)
        if i < keys.shape[0]:
            k = keys[i]
            cuda.atomic.add(h, k - 1, 1)    # key 0 counts in h[-1]

    @cuda.jit
    def view_rows(a, out):
        i, j = cuda.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            row = a[i - 1]                 # the last row at i == 0
            out[i, j] = row[j - 1]

    @cuda.jit
    def slice_start(u, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            v = u[i - 3:]                  # u[-3:] at i == 0
            s = 0.0
            for k in range(v.shape[0]):
                s += v[k]
            out[i] = s

    return {"periodic": periodic, "store_before": store_before, "aug_from_end": aug_from_end,
            "shift2d": shift2d, "tuple_index": tuple_index,
            "shared_local_const": shared_local_const, "atomic_from_end": atomic_from_end,
            "view_rows": view_rows, "slice_start": slice_start}


def raw_kernels(jit):
    """the same bodies in cujit's own dialect (jit.rawkernel): no wrap"""
    @jit.rawkernel()
    def periodic(u, out):
        i = jit.grid(1)
        n = u.shape[0]
        if i < n:
            out[i] = u[i - 1] - 2 * u[i] + u[i + 1 - n]

    @jit.rawkernel()
    def store_before(u, out):
        i = jit.grid(1)
        if i < u.shape[0]:
            out[i - 1] = u[i]

    @jit.rawkernel()
    def shift2d(a, out):
        i, j = jit.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            out[i, j] = a[i - 1, j - 1]

    @jit.rawkernel()
    def shared_local(u, out):
        sh = jit.shared_memory(np.float64, TPB)
        loc = jit.local_memory(np.float64, 8)
        i = jit.grid(1)
        t = jit.threadIdx.x
        for k in range(TPB):
            sh[k] = u[k]
        for k in range(8):
            loc[k] = 2 * u[k]
        if i < out.shape[0]:
            out[i] = sh[t - 1] + loc[t % 8 - 1]

    @jit.rawkernel()
    def atomic_from_end(keys, h):
        i = jit.grid(1)
        if i < keys.shape[0]:
            jit.atomic_add(h, keys[i] - 1, 1)

    return {"periodic": periodic, "store_before": store_before, "shift2d": shift2d,
            "shared_local": shared_local, "atomic_from_end": atomic_from_end}


def _grid1(n):
    return (n + TPB - 1) // TPB, TPB


def _grid2(shape):
    return ((shape[0] + 7) // 8, (shape[1] + 7) // 8), (8, 8)


class Case:
    """inputs from make(rng); args(inputs): the kernel's arguments (fresh
    arrays, outputs included); outs: which arguments are results; ref(inputs):
    their NumPy values; grid, block from config(inputs)"""

    def __init__(self, make, args, outs, ref, config):
        self.make, self.args, self.outs, self.ref, self.config = make, args, outs, ref, config


def _u(rng):
    return (rng.standard_normal(N),)


def _a(rng):
    return (rng.standard_normal((13, 21)),)


def _roll2(a, si, sj):
    return np.roll(np.roll(a, si, axis=0), sj, axis=1)


def _shared_ref(u):
    i = np.arange(N)
    t = i % TPB
    return u[(t - 1) % TPB] + 2 * u[(t % 8 - 1) % 8] + TABLE[(i % 5 - 2) % 5]


def _hist(keys):
    h = np.zeros(7, np.int64)
    np.add.at(h, keys - 1, 1)          # NumPy counts -1 from the end too
    return h


CASES = {
    "periodic": Case(_u, lambda u: [u.copy(), np.zeros(N)], [1],
                     lambda u: [np.roll(u, 1) - 2 * u + np.roll(u, -1)],
                     lambda inp: _grid1(N)),
    "store_before": Case(_u, lambda u: [u.copy(), np.zeros(N)], [1],
                         lambda u: [np.roll(u, -1)], lambda inp: _grid1(N)),
    "aug_from_end": Case(lambda rng: (rng.standard_normal(N), rng.standard_normal(N)),
                         lambda u, o: [u.copy(), o.copy()], [1], lambda u, o: [o + u],
                         lambda inp: _grid1(N)),
    "shift2d": Case(_a, lambda a: [a.copy(), np.zeros_like(a)], [1],
                    lambda a: [_roll2(a, 1, 1)], lambda inp: _grid2(inp[0].shape)),
    "tuple_index": Case(_a, lambda a: [a.copy(), np.zeros_like(a)], [1],
                        lambda a: [_roll2(a, 2, 1)], lambda inp: _grid2(inp[0].shape)),
    "shared_local_const": Case(_u, lambda u: [u.copy(), np.zeros(N)], [1],
                               lambda u: [_shared_ref(u)], lambda inp: _grid1(N)),
    "atomic_from_end": Case(lambda rng: (rng.integers(0, 7, 500),),
                            lambda k: [k.copy(), np.zeros(7, np.int64)], [1],
                            lambda k: [_hist(k)], lambda inp: _grid1(500)),
    "view_rows": Case(_a, lambda a: [a.copy(), np.zeros_like(a)], [1],
                      lambda a: [_roll2(a, 1, 1)], lambda inp: _grid2(inp[0].shape)),
    "slice_start": Case(_u, lambda u: [u.copy(), np.zeros(N)], [1],
                        lambda u: [np.array([u[i - 3:].sum() for i in range(N)])],
                        lambda inp: _grid1(N)),
}
