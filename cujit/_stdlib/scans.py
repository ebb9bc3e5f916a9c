"""Scans: cumsum, a thread per row or a three-pass multi-block scan over the
kernels of kernels/scan.py."""
import builtins as _b

import numpy as np

from cujit import _cujit as _C

from ._load import _compile_together, _grid, _sm_count, _spec, _use_rows
from ._operands import _array, _C64, _check_dtype, _F16, _F32, _F64, _to_out
from .reductions import _sum_dtype
from .shape import _as3d, reshape


def cumsum(a, axis=None, dtype=None, out=None):
    """Running sums along axis (None: of the flattened array); sum's dtypes.
    A multi-block scan (chunk sums, their prefixes, then each chunk again)."""
    x = _array(a)
    rdt = np.dtype(dtype) if dtype is not None else _sum_dtype(x.dtype)
    _check_dtype(rdt, "cumsum")
    acc = _F32 if rdt == _F16 else rdt
    if x.dtype.kind == "c" and acc.kind != "c":
        raise TypeError("cujit.cumsum(): complex input with a real dtype is not supported")
    res = _C.empty(x.size if axis is None else x.shape, rdt)
    x3, _ = _as3d(x, axis)
    if x3 is None or res.size == 0:
        return _to_out(res, out)
    o3 = reshape(res, x3.shape)
    if acc.kind == "c" and x3.dtype.kind == "c":
        # the real and the imaginary parts, each a real scan of a strided view
        pin = _F32 if x3.dtype == _C64 else _F64
        pacc = _F32 if acc == _C64 else _F64
        for k in (0, 1):
            _scan(x3._view(x3.shape, x3.strides, k * pin.itemsize, pin),
                  o3._view(o3.shape, o3.strides, k * pacc.itemsize, pacc), pacc)
    else:
        _scan(x3, o3, acc)
    return _to_out(res, out)


def _scan(x3, o3, acc):
    """o3[a, :, b] = running sums of x3[a, :, b] in acc: a thread per row, or
    the three-pass multi-block scan for long rows."""
    rows, n = x3.shape[0] * x3.shape[2], x3.shape[1]
    if acc.kind == "c" or _use_rows(rows, n):
        _spec("scan", "rows", ACC=acc)[_grid(rows), 256](x3, o3)
        return
    nt = 256
    chunk = _b.max(nt * 8, (n + 4 * _sm_count() - 1) // (4 * _sm_count()))
    chunk = (chunk + nt - 1) // nt * nt
    splits = (n + chunk - 1) // chunk
    part = _C.empty((rows, splits), acc)
    gy = _b.min(rows, 65535)
    kp, kc, kf = (_spec("scan", f, ACC=acc) for f in ("partials", "carries", "finish"))
    _compile_together((kp, (x3, part, chunk)), (kc, (part,)), (kf, (x3, o3, part, chunk)))
    kp[(splits, gy), nt](x3, part, chunk)
    kc[gy, nt](part)
    kf[(splits, gy), nt](x3, o3, part, chunk)
