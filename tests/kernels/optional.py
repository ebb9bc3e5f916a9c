"""Numba's Optional return values: a device function (or a cuda.jit
dispatcher called from a kernel) that returns a value on some paths and
None on others (bare return, return None, the end of the function) returns
Optional(T), a cj_opt<T> in C++.  The caller tests `r is None` /
`r is not None` (its flag) and uses r as a T elsewhere (cj_opt_get, which
raises TypeError on None: tests/test_optional_nogpu.py and
tests/gpu/test_optional_gpu.py).  Each reference runs the Python function
itself (py_func) element by element."""
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
SENTINEL = 99


@cuda.jit(device=True)
def _maybe_double(x):
    if x > 0:
        return x * 2
    elif x < -5:
        return None
    # x in [-5, 0]: falls off the end, None too


@cuda.jit
def optional_scalar(a, out):
    """r is None / r used as an int64 in the else branch."""
    i = cuda.grid(1)
    if i < a.size:
        r = _maybe_double(a[i])
        if r is None:
            out[i] = SENTINEL
        else:
            out[i] = r + 1


def _optional_scalar_ref(a, out):
    r = out.copy()
    for i, x in enumerate(a):
        v = _maybe_double.py_func(x)
        r[i] = SENTINEL if v is None else v + 1
    return {1: r}


@cuda.jit
def _paths(arg1, arg2, arg3):
    """A dispatcher (not device=True) called from a kernel: nested paths,
    bare returns, and a variable only some paths assign (var2)."""
    if arg1 > 0:
        var1 = arg2 + arg3
        if arg2 > 0:
            return var1
        return
    else:
        if arg3 > 0:
            var2 = arg3 * 3
            if arg2 > 5:
                return arg2 - var2
        elif arg2 < -5:
            return None
        if arg2 > 0:
            return var2     # noqa: F821 (unassigned on some paths: reads 0, as in Numba)
    # the end: None


@cuda.jit
def optional_paths(a, b, c, out):
    i = cuda.grid(1)
    if i < a.size:
        r = _paths(a[i], b[i], c[i])
        if r is not None:
            out[i] = r
        else:
            out[i] = SENTINEL


def _optional_paths_ref(a, b, c, out):
    r = out.copy()
    for i in range(a.size):
        try:
            v = _paths.py_func(a[i], b[i], c[i])
        except UnboundLocalError:
            v = 0       # var2 read where no path assigned it: zero in Numba and cujit
        r[i] = SENTINEL if v is None else v
    return {3: r}


@cuda.jit(device=True)
def _maybe_pair(x, y):
    if x < y:
        return (y - x, x * y)
    return None


@cuda.jit
def optional_tuple(a, b, out):
    """Optional of a tuple: unpacked where it is known not to be None."""
    i = cuda.grid(1)
    if i < a.size:
        p = _maybe_pair(a[i], b[i])
        if p is None:
            out[i, 0] = -1.0
            out[i, 1] = -1.0
        else:
            d, m = p
            out[i, 0] = d
            out[i, 1] = m


def _optional_tuple_ref(a, b, out):
    r = out.copy()
    for i in range(a.size):
        p = _maybe_pair.py_func(a[i], b[i])
        r[i] = (-1.0, -1.0) if p is None else p
    return {2: r}


@cuda.jit(device=True)
def _mixed(x, k):
    if k == 0:
        return 1            # an int on this path, a float on the other: Optional(float64)
    if k == 1:
        return x * 0.5
    return


@cuda.jit(device=True)
def _relay(x, k):
    """returns another function's Optional, or None itself"""
    if x > 100.0:
        return None
    return _mixed(x, k)


@cuda.jit
def optional_promoted(x, k, out):
    i = cuda.grid(1)
    if i < x.size:
        r = _relay(x[i], k[i])
        out[i] = -1.0 if r is None else r * 3.0


def _optional_promoted_ref(x, k, out):
    r = out.copy()
    for i in range(x.size):
        v = _relay_py(x[i], k[i])
        r[i] = -1.0 if v is None else v * 3.0
    return {2: r}


def _relay_py(x, k):
    if x > 100.0:
        return None
    return _mixed.py_func(x, k)


def _promoted_args():
    x = rand(N, np.float64, -50, 150)
    k = rand(N, np.int64, 0, 2)
    return x, k, poison(N, np.float64)


@cuda.jit(device=True)
def _find(a, t):
    """None until found: a variable that is None on one path (Optional)"""
    idx = None
    for i in range(a.size):
        if a[i] == t:
            idx = i
            break
    return idx


@cuda.jit
def optional_variable(a, targets, out):
    i = cuda.grid(1)
    if i < targets.size:
        k = _find(a, targets[i])
        best = None
        if k is not None:
            best = a[k] * 10 + k
        out[i] = -1 if best is None else best


def _optional_variable_ref(a, targets, out):
    r = out.copy()
    for i, t in enumerate(targets):
        k = _find.py_func(a, t)
        r[i] = -1 if k is None else a[k] * 10 + k
    return {2: r}


def _variable_args():
    return rand(16, np.int64, 0, 20), rand(N, np.int64, 0, 25), poison(N, np.int64)


def _declared_body(x):
    return _maybe_double(x)


# a declared int32 result of an Optional callee: the value converted (Numba's
# cast); a None would raise TypeError (tests/test_optional_nogpu.py)
_declared = cuda.jit("int32(int64)", device=True)(_declared_body)


@cuda.jit
def optional_declared(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = _declared(a[i]) + 1


def _optional_declared_ref(a, out):
    return {1: np.array([np.int32(_maybe_double.py_func(x)) + 1 for x in a], np.int64)}


def _declared_args():
    return rand(N, np.int64, 1, 1 << 29), poison(N, np.int64)


CASES = [
    (optional_variable, _variable_args(), [("best = {};", True)]),
    (optional_scalar, (rand(N, np.int64), poison(N, np.int64)),
     [("cj_opt<long long>", True), ("!r.ok", True), ("cj_opt_get(r,", True)]),
    (optional_paths, (rand(N, np.int64), rand(N, np.int64), rand(N, np.int64),
                      poison(N, np.int64))),
    (optional_tuple, (rand(N, np.int64), rand(N, np.int64), poison((N, 2), np.float64))),
    (optional_promoted, _promoted_args(), [("cj_opt<double>", True)]),
    (optional_declared, _declared_args(), [("return cj_opt_get(cj_dev__maybe_double", True)]),
]

RUN = [
    (optional_scalar, 1, N, lambda: (rand(N, np.int64), poison(N, np.int64)),
     _optional_scalar_ref),
    (optional_paths, 1, N, lambda: (rand(N, np.int64), rand(N, np.int64), rand(N, np.int64),
                                    poison(N, np.int64)), _optional_paths_ref),
    (optional_tuple, 1, N, lambda: (rand(N, np.int64), rand(N, np.int64),
                                    poison((N, 2), np.float64)), _optional_tuple_ref),
    (optional_promoted, 1, N, _promoted_args, _optional_promoted_ref),
    (optional_variable, 1, N, _variable_args, _optional_variable_ref),
    (optional_declared, 1, N, _declared_args, _optional_declared_ref),
]
