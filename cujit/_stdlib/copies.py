"""Copies, conversions and writes on the device: astype, copy, fill, and the
assignment behind DeviceArray's writes (a[...] = value with NumPy's
conversions and broadcasting)."""
import builtins as _b
import warnings

import numpy as np

from cujit import _cujit as _C

from ._load import _ek
from ._operands import (
    _array, _astype, _broadcast_view, _cast_kernel, _check_dtype, DeviceArray, _overlaps,
    _same_view)


# ---- conversion and filling ----

def astype(a, dtype, order="K", casting="unsafe", copy=True):
    """A copy converted to dtype (NumPy's unsafe casting unless told)."""
    x = _array(a)
    dt = np.dtype(dtype)
    _check_dtype(dt, "astype")
    if casting != "unsafe" and not np.can_cast(x.dtype, dt, casting):
        raise TypeError("Cannot cast array data from %r to %r according to the rule %r"
                        % (x.dtype, dt, casting))
    if not copy and dt == x.dtype and (order in ("K", "A") or
                                       (x.c_contiguous if order == "C" else x.f_contiguous)):
        return x
    if x.dtype.kind == "c" and dt.kind not in "cb":
        warnings.warn("Casting complex values to real discards the imaginary part",
                      np.exceptions.ComplexWarning, stacklevel=2)
    return _astype(x, dt, order)


def _fill(a, value):
    """Every element set to value, converted as NumPy's fill does."""
    h = np.empty((), a.dtype)
    h.fill(value)                               # NumPy's conversion and errors
    if a.size == 0:
        return None
    if a.c_contiguous or a.f_contiguous:
        a[...] = h.item()                       # a memset (or a few host copies)
    else:
        _ek("fill")(a, h[()], out=a)
    return None


# ---- copies and writes on the device ----

def copy(a, order="K"):
    """A copy on the device (numpy.copy): one device-to-device copy when the
    source is contiguous in the order asked for, else a copy kernel; host
    data is copied to the device."""
    x = _array(a)
    if x is not a and (order in ("K", "A") or (x.c_contiguous if order == "C"
                                                else x.f_contiguous)):
        return x                        # already a new array
    return x.copy(order=order)


def _shape_str(shape):
    """A shape as NumPy's messages print it: (3,4), (3,), ()."""
    return "(%s%s)" % (",".join(str(n) for n in shape), "," if len(shape) == 1 else "")


def _fit(shape, target):
    """How many leading extents of 1 NumPy's assignment drops from a value
    of `shape` before broadcasting it to `target`; its ValueError when the
    value does not broadcast."""
    k = 0
    while len(shape) - k > len(target) and shape[k] == 1:
        k += 1
    rest = shape[k:]
    if len(rest) > len(target) or not _b.all(
            n in (1, m) for n, m in zip(reversed(rest), reversed(target))):
        raise ValueError("could not broadcast input array from shape %s into shape %s"
                         % (_shape_str(shape), _shape_str(target)))
    return k


def _host_value(value, dt, ndim):
    """Host data converted to dt as NumPy's `a[...] = value` converts it for
    an a of ndim dimensions: arrays cast unsafely (ComplexWarning for complex
    to real), numbers by NumPy's scalar assignment (its OverflowError,
    TypeError for complex to real), anything else (lists, buffers) by
    numpy.asarray, at most ndim deep."""
    if isinstance(value, np.ndarray):
        if value.dtype == dt:
            return value
        h = np.empty(value.shape, dt)
        h[...] = value
        return h
    if isinstance(value, (np.generic, int, float, complex)):
        h = np.empty((), dt)
        h[()] = value
        return h
    if np.ndim(value) > ndim:           # NumPy's check, made before converting
        raise ValueError("setting an array element with a sequence. The requested array "
                         "would exceed the maximum number of dimension of %d." % ndim)
    return np.asarray(value, dt)


def _fill_scalar(a, v, stream):
    """Every element of a set to v (a NumPy scalar of a's dtype)."""
    if a.c_contiguous or a.f_contiguous:
        a.copy_to_device(v.item(), stream=stream)       # a memset
    else:
        _ek("fill")(a, v, out=a, stream=stream)


def _assign(a, value, stream=None):
    """a[...] = value on the device, as NumPy assigns: value converted to
    a's dtype (unsafe casting, NumPy's scalar conversions and errors) and
    broadcast to a's shape.  DeviceArray's writes (__setitem__,
    copy_to_device, copy) come here for what one driver copy or memset does
    not do (runtime/array.c); host data crosses the bus once, unbroadcast,
    and a kernel spreads it."""
    if type(value) is DeviceArray:
        return _assign_device(a, value, stream)
    h = _host_value(value, a.dtype, a.ndim)
    k = _fit(h.shape, a.shape)
    if a.size == 0:
        return None
    if h.size == 1:
        _fill_scalar(a, h.reshape(())[()], stream)
    elif h.shape[k:] == a.shape and (a.c_contiguous or a.f_contiguous):
        a.copy_to_device(h.reshape(a.shape), stream=stream)
    else:
        t = _C.to_device(h.reshape(h.shape[k:]), stream=stream)
        _ek("copy")(_broadcast_view(t, a.shape), out=a, stream=stream)
    return None


def _assign_device(a, src, stream):
    """a[...] = src for a DeviceArray src: a cast or copy kernel over src
    broadcast to a's shape (read in full first where it overlaps a
    otherwise than element for element)."""
    if src.dtype.kind == "c" and a.dtype.kind not in "cb":
        warnings.warn("Casting complex values to real discards the imaginary part",
                      np.exceptions.ComplexWarning, stacklevel=3)
    k = _fit(src.shape, a.shape)
    if k:
        src = src._view(src.shape[k:], src.strides[k:], 0)
    if a.size == 0 or (_same_view(src, a) and src.dtype == a.dtype):
        return None
    if _overlaps(src, a) and not (_same_view(src, a) and src.itemsize == a.itemsize):
        src = src.copy(stream=stream)
    if src.shape != a.shape:
        src = _broadcast_view(src, a.shape)
    _cast_kernel(src.dtype, a.dtype)(src, out=a, stream=stream)
    return None
