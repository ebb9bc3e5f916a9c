"""Creation: arange and linspace with NumPy's lengths, dtypes and values, over
the kernels of kernels/creation.py."""
import builtins as _b
import math
import operator

import numpy as np

from cujit import _cujit as _C

from ._load import _grid, _spec
from ._operands import _check_dtype, _F16, _F32, _F64, _I64, _SUPPORTED, _U64


def _arange_dtype(*given):
    """NumPy's: the arguments' dtypes promoted, starting from int64."""
    dt = _I64
    for v in given:
        dt = np.promote_types(dt, np.asarray(v).dtype)
    return dt


def _compute_type(dt):
    if dt == _F16:
        return _F32
    if dt.kind == "i":
        return _I64
    if dt.kind == "u":
        return _U64
    return dt


def arange(start, stop=None, step=None, dtype=None):
    """Evenly spaced values in [start, stop): NumPy's length, dtype (integers
    int64, else float64) and values (start + i * delta in the dtype)."""
    given = [v for v in (start, stop, step) if v is not None]
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    dt = np.dtype(dtype) if dtype is not None else _arange_dtype(*given)
    if dt.kind not in "iuf" or dt not in _SUPPORTED:
        raise TypeError("cujit.arange() supports integer and float dtypes, not %s" % dt)
    if step == 0:
        raise ZeroDivisionError("division by zero")
    length = (stop - start) / step
    if isinstance(length, complex) or math.isnan(length) or math.isinf(length):
        raise ValueError("arange: cannot compute length")
    n = _b.max(0, math.ceil(length))
    out = _C.empty(n, dt)
    if n == 0:
        return out
    h = np.empty(2, dt)
    h[0] = start
    h[1] = start + step if n > 1 else start
    ct = _compute_type(dt)
    c0, c1 = ct.type(h[0]), ct.type(h[1])
    with np.errstate(all="ignore"):
        delta = ct.type(c1 - c0)
    _spec("creation", "arange", CT=ct)[_grid(n), 256](out, c0, c1, delta)
    return out


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None):
    """num evenly spaced values from start to stop (inclusive when endpoint),
    computed as NumPy does: i * step + start in the float type of start and
    stop; integer dtypes floored."""
    num = operator.index(num)
    if num < 0:
        raise ValueError("Number of samples, %d, must be non-negative." % num)
    for v in (start, stop):
        if not (isinstance(v, (int, float, np.number)) and np.asarray(v).dtype.kind in "biuf"):
            raise TypeError("cujit.linspace() takes real scalar start and stop")
    div = (num - 1) if endpoint else num
    dt = np.result_type(start, stop, float(num))
    if dt.kind not in "f":
        dt = _F64
    rdt = np.dtype(dtype) if dtype is not None else dt
    _check_dtype(rdt, "linspace")
    if rdt.kind == "c":
        raise TypeError("cujit.linspace() does not support complex dtypes")
    ct = dt.type
    with np.errstate(all="ignore"):
        c_start, c_stop = ct(start), ct(stop)
        delta = np.subtract(stop, start, dtype=dt)
        flags = 1 if (endpoint and num > 1) else 0
        if div > 0:
            step = delta / ct(div)
            if step == 0:
                flags |= 2
        else:
            step = ct(np.nan)
        if rdt.kind in "iu":
            flags |= 4
    out = _C.empty(num, rdt)
    if num:
        kstep = step if div > 0 else ct(0)
        _spec("creation", "linspace", CT=dt)[_grid(num), 256](
            out, c_start, ct(kstep), c_stop, ct(div if div > 0 else 1), ct(delta), flags)
    return (out, step) if retstep else out
