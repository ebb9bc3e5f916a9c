"""Kernels in Numba's spelling that call functions overloaded with
cujit.extending.overload (Numba's @overload for device code): the
implementation chosen by the types of the call's arguments (floats and
integers get different ones), a 'cuda' overload preferred to a 'generic' one,
a declining overload passed over, defaults and keywords, a literal argument
(prefer_literal), an implementation calling another overloaded function, one
working on a whole array, a method of 2-d arrays (overload_method), an
attribute of arrays (overload_attribute), an implementation returning a
view of its array argument (and a device function returning views of two
layouts), register_jitable, and a numba-style dispatcher
(an object with py_func, as numba.njit makes) called as a device function.
Each has a NumPy reference."""
import numpy as np

from cujit import cuda
from cujit.cuda import types
from cujit.extending import overload, overload_attribute, overload_method, register_jitable

from ._common import poison, rand


# ---- the overloaded functions (their bodies never run) ----

def scale(x):
    raise NotImplementedError


def pick(x):
    raise NotImplementedError


def shift(x, by=2.5, twice=False):
    raise NotImplementedError


def power(x, n):
    raise NotImplementedError


def outer(x):
    raise NotImplementedError


def add_row(a, i, v):
    raise NotImplementedError


@overload(scale)
def ol_scale_declines_floats(x):
    if isinstance(x, types.Integer):
        def impl(x):
            return x * 3
        return impl
    return None         # floats: the next overload


@overload(scale)
def ol_scale_floats(x):
    if isinstance(x, types.Float):
        def impl(x):
            return x * 0.5
        return impl


@overload(pick, target="generic")
def ol_pick_generic(x):
    def impl(x):
        return x + 100
    return impl


@overload(pick, target="cuda")
def ol_pick_cuda(x):
    def impl(x):
        return x + 7
    return impl


@overload(shift)
def ol_shift(x, by=2.5, twice=False):
    def impl(x, by=2.5, twice=False):
        if twice:
            return x + 2 * by
        return x + by
    return impl


@overload(power, prefer_literal=True)
def ol_power(x, n):
    if isinstance(n, types.IntegerLiteral):
        k = n.literal_value         # known while the kernel compiles

        def impl(x, n):
            r = x
            for _ in range(k - 1):
                r = r * x
            return r
        return impl


@overload(outer, target="cuda")
def ol_outer(x):
    def impl(x):
        return scale(x) + pick(x)
    return impl


@overload(add_row)
def ol_add_row(a, i, v):
    if isinstance(a, types.Array) and a.ndim == 2:
        def impl(a, i, v):
            for j in range(a.shape[1]):
                a[i, j] += v
        return impl


def column(a, j):
    raise NotImplementedError


@overload(column, inline="always")
def ol_column(a, j):
    def impl(a, j):
        return a[:, j]          # a view: writes through it reach a
    return impl


@cuda.jit(device=True)
def row_or_odd(a, i, whole):
    if whole:
        return a[i]             # C layout
    return a[i, 1::2]           # any strides: the return type unifies to it


@overload_method(types.Array, "clipped_sum")
def ol_clipped_sum(arr, lo, hi=1.0):
    if arr.ndim == 2:
        def impl(arr, lo, hi=1.0):
            s = 0.0
            for i in range(arr.shape[0]):
                for j in range(arr.shape[1]):
                    s += min(max(arr[i, j], lo), hi)
            return s
        return impl


@overload_attribute(types.Array, "middle")
def ol_middle(arr):
    if arr.ndim == 1:
        return lambda arr: arr[arr.shape[0] // 2]


@register_jitable
def hypot2(a, b):
    return a * a + b * b


def _fake_njit(f):
    """What numba.njit returns, as cujit sees it: an object of a type from
    numba's package with the Python function as py_func."""
    cls = type("CPUDispatcher", (), {"__module__": "numba.core.registry"})
    d = cls()
    d.py_func = f
    return d


def _halve(x):
    return x / 2


halve = _fake_njit(_halve)


# ---- kernels ----

@cuda.jit
def by_type(xf, xi, outf, outi):
    i = cuda.grid(1)
    if i < xf.size:
        outf[i] = scale(xf[i])
        outi[i] = scale(xi[i])


@cuda.jit
def target_pick(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = pick(x[i])


@cuda.jit
def keywords(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = shift(x[i])
        out[i, 1] = shift(x[i], 1.0)
        out[i, 2] = shift(x[i], twice=True)
        out[i, 3] = shift(x[i], by=x[i], twice=True)


@cuda.jit
def literal_power(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = power(x[i], 3)


@cuda.jit
def nested(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = outer(x[i])


@cuda.jit
def rows(a, v):
    i = cuda.grid(1)
    if i < a.shape[0]:
        add_row(a, i, v[i])


@cuda.jit
def jitable_and_njit(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = hypot2(x[i], y[i]) + halve(x[i])


@cuda.jit
def method_sums(m, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i, 0] = m.clipped_sum(-0.5)
        out[i, 1] = m.clipped_sum(i * 0.1, hi=i * 0.3 + 1.0)


def _method_ref(m, out):
    i = np.arange(out.shape[0])[:, None, None]
    return {1: np.stack([np.clip(m, -0.5, 1.0).sum() + 0 * i[:, 0, 0],
                         np.clip(m[None], i * 0.1, i * 0.3 + 1.0).sum(axis=(1, 2))], axis=1)}


@cuda.jit
def attribute_read(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] - x.middle


# ---- references ----

@cuda.jit
def view_returns(a, b, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        r = row_or_odd(a, i, i % 2 == 0)
        out[i] = r[0] + r[r.shape[0] - 1]
    if i < b.shape[1]:
        c = column(b, i)
        c[1] += 1.5


def _view_returns_ref(a, b, out):
    i = np.arange(a.shape[0])
    odd = a[:, 1::2]
    expect = np.where(i % 2 == 0, a[:, 0] + a[:, -1], odd[:, 0] + odd[:, -1])
    b = b.copy()
    b[1] += 1.5
    return {1: b, 2: expect}


def _by_type_args():
    return (rand(100, np.float32), rand(100, np.int32), poison(100, np.float32),
            poison(100, np.int32))


def _keywords_ref(x, out):
    return {1: np.stack([x + 2.5, x + 1.0, x + 5.0, x + 2 * x], axis=1)}


def _rows_args():
    return rand((40, 7), np.float64), rand(40, np.float64)


CASES = [
    # Numba's typing: float32 * 0.5 is float64, int32 * 3 int64
    (by_type, _by_type_args(), [("(double)x * 0.5", True), ("(long long)x * 3LL", True)]),
    (target_pick, (rand(8, np.int64), poison(8, np.int64)), [("+ 7", True), ("+ 100", False)]),
    (literal_power, (rand(8, np.float64), poison(8, np.float64)), [("for (", True)]),
    (nested, (rand(8, np.int32), poison(8, np.int32)), [("* 3", True), ("+ 7", True)]),
]

RUN = [
    (by_type, 2, 64, _by_type_args, lambda xf, xi, of, oi: {2: xf * np.float32(0.5),
                                                            3: xi * 3}),
    (target_pick, 2, 32, lambda: (rand(50, np.int64), poison(50, np.int64)),
     lambda x, out: {1: x + 7}),
    (keywords, 2, 32, lambda: (rand(50, np.float64), poison((50, 4), np.float64)),
     _keywords_ref),
    (literal_power, 2, 32, lambda: (rand(50, np.float64, -3, 3), poison(50, np.float64)),
     lambda x, out: {1: x * x * x}, {"rtol": 1e-12, "atol": 1e-12}),
    (nested, 2, 32, lambda: (rand(50, np.int32), poison(50, np.int32)),
     lambda x, out: {1: x * 3 + x + 7}),
    (rows, 2, 32, _rows_args, lambda a, v: {0: a + v[:, None]}),
    (method_sums, 1, 32, lambda: (rand((6, 5), np.float64, -2, 2), poison((20, 2), np.float64)),
     _method_ref, {"rtol": 1e-12, "atol": 1e-12}),
    (view_returns, 2, 32, lambda: (rand((50, 7), np.float64), rand((3, 40), np.float64),
                                   poison(50, np.float64)),
     _view_returns_ref, {"rtol": 1e-12, "atol": 1e-12}),
    (attribute_read, 2, 32, lambda: (rand(51, np.float32), poison(51, np.float32)),
     lambda x, out: {1: x - x[25]}),
    (jitable_and_njit, 2, 32, lambda: (rand(50, np.float64), rand(50, np.float64),
                                       poison(50, np.float64)),
     lambda x, y, out: {2: x * x + y * y + x / 2}, {"rtol": 1e-12, "atol": 1e-12}),
]
