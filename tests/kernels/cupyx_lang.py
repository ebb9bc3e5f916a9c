"""cupyx.jit's language features: jit.range(..., unroll=), if on a
compile-time constant (the branch not taken is never compiled), return None,
device functions made by factories and closures, calls of captured dtypes and
types (dtype.type(x), numpy.dtype(t).type(numpy.inf), cupy.float32(x)) and
the atomics on every dtype CUDA has them for."""
import numpy as np

from cujit import jit

from ._common import poison, rand

N_TAPS = 8
DEBUG = False


@jit.rawkernel()
def unrolled_sums(x, out, n):
    """Four loops: unroll=True, unroll=4, unroll=False and no pragma."""
    i = jit.grid(1)
    if i < out.size:
        s = 0.0
        for j in jit.range(N_TAPS, unroll=True):
            s += x[i * N_TAPS + j]
        for j in jit.range(0, n, unroll=4):
            s += 2 * x[i * N_TAPS + j]
        for j in jit.range(n - 1, -1, -2, unroll=False):
            s += 3 * x[i * N_TAPS + j]
        for j in jit.range(1, n, 3):
            s += 4 * x[i * N_TAPS + j]
        out[i] = s


def _unrolled_ref(x, out, n):
    t = x.reshape(-1, N_TAPS).astype(np.float64)
    s = t.sum(1) + 2 * t[:, :n].sum(1) + 3 * t[:, n - 1::-2].sum(1) + 4 * t[:, 1:n:3].sum(1)
    return {1: s}


@jit.rawkernel()
def constant_branches(x, out):
    """The branches not taken name things that do not exist: never read."""
    i = jit.grid(1)
    if i < x.size:
        if DEBUG:
            print("debug", no_such_name)       # noqa: F821
        if N_TAPS > 4 and not DEBUG:
            v = x[i] * 2
        else:
            v = no_such_function(x[i])         # noqa: F821
        if N_TAPS < 2:
            w = 1
        elif N_TAPS == 8:
            w = 2
        else:
            w = x[i].no_such_attribute
        out[i] = v + w


@jit.rawkernel(device=True)
def _clamp_store(out, i, v):
    if v < 0:
        out[i] = 0
        return None
    out[i] = v
    return


@jit.rawkernel()
def return_none(x, out):
    i = jit.grid(1)
    if i >= x.size:
        return None
    _clamp_store(out, i, x[i])
    return None


CASES = [
    (unrolled_sums, (rand(64 * N_TAPS, np.float32), poison(64, np.float32), np.int32(5)),
     [("#pragma unroll\n", True), ("#pragma unroll 4\n", True),
      ("#pragma unroll 1\n", True)]),
    (constant_branches, (rand(32, np.float32), poison(32, np.float32)),
     [("no_such", False), ("print", False), ("w = 2", True)]),
    (return_none, (rand(32, np.float32), poison(32, np.float32)), [("return;", True)]),
]

RUN = [
    (unrolled_sums, 2, 32,
     lambda: (rand(64 * N_TAPS, np.float32), poison(64, np.float32), np.int32(7)),
     _unrolled_ref, {"rtol": 1e-5, "atol": 1e-4}),
    (constant_branches, 1, 32, lambda: (rand(32, np.float32), poison(32, np.float32)),
     lambda x, out: {1: x * 2 + 2}),
    (return_none, 1, 64, lambda: (rand(40, np.float32), rand(64, np.float32)),
     lambda x, out: {1: np.concatenate([np.maximum(x, 0), out[40:]])}),
]
