"""NumPy's protocols: __array_ufunc__ (numpy.add(a, b), ndarray + a,
numpy.add.reduce, numpy.add.accumulate) and __array_function__
(numpy.sum(a), numpy.where, ...) on DeviceArrays, run by the stdlib's
functions."""
import builtins as _b

import numpy as np

from cujit._stdlib_table import OPERATIONS

from . import elementwise
from ._operands import _array, _BOOL, DeviceArray, _takes
from .copies import astype, copy
from .elementwise import clip, where
from .reductions import all, any, argmax, argmin, max, mean, min, prod, sum
from .scans import cumsum
from .shape import ravel, reshape, squeeze, transpose


# ---- NumPy's protocols: __array_ufunc__ and __array_function__ ----
#
# numpy.sqrt(a), numpy.add(a, b, out=c), numpy.add.reduce(a), ndarray + a and
# numpy.sum(a) on DeviceArrays run as the functions above.  Operands are what
# those take (host arrays and lists are copied to the device, as for
# DeviceArray's operators: ndarray + DeviceArray is numpy.add); an out= must
# be a DeviceArray.  What has no device version raises TypeError saying so.

# numpy.<ufunc> -> the elementwise operation of the table's ufunc column
_UFUNCS = {getattr(np, op.ufunc): getattr(elementwise, op.name)
           for op in OPERATIONS if op.ufunc is not None}
# ufunc.reduce -> the reduction (and whether it takes dtype=)
_REDUCTIONS = {np.add: (sum, True), np.multiply: (prod, True), np.minimum: (min, False),
               np.maximum: (max, False), np.logical_and: (all, False),
               np.logical_or: (any, False)}
_NV = np._NoValue                       # NumPy's "argument not given"


def _host_first(what):
    return TypeError("%s is not supported for a cujit.DeviceArray; copy to the host with "
                     "cujit.asnumpy(a) first" % what)


def _foreign(objs):
    """Some operand is of a type neither cujit nor NumPy handles (another
    library's array may take the operation: NEP 13 / 18's NotImplemented)."""
    return _b.any(o is not None and type(o) is not DeviceArray and not _takes(o) for o in objs)


def _no_effect(fname, kwargs):
    """Ufunc keywords at values that change nothing here; TypeError for others."""
    for k, v in kwargs.items():
        if (k == "where" and v is True) or (k == "subok" and isinstance(v, bool)) \
                or (k in ("dtype", "signature", "sig") and v is None) \
                or (k == "casting" and isinstance(v, str) and v == "same_kind") \
                or (k == "order" and isinstance(v, str) and v == "K"):
            continue
        shown = "..." if k == "where" else str(np.dtype(v)) if k == "dtype" else repr(v)
        raise _host_first("%s(..., %s=%s)" % (fname, k, shown))


def _one_out(fname, out):
    """The DeviceArray of a ufunc's out= (NumPy passes a tuple), or None."""
    if out is None or _b.all(o is None for o in out):
        return None
    if len(out) != 1:
        raise _host_first("%s(..., out=) with several outputs" % fname)
    o = out[0]
    if type(o) is not DeviceArray:
        raise TypeError("%s(..., out=...): out= must be a cujit.DeviceArray, not %s (results "
                        "stay on the device; copy them to the host with cujit.asnumpy())"
                        % (fname, type(o).__name__))
    return o


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """DeviceArray.__array_ufunc__: a NumPy ufunc call (also ndarray's
    operators with a DeviceArray operand) run by cujit's function."""
    fname = "numpy." + ufunc.__name__ + ("" if method == "__call__" else "." + method)
    if _foreign(inputs + tuple(kwargs.get("out") or ())):
        return NotImplemented
    if method == "__call__":
        f = _UFUNCS.get(ufunc)
        if f is None:
            raise TypeError("cujit.DeviceArray does not support numpy.ufunc '%s'; copy to the "
                            "host with cujit.asnumpy(a) first" % ufunc.__name__)
        out = _one_out(fname, kwargs.pop("out", None))
        _no_effect(fname, kwargs)
        return f(*inputs) if out is None else f(*inputs, out=out)
    if method == "reduce" and ufunc in _REDUCTIONS:
        return _ufunc_reduce(ufunc, fname, inputs[0], **kwargs)
    if method == "accumulate" and ufunc is np.add:
        return _ufunc_accumulate(fname, inputs[0], **kwargs)
    raise _host_first(fname)


def _stand_in(x):
    """A host array NumPy types the same way as DeviceArray x (its ndim and
    dtype, one element)."""
    return np.zeros((1,) * x.ndim, x.dtype)


def _ufunc_reduce(ufunc, fname, a, axis=0, dtype=None, out=None, keepdims=False,
                  initial=_NV, where=True):
    """ufunc.reduce as sum, prod, min, max, all or any (NumPy's default axis
    0, its result dtype and errors from a one-element stand-in)."""
    if initial is not _NV:
        raise _host_first("%s(..., initial=...)" % fname)
    if where is not True:
        raise _host_first("%s(..., where=...)" % fname)
    f, takes_dtype = _REDUCTIONS[ufunc]
    x = _array(a)
    o = _one_out(fname, out)
    with np.errstate(all="ignore"):
        rdt = np.asarray(ufunc.reduce(_stand_in(x), axis=axis, dtype=dtype)).dtype
    if takes_dtype:
        return f(x, axis=axis, dtype=rdt, out=o, keepdims=keepdims)
    if dtype is not None and rdt != (_BOOL if f in (all, any) else x.dtype):
        raise _host_first("%s(..., dtype=%s)" % (fname, np.dtype(dtype)))
    return f(x, axis=axis, out=o, keepdims=keepdims)


def _ufunc_accumulate(fname, a, axis=0, dtype=None, out=None):
    """numpy.add.accumulate as cumsum (NumPy's dtype and errors checked on a
    one-element stand-in)."""
    x = _array(a)
    o = _one_out(fname, out)
    with np.errstate(all="ignore"):
        rdt = np.add.accumulate(_stand_in(x), axis=axis, dtype=dtype).dtype
    return cumsum(x, axis=axis, dtype=rdt, out=o)


def _given(v, default):
    return default if v is _NV else v


def _refuse(fname, **args):
    """TypeError for NumPy arguments the device versions do not take."""
    for name, bad in args.items():
        if bad:
            raise _host_first("numpy.%s(..., %s=...)" % (fname, name))


def _masked(where):
    """A where= argument that selects elements (given, and not True)."""
    return where is not _NV and where is not True


def _np_sum_like(f, fname):
    def impl(a, axis=None, dtype=None, out=None, keepdims=_NV, initial=_NV, where=_NV):
        _refuse(fname, initial=initial is not _NV, where=_masked(where))
        return f(a, axis, dtype, out, _given(keepdims, False))
    return impl


def _np_extreme(f, fname):
    def impl(a, axis=None, out=None, keepdims=_NV, initial=_NV, where=_NV):
        _refuse(fname, initial=initial is not _NV, where=_masked(where))
        return f(a, axis, out, _given(keepdims, False))
    return impl


def _np_logical(f, fname):
    def impl(a, axis=None, out=None, keepdims=_NV, *, where=_NV):
        _refuse(fname, where=_masked(where))
        return f(a, axis, out, _given(keepdims, False))
    return impl


def _np_arg(f):
    def impl(a, axis=None, out=None, *, keepdims=_NV):
        return f(a, axis, out, keepdims=_given(keepdims, False))
    return impl


def _np_mean(a, axis=None, dtype=None, out=None, keepdims=_NV, *, where=_NV):
    _refuse("mean", where=_masked(where))
    return mean(a, axis, dtype, out, _given(keepdims, False))


def _np_where(condition, x=_NV, y=_NV):
    if x is _NV or y is _NV:
        raise _host_first("numpy.where(condition) without x and y")
    return where(condition, x, y)


def _np_clip(a, a_min=_NV, a_max=_NV, out=None, *, min=_NV, max=_NV, **kwargs):
    _refuse("clip", **{k: True for k in kwargs})
    lo = a_min if a_min is not _NV else _given(min, None)
    hi = a_max if a_max is not _NV else _given(max, None)
    return clip(a, lo, hi, out)


def _np_reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    _refuse("reshape", copy=copy is not None)
    return reshape(a, shape if shape is not None else newshape, order=order)


def _np_transpose(a, axes=None):
    return transpose(a, axes)


def _np_copy(a, order="K", subok=False):
    return copy(a, order)


def _np_astype(x, dtype, /, *, copy=True, device=None):
    _refuse("astype", device=device is not None and device != "cpu")
    return astype(x, dtype, copy=copy)


_FUNCTIONS = {
    np.sum: _np_sum_like(sum, "sum"), np.prod: _np_sum_like(prod, "prod"),
    np.min: _np_extreme(min, "min"), np.max: _np_extreme(max, "max"),
    np.amin: _np_extreme(min, "amin"), np.amax: _np_extreme(max, "amax"),
    np.any: _np_logical(any, "any"), np.all: _np_logical(all, "all"),
    np.argmin: _np_arg(argmin), np.argmax: _np_arg(argmax), np.mean: _np_mean,
    np.cumsum: cumsum, np.where: _np_where, np.clip: _np_clip, np.reshape: _np_reshape,
    np.ravel: ravel, np.transpose: _np_transpose, np.squeeze: squeeze, np.copy: _np_copy,
}
if hasattr(np, "astype"):                               # NumPy 2.1
    _FUNCTIONS[np.astype] = _np_astype


def _array_function(self, func, types, args, kwargs):
    """DeviceArray.__array_function__: numpy.sum, mean, where, clip, reshape,
    copy, ... run as cujit's functions; any other NumPy function runs NumPy's
    own code, which works on what DeviceArray offers (numpy.shape, ndim) and
    otherwise refuses the implicit copy to the host (__array__)."""
    if not _b.all(issubclass(t, (DeviceArray, np.ndarray)) for t in types):
        return NotImplemented
    f = _FUNCTIONS.get(func)
    if f is not None:
        return f(*args, **kwargs)
    own = getattr(func, "_implementation", None)
    return NotImplemented if own is None else own(*args, **kwargs)
