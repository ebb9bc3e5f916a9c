"""Reductions: sum, prod, min, max, any, all, mean (over @reduce kernels of
kernels/reductions.py, with NumPy's result dtypes) and argmin / argmax (raw
kernels, a thread per row or blocks per row)."""
import builtins as _b
import warnings

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from cujit import _cujit as _C

from ._load import _compile_together, _ek, _grid, _kmod, _sm_count, _use_rows
from ._operands import (
    _array, _astype, _BOOL, _check_dtype, _F16, _F32, _F64, _I64, _to_out, _U64)
from .shape import _as3d, reshape


def _sum_dtype(dt):
    """NumPy's sum / prod / cumsum result: small integers widen to the default."""
    if dt.kind == "b" or (dt.kind == "i" and dt.itemsize < 8):
        return _I64
    if dt.kind == "u" and dt.itemsize < 8:
        return _U64
    return dt


def _axes(axis, ndim):
    return None if axis is None else normalize_axis_tuple(axis, ndim)


def _reduce(kernel, x, axes, keepdims, acc):
    """A @reduce kernel over axes, elements read as acc."""
    if acc == x.dtype:
        return kernel(x, axis=axes, keepdims=bool(keepdims))
    if x.dtype == _F16:
        m = getattr(_kmod("reductions"), "to_" + acc.name)
        return kernel(x, axis=axes, keepdims=bool(keepdims), map=m)
    return kernel(x, axis=axes, keepdims=bool(keepdims), dtype=acc)


_extremes = {}


def _extreme(name, dt):
    k = _extremes.get((name, dt))
    if k is None:
        m = _kmod("reductions")
        k = _extremes[(name, dt)] = m.extreme(getattr(m, name), dt)
    return k


def _reduced_count(x, axes):
    n = 1
    for d in (range(x.ndim) if axes is None else axes):
        n *= x.shape[d]
    return n


def _rk(name):
    return getattr(_kmod("reductions"), name)


def _sum_like(fname, kernel, a, axis, dtype, out, keepdims):
    x = _array(a)
    rdt = np.dtype(dtype) if dtype is not None else _sum_dtype(x.dtype)
    _check_dtype(rdt, fname)
    acc = _F32 if rdt == _F16 else rdt
    if x.dtype.kind == "c" and acc.kind != "c":
        raise TypeError("cujit.%s(): complex input with a real dtype is not supported" % fname)
    r = _reduce(_rk(kernel), x, _axes(axis, x.ndim), keepdims, acc)
    if r.dtype != rdt:
        r = _astype(r, rdt)
    return _to_out(r, out)


def sum(a, axis=None, dtype=None, out=None, keepdims=False):
    """Sum over axes (None: all); NumPy's dtypes (small integers in int64 /
    uint64, float16 accumulated in float32)."""
    return _sum_like("sum", "add", a, axis, dtype, out, keepdims)


def prod(a, axis=None, dtype=None, out=None, keepdims=False):
    """Product over axes; NumPy's dtypes as sum."""
    return _sum_like("prod", "multiply", a, axis, dtype, out, keepdims)


def _minmax(fname, kernel, a, axis, out, keepdims):
    x = _array(a)
    axes = _axes(axis, x.ndim)
    if _reduced_count(x, axes) == 0 and (axes is None or axes):
        raise ValueError("zero-size array to reduction operation %s which has no identity"
                         % kernel)
    r = _reduce(_extreme(kernel, x.dtype), x, axes, keepdims, x.dtype)
    return _to_out(r, out)


def min(a, axis=None, out=None, keepdims=False):
    """Minimum over axes (a NaN wins); empty raises ValueError as NumPy."""
    return _minmax("min", "minimum", a, axis, out, keepdims)


def max(a, axis=None, out=None, keepdims=False):
    """Maximum over axes (a NaN wins); empty raises ValueError as NumPy."""
    return _minmax("max", "maximum", a, axis, out, keepdims)


def _logical(kernel, a, axis, out, keepdims):
    x = _array(a)
    axes = _axes(axis, x.ndim)
    if x.dtype.kind == "c":
        x = _ek("nonzero")(x)           # a complex map= does not compile yet
    if x.dtype == _BOOL:
        r = _rk(kernel)(x, axis=axes, keepdims=bool(keepdims))
    else:
        r = _rk(kernel)(x, axis=axes, keepdims=bool(keepdims), map=_kmod("reductions").truth)
    return _to_out(r, out)


def any(a, axis=None, out=None, keepdims=False):
    """Whether any element over axes is non-zero (NaN counts); bool."""
    return _logical("logical_or", a, axis, out, keepdims)


def all(a, axis=None, out=None, keepdims=False):
    """Whether every element over axes is non-zero (NaN counts); bool."""
    return _logical("logical_and", a, axis, out, keepdims)


def mean(a, axis=None, dtype=None, out=None, keepdims=False):
    """Arithmetic mean: integers in float64, float16 through float32."""
    x = _array(a)
    axes = _axes(axis, x.ndim)
    if dtype is not None:
        rdt = np.dtype(dtype)
    elif x.dtype.kind in "biu":
        rdt = _F64
    else:
        rdt = x.dtype
    _check_dtype(rdt, "mean")
    acc = _F32 if rdt == _F16 else rdt
    if x.dtype.kind == "c" and acc.kind != "c":
        raise TypeError("cujit.mean(): complex input with a real dtype is not supported")
    n = _reduced_count(x, axes)
    s = _reduce(_rk("add"), x, axes, keepdims, acc)
    if n == 0:
        warnings.warn("Mean of empty slice.", RuntimeWarning, stacklevel=2)
    r = _ek("true_divide")(s, n)
    if r.dtype != rdt:
        r = _astype(r, rdt)
    return _to_out(r, out)


def _argext(fname, mx, a, axis, out, keepdims):
    x = _array(a)
    if axis is None:
        n = x.size
    else:
        n = x.shape[normalize_axis_index(axis, x.ndim)]
    if n == 0:
        raise ValueError("attempt to get %s of an empty sequence" % fname)
    x3, rest = _as3d(x, axis)
    if keepdims:
        shape = (1,) * x.ndim if axis is None else \
            tuple(1 if d == normalize_axis_index(axis, x.ndim) else s
                  for d, s in enumerate(x.shape))
    else:
        shape = rest
    res = _C.empty(shape, _I64)
    if x3 is not None and res.size:
        rows = x3.shape[0] * x3.shape[2]
        r1 = reshape(res, rows)
        m = _kmod("reductions")
        arg_rows, arg_blocks, arg_final, arg_final_blocks = m.arg_kernels_c \
            if x.dtype.kind == "c" else m.arg_kernels
        if _use_rows(rows, n):
            arg_rows[_grid(rows), 256](x3, r1, mx)
        else:
            # every block resident at once, no second partial wave (on an H100
            # six blocks of the 4-byte kernels fit per SM, four of the wider)
            per_sm = 6 if x.dtype.itemsize <= 4 else 4
            splits = _b.max(1, _b.min((n + 2047) // 2048,
                                      (per_sm * _sm_count() + rows - 1) // rows))
            part = _C.empty((rows, splits), _I64)
            blocks = splits >= 32 and rows < 4096
            final = arg_final_blocks if blocks else arg_final
            _compile_together((arg_blocks, (x3, part, mx)), (final, (x3, part, r1, mx)))
            arg_blocks[(splits, _b.min(rows, 65535)), 256](x3, part, mx)
            if blocks:
                arg_final_blocks[_b.min(rows, 65535), 256](x3, part, r1, mx)
            else:
                arg_final[_grid(rows), 256](x3, part, r1, mx)
    return _to_out(res, out)


def argmin(a, axis=None, out=None, *, keepdims=False):
    """Index of the first minimum (a NaN wins) along axis (None: flattened), int64."""
    return _argext("argmin", 0, a, axis, out, keepdims)


def argmax(a, axis=None, out=None, *, keepdims=False):
    """Index of the first maximum (a NaN wins) along axis (None: flattened), int64."""
    return _argext("argmax", 1, a, axis, out, keepdims)
