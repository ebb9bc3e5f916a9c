"""`nonlocal` in functions defined in kernels (frontend/inner.c): the
variable is passed by reference (C++ T &), so the def's assignments rebind
the kernel's variable, as in Python.  Numba's test_analysis closures (a
def setting x = 0 or x = t before `if x == 0`), a running sum over a loop,
two variables at once, augmented assignment, and a def called from a
branch.  The references run the kernels' own Python (py_func) on the host
where they use no thread index."""
import numpy as np

from cujit import cuda

from . import _common
from ._common import poison

_own = np.random.default_rng()


def rand(*args, **kwargs):
    """_common.rand from a stream of this module's own: its draws leave the
    data of the other modules' entries as they were (a float32 reduction of
    npfuncs compares at rtol 1e-12, which some data round past)"""
    saved, _common._rng = _common._rng, _own
    try:
        return _common.rand(*args, **kwargs)
    finally:
        _common._rng = saved

N = 64


@cuda.jit
def set_by_closure(res):
    x = 1000

    def closure():
        nonlocal x
        x = 0

    closure()
    if x == 0:
        res[0] = 1.0
    else:
        res[0] = 0.0


@cuda.jit
def set_from_argument(n, res):
    x = 1000

    def closure(t):
        nonlocal x
        x = t

    closure(n)
    if x == 0:
        res[0] = 1.0
    else:
        res[0] = 0.0
    res[1] = x


@cuda.jit
def running_sum(a, out):
    """s and count rebound in a loop; the def also reads a kernel variable (scale)"""
    s = 0.0
    count = 0
    scale = a.size * 0.5

    def add(v):
        nonlocal s, count
        s += v * scale
        count = count + 1

    for i in range(a.size):
        if a[i] > 0:
            add(a[i])
    out[0] = s
    out[1] = count


@cuda.jit
def per_thread(a, out):
    i = cuda.grid(1)
    if i < a.size:
        best = a[i]

        def keep_max(v):
            nonlocal best
            if v > best:
                best = v

        if i + 1 < a.size:
            keep_max(a[i + 1])
        if i > 0:
            keep_max(a[i - 1])
        out[i] = best


def _py_ref(kernel, outs):
    def ref(*args):
        args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        kernel.py_func(*args)
        return {k: args[k] for k in outs}
    return ref


def _per_thread_ref(a, out):
    r = a.copy()
    r[1:] = np.maximum(r[1:], a[:-1])
    r[:-1] = np.maximum(r[:-1], a[1:])
    return {1: r}


CASES = [
    (set_by_closure, (poison(1, np.float64),), [("long long &x", True)]),
    (set_from_argument, (np.int64(3), poison(2, np.float64))),
    (running_sum, (rand(N, np.float64), poison(2, np.float64))),
    (per_thread, (rand(N, np.float32), poison(N, np.float32))),
]

RUN = [
    (set_by_closure, 1, 1, lambda: (poison(1, np.float64),), _py_ref(set_by_closure, [0])),
    (set_from_argument, 1, 1, lambda: (int(rand(1, np.int64, 0, 3)[0]), poison(2, np.float64)),
     _py_ref(set_from_argument, [1])),
    (running_sum, 1, 1, lambda: (rand(N, np.float64), poison(2, np.float64)),
     _py_ref(running_sum, [1])),
    (per_thread, 1, N, lambda: (rand(N, np.float32), poison(N, np.float32)), _per_thread_ref),
]
