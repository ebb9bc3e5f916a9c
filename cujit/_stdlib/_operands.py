"""What the stdlib's families share: the dtypes it supports, operands (arrays,
Python numbers weak under NEP 50, NumPy scalars, foreign device arrays),
overlap and broadcast views, and the copies and casts between dtypes."""
import numpy as np

from cujit import _cujit as _C

from ._load import _ek, _spec


DeviceArray = _C.DeviceArray


_F16, _F32, _F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
_I64, _U64, _BOOL = np.dtype(np.int64), np.dtype(np.uint64), np.dtype(np.bool_)
_C64, _C128 = np.dtype(np.complex64), np.dtype(np.complex128)
_SUPPORTED = frozenset(np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
    np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128))


# ---- operands ----

class _Unsupported(Exception):
    """An operand the stdlib does not take (an operator returns NotImplemented)."""


_PYNUM = (bool, int, float, complex)


class _Weak:
    """The kind of a Python int, float or complex: weak under NEP 50 (never
    equal to a dtype; compared by identity)."""
    __slots__ = ("type",)

    def __init__(self, t):
        self.type = t

    def __repr__(self):
        return "Python " + self.type.__name__


_WI, _WF, _WC = _Weak(int), _Weak(float), _Weak(complex)
_WEAK = {int: _WI, float: _WF, complex: _WC, bool: _BOOL}


def _operand(o):
    """A DeviceArray, a Python number (weak) or a NumPy scalar (strong), or a
    foreign device array (CuPy, PyTorch, ...) the kernels read directly; host
    arrays and lists are copied to the device."""
    t = type(o)
    if t is DeviceArray or t in _PYNUM:
        return o
    if isinstance(o, np.generic):
        if o.dtype in _SUPPORTED:
            return o
        raise _Unsupported
    if isinstance(o, np.ndarray):
        if o.dtype not in _SUPPORTED:
            raise _Unsupported
        return _C.to_device(o)
    if isinstance(o, (list, tuple)):
        return _operand(np.asarray(o))
    if isinstance(o, (int, float, complex)):       # subclasses: IntEnum, ...
        return complex(o) if isinstance(o, complex) else float(o) if isinstance(o, float) \
            else int(o)
    if hasattr(o, "__cuda_array_interface__"):
        return o
    if hasattr(o, "__dlpack__") and hasattr(o, "__dlpack_device__"):
        return _C.to_device(o)
    raise _Unsupported


def _kind(o):
    """What typing sees: a dtype (arrays, NumPy scalars) or a Python type (weak)."""
    t = type(o)
    if t is DeviceArray:
        return o.dtype
    if t in _PYNUM:
        return _WEAK[t]
    if isinstance(o, np.generic):
        return o.dtype
    return np.dtype(o.__cuda_array_interface__["typestr"])


def _shape(o):
    t = type(o)
    if t is DeviceArray:
        return o.shape
    if t in _PYNUM or isinstance(o, np.generic):
        return ()
    return tuple(o.__cuda_array_interface__["shape"])


def _np_dummy(kind, value=None):
    """A stand-in NumPy types the same way: an empty array of a dtype, or the
    Python scalar itself (weak)."""
    if isinstance(kind, np.dtype):
        return np.empty(0, kind)
    return kind.type(1) if value is None else value


def _array(x, what="the argument"):
    """Any array-like as a DeviceArray (host data copied, scalars 0-d)."""
    if type(x) is DeviceArray:
        return x
    try:
        o = _operand(x)
    except _Unsupported:
        raise TypeError("%s must be an array or a number, not %s" % (what, type(x).__name__)) \
            from None
    if type(o) is DeviceArray:
        return o
    return _C.to_device(np.asarray(o) if not hasattr(o, "__cuda_array_interface__") else o)


def _span(a):
    """[lo, hi) device addresses a non-empty array touches."""
    lo = hi = a.ptr
    for n, s in zip(a.shape, a.strides):
        if s < 0:
            lo += (n - 1) * s
        else:
            hi += (n - 1) * s
    return lo, hi + a.itemsize


def _overlaps(a, b):
    if a.size == 0 or b.size == 0:
        return False
    alo, ahi = _span(a)
    blo, bhi = _span(b)
    return alo < bhi and blo < ahi


def _same_view(a, b):
    return a.ptr == b.ptr and a.shape == b.shape and a.strides == b.strides


def _broadcast_view(a, shape):
    """A stride-0 view of DeviceArray a broadcast to shape."""
    nd = len(shape)
    pad = nd - a.ndim
    strides = [0] * pad + [0 if n == 1 else s for n, s in zip(a.shape, a.strides)]
    return a._view(shape, strides, 0)


# ---- copies and casts ----

def _cast_kernel(src, dst):
    if src == dst:
        return _ek("copy")
    if src.kind == "c" and dst.kind == "b":
        return _ek("nonzero")
    if src.kind == "c" and dst.kind != "c":
        return _spec("elementwise", "cast_real", DT=dst)
    return _spec("elementwise", "cast", DT=dst)


def _order_of(x, order):
    if order in ("K", "A", None):
        return "F" if x.f_contiguous and not x.c_contiguous else "C"
    if order in ("C", "F"):
        return order
    raise ValueError("order must be one of 'C', 'F', 'A', or 'K' (got %r)" % (order,))


def _copy_into(src, out):
    """out[...] = src (same shape), converting the dtype (NumPy's unsafe casting)."""
    if src.size:
        _cast_kernel(src.dtype, out.dtype)(src, out=out)
    return out


def _astype(x, dtype, order="K"):
    out = _C.empty(x.shape, dtype, _order_of(x, order))
    return _copy_into(x, out)


def _ascontiguous(x, order="C"):
    if (x.c_contiguous if order == "C" else x.f_contiguous):
        return x
    return _astype(x, x.dtype, order)


def _to_out(r, out):
    """A result into out= (same shape), or the result itself."""
    if out is None:
        return r
    if type(out) is not DeviceArray:
        raise TypeError("out= must be a cujit.DeviceArray")
    if out.shape != r.shape:
        raise ValueError("out= has shape %s, the result has shape %s" % (out.shape, r.shape))
    return _copy_into(r, out)


def _is_array(o):
    return not (type(o) in _PYNUM or isinstance(o, np.generic))


def _takes(a):
    try:
        _operand(a)
        return True
    except _Unsupported:
        return False


def _check_dtype(dt, fname):
    if dt not in _SUPPORTED:
        raise TypeError("cujit.%s(): dtype %s is not supported" % (fname, dt))
