"""Shapes and views: reshape (a view where NumPy's rule allows, else a copy),
ravel, flatten, transpose, squeeze, .real / .imag and ascontiguousarray."""
import builtins as _b
import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from cujit import _cujit as _C

from ._operands import _array, _ascontiguous, _astype, _C64, _F32, _F64, _order_of
from .copies import _fill


def _as3d(x, axis):
    """x viewed (or copied) as (A, N, B) with the axis in the middle; and
    the result shape without that axis.  axis None: the flattened array."""
    if axis is None:
        return reshape(x, (1, x.size, 1)), ()
    ax = normalize_axis_index(axis, x.ndim)
    a = 1
    for d in x.shape[:ax]:
        a *= d
    b = 1
    for d in x.shape[ax + 1:]:
        b *= d
    n = x.shape[ax]
    rest = x.shape[:ax] + x.shape[ax + 1:]
    if x.size == 0:
        return None, rest
    return reshape(x, (a, n, b)), rest


def _shape_arg(shape):
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
        shape = tuple(shape[0])
    return tuple(operator.index(s) for s in shape)


def _nocopy_strides(oshape, ostrides, nshape, itemsize, fortran):
    """NumPy's _attempt_nocopy_reshape: strides viewing the same memory in
    the new shape, or None when the layout does not allow a view."""
    odims = [(d, s) for d, s in zip(oshape, ostrides) if d != 1]
    nd = len(nshape)
    nstrides = [0] * nd
    oi, oj, ni, nj = 0, 1, 0, 1
    while ni < nd and oi < len(odims):
        np_ = nshape[ni]
        op = odims[oi][0]
        while np_ != op:
            if np_ < op:
                np_ *= nshape[nj]
                nj += 1
            else:
                op *= odims[oj][0]
                oj += 1
        for ok in range(oi, oj - 1):
            if fortran:
                if odims[ok + 1][1] != odims[ok][0] * odims[ok][1]:
                    return None
            elif odims[ok][1] != odims[ok + 1][0] * odims[ok + 1][1]:
                return None
        if fortran:
            nstrides[ni] = odims[oi][1]
            for nk in range(ni + 1, nj):
                nstrides[nk] = nstrides[nk - 1] * nshape[nk - 1]
        else:
            nstrides[nj - 1] = odims[oj - 1][1]
            for nk in range(nj - 1, ni, -1):
                nstrides[nk - 1] = nstrides[nk] * nshape[nk]
        ni = nj
        nj += 1
        oi = oj
        oj += 1
    last = nstrides[ni - 1] if ni >= 1 else itemsize
    if fortran and ni >= 1:
        last *= nshape[ni - 1]
    for nk in range(ni, nd):
        nstrides[nk] = last
    return nstrides


def _contig_strides(shape, itemsize, order):
    strides = [0] * len(shape)
    s = itemsize
    dims = range(len(shape) - 1, -1, -1) if order == "C" else range(len(shape))
    for d in dims:
        strides[d] = s
        s *= _b.max(shape[d], 1)
    return strides


def reshape(a, *shape, order="C"):
    """The same elements in another shape (one extent may be -1): a view when
    the layout allows (NumPy's rule), else a copy."""
    x = _array(a)
    shape = _shape_arg(shape)
    if order not in ("C", "F", "A"):
        raise ValueError("order must be 'C', 'F' or 'A'")
    order = _order_of(x, order) if order == "A" else order
    unknown = [i for i, s in enumerate(shape) if s < 0]
    known = 1
    for s in shape:
        if s >= 0:
            known *= s
    if _b.any(s < -1 for s in shape):
        raise ValueError("negative dimensions not allowed")
    if len(unknown) > 1:
        raise ValueError("can only specify one unknown dimension")
    if unknown:
        if known == 0 or x.size % known:
            raise ValueError("cannot reshape array of size %d into shape %s" % (x.size, shape))
        shape = shape[:unknown[0]] + (x.size // known,) + shape[unknown[0] + 1:]
    elif known != x.size:
        raise ValueError("cannot reshape array of size %d into shape %s" % (x.size, shape))
    if x.size == 0:
        return x._view(shape, _contig_strides(shape, x.itemsize, order), 0)
    strides = _nocopy_strides(x.shape, x.strides, shape, x.itemsize, order == "F")
    if strides is None:
        x = _astype(x, x.dtype, order)
        strides = _contig_strides(shape, x.itemsize, order)
    return x._view(shape, strides, 0)




def ravel(a, order="C"):
    """1-d: a view when the layout allows, else a copy."""
    x = _array(a)
    return reshape(x, -1, order=_order_of(x, order) if order in ("A", "K") else order)


def _flatten(a, order="C"):
    x = _array(a)
    order = _order_of(x, order) if order in ("A", "K") else order
    c = _astype(x, x.dtype, order)
    return reshape(c, -1, order=order)


def transpose(a, *axes):
    """A view with the axes permuted (reversed when none are given)."""
    x = _array(a)
    if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], (int, np.integer))):
        axes = axes[0]
    if axes is None or axes == ():
        perm = tuple(range(x.ndim - 1, -1, -1))
    else:
        perm = tuple(operator.index(v) for v in axes)
        if len(perm) != x.ndim:
            raise ValueError("axes don't match array")
        perm = tuple(normalize_axis_index(v, x.ndim) for v in perm)
        if len(set(perm)) != len(perm):
            raise ValueError("repeated axis in transpose")
    shape = tuple(x.shape[p] for p in perm)
    strides = tuple(x.strides[p] for p in perm)
    return x._view(shape, strides, 0)


def squeeze(a, axis=None):
    """A view without the extents of 1 (those in axis, or all)."""
    x = _array(a)
    if axis is None:
        keep = [d for d in range(x.ndim) if x.shape[d] != 1]
    else:
        drop = normalize_axis_tuple(axis, x.ndim)
        for d in drop:
            if x.shape[d] != 1:
                raise ValueError("cannot select an axis to squeeze out which has size not "
                                 "equal to one")
        keep = [d for d in range(x.ndim) if d not in drop]
    return x._view(tuple(x.shape[d] for d in keep), tuple(x.strides[d] for d in keep), 0)


def _part(x, k):
    """x.real (k=0) / x.imag (k=1): a strided view of a complex array."""
    dt = _F32 if x.dtype == _C64 else _F64
    return x._view(x.shape, x.strides, k * dt.itemsize, dt)


def _real(x):
    return _part(x, 0) if x.dtype.kind == "c" else x


def _imag(x):
    if x.dtype.kind == "c":
        return _part(x, 1)
    z = _C.empty(x.shape, x.dtype)
    _fill(z, 0)
    return z


def ascontiguousarray(a, dtype=None):
    """A C-contiguous DeviceArray of a (a itself when it already is one)."""
    x = _array(a)
    if dtype is not None and np.dtype(dtype) != x.dtype:
        return _astype(x, np.dtype(dtype), "C")
    return _ascontiguous(x, "C")
