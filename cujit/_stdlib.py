"""The array stdlib: DeviceArray's operators and methods, and cujit's math,
reduction, scan and creation functions, with NumPy 2's semantics.

The kernels are written in the kernel language in the top-level stdlib/
folder (elementwise: @vectorize scalar functions; reductions: @reduce
combiners and argmin / argmax raw kernels; scan: cumsum; creation: arange,
linspace) and compiled through the same pipeline and caches as user kernels,
on first use.  This module is their NumPy-facing side: it checks every
signature once against NumPy itself (result dtype, UFuncTypeError, casting
errors of in-place operators), then calls the kernel.

It is imported on first use - by DeviceArray's first operator or method
(the C slots import it, and it registers itself with _set_array_ops) or by
the first cujit.sqrt-like name - so `import cujit` pays nothing for it."""
import builtins as _b
import importlib.util
import math
import operator
import os
import sys
import warnings

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from cujit import _cujit as _C

DeviceArray = _C.DeviceArray

_STDLIB_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_stdlib", "kernels")
_F16, _F32, _F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
_I64, _U64, _BOOL = np.dtype(np.int64), np.dtype(np.uint64), np.dtype(np.bool_)
_C64, _C128 = np.dtype(np.complex64), np.dtype(np.complex128)
_SUPPORTED = frozenset(np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
    np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128))

__all__ = ["add", "subtract", "multiply", "true_divide", "divide", "floor_divide",
           "remainder", "mod", "power", "bitwise_and", "bitwise_or", "bitwise_xor",
           "left_shift", "right_shift", "less", "less_equal", "equal", "not_equal", "greater",
           "greater_equal", "negative", "positive", "invert", "absolute", "abs", "sqrt", "exp",
           "log", "sin", "cos", "tan", "tanh", "arctan2", "floor", "ceil", "minimum", "maximum",
           "where", "clip", "isnan", "sum", "prod", "min", "max", "amin", "amax", "mean",
           "argmin", "argmax", "any", "all", "cumsum", "arange", "linspace", "astype",
           "reshape", "ravel", "transpose", "squeeze", "ascontiguousarray", "copy",
           "logical_and", "logical_or", "logical_xor", "logical_not"]


# ---- the kernel modules (stdlib/*.py, loaded by path on first use) ----

_modules = {}


def _kmod(name):
    m = _modules.get(name)
    if m is None:
        path = os.path.join(_STDLIB_DIR, name + ".py")
        if not os.path.isfile(path):
            raise ImportError("cujit's bundled kernels are missing: %s" % path)
        spec = importlib.util.spec_from_file_location("cujit_stdlib_" + name, path)
        m = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = m
        try:
            spec.loader.exec_module(m)
        except BaseException:
            sys.modules.pop(spec.name, None)
            raise
        _modules[name] = m
    return m


def _ek(name):
    """An elementwise @vectorize kernel by name."""
    return _kmod("elementwise").kernels[name]


_specialized = {}


def _spec(module, func, **names):
    """A kernel of `module` specialised for compile-time names (one per type)."""
    key = (module, func) + tuple(sorted((k, np.dtype(v).str) for k, v in names.items()))
    k = _specialized.get(key)
    if k is None:
        m = _kmod(module)
        k = m.specialize(getattr(m, func), **{n: np.dtype(v).type for n, v in names.items()})
        _specialized[key] = k
    return k


_sms = {}


def _sm_count():
    """The current device's multiprocessor count (cached per device)."""
    dev = _C.get_device()
    n = _sms.get(dev.id)
    if n is None:
        n = _sms[dev.id] = dev.multiprocessor_count
    return n


def _grid(n, block=256, cap=1 << 16):
    return _b.max(1, _b.min((n + block - 1) // block, cap))


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


# ---- elementwise operations ----

class _Entry:
    """What one signature (operand kinds, out dtype) resolved to."""
    __slots__ = ("kernel", "post", "direct", "value_checks")


class _Elementwise:
    """A NumPy ufunc's semantics (npfunc) over a bundled @vectorize kernel."""

    def __init__(self, name, npfunc, kernel, nin, nout=1, variants=None, compare=False,
                 complex_fn=None):
        self.name = name
        self.npfunc = npfunc
        self.kernel = kernel
        self.nin = nin
        self.nout = nout
        self.variants = variants or {}      # NumPy result dtype -> kernel rounding to it
        self.compare = compare
        self.complex_fn = complex_fn        # for complex operands: specialised per type
        self.cache = {}

    def __repr__(self):
        return "<cujit stdlib function %s>" % self.name

    def __call__(self, *args, out=None):
        if len(args) != self.nin:
            raise TypeError("cujit.%s() takes %d argument%s, got %d"
                            % (self.name, self.nin, "" if self.nin == 1 else "s", len(args)))
        try:
            ops = [_operand(a) for a in args]
        except _Unsupported:
            bad = next(a for a in args if not _takes(a))
            raise TypeError("cujit.%s() does not take %s operands"
                            % (self.name, type(bad).__name__)) from None
        if not _b.any(_is_array(o) for o in ops):
            ops[0] = _C.to_device(np.asarray(ops[0]))       # scalars only: a 0-d result
        if out is not None and type(out) is not DeviceArray:
            raise TypeError("out= must be a cujit.DeviceArray")
        return self.apply(ops, out)

    def operator(self, *args):
        """The operator form: NotImplemented for operands it does not take."""
        try:
            ops = [_operand(a) for a in args]
        except _Unsupported:
            return NotImplemented
        return self.apply(ops, None)

    def inplace(self, a, b):
        try:
            b = _operand(b)
        except _Unsupported:
            return NotImplemented
        self.apply([a, b], a)
        return a

    def apply(self, ops, out):
        kinds = tuple(_kind(o) for o in ops)
        key = kinds if out is None else kinds + (out.dtype, None)
        e = self.cache.get(key)
        if e is None:
            e = self.resolve(kinds, ops, out)
            self.cache[key] = e
        if e.value_checks:
            ops = self.check_values(kinds, ops, out)
        if out is None:
            r = e.kernel(*ops)
            if e.post is not None:
                r = tuple(_astype(v, d) for v, d in zip(r, e.post)) if self.nout > 1 \
                    else _astype(r, e.post)
            return r
        ops = self.prepare_out(ops, out)
        if e.direct:
            e.kernel(*ops, out=out)
        else:
            r = e.kernel(*ops)
            _copy_into(r, out)
        return out

    def resolve(self, kinds, ops, out):
        """NumPy's result dtype and errors for these operand kinds, and the
        kernel that gives that dtype."""
        dummies = [_np_dummy(k) for k in kinds]
        with np.errstate(all="ignore"):
            r = self.npfunc(*dummies)
            if out is not None:
                self.npfunc(*dummies, out=np.empty(0, out.dtype))   # same_kind casting
        expected = tuple(v.dtype for v in r) if self.nout > 1 else r.dtype
        e = _Entry()
        if self.complex_fn and _b.any(k is _WC or (isinstance(k, np.dtype) and k.kind == "c")
                                      for k in kinds):
            ct = expected if expected.kind == "c" else np.result_type(*dummies)
            e.kernel = _spec("elementwise", self.complex_fn, DT=ct)
        elif expected in self.variants:
            e.kernel = _ek(self.variants[expected])
        else:
            e.kernel = _ek(self.kernel)
        natural = self.natural(e.kernel, kinds, ops)
        e.post = None if natural == expected else expected
        e.direct = out is not None and (natural == out.dtype or out.dtype.kind in "biu"
                                        or out.dtype in (_F32, _F64))
        e.value_checks = _b.any(k is _WI for k in kinds) or self.name == "power"
        return e

    def natural(self, kernel, kinds, ops):
        """The dtype(s) the kernel gives for these kinds (typing only: empty inputs)."""
        dummies = [_C.empty(0, k) if isinstance(k, np.dtype) else o for k, o in zip(kinds, ops)]
        try:
            r = kernel(*dummies)
        except _C.CompileError as err:
            names = ", ".join(k.name if isinstance(k, np.dtype) else repr(k) for k in kinds)
            raise TypeError("cujit.%s() is not supported for (%s) on the device: %s"
                            % (self.name, names, err.msg if hasattr(err, "msg") else err)) \
                from None
        return tuple(v.dtype for v in r) if self.nout > 1 else r.dtype

    def check_values(self, kinds, ops, out):
        """What depends on the values of Python ints: NumPy's OverflowError
        when one does not fit the other operand's integer dtype (comparisons
        instead compare exactly), and integers to negative powers."""
        ops = list(ops)
        for i, (k, o) in enumerate(zip(kinds, ops)):
            if k is not _WI or 0 <= o <= 127:
                continue
            if self.compare:
                ops[i] = _exact_int(o, kinds[1 - i])
                continue
            dummies = [_np_dummy(kk, oo if kk is _WI else None) for kk, oo in zip(kinds, ops)]
            with np.errstate(all="ignore"):
                self.npfunc(*dummies)                       # raises NumPy's OverflowError
            if not -(1 << 63) <= o < (1 << 63):
                # beyond int64, which a weak int is typed as on the device:
                # the uint64 it fits (NumPy said so) or a weak float
                ints = _b.any(isinstance(kk, np.dtype) and kk.kind in "iub" for kk in kinds)
                ops[i] = np.uint64(o) if ints and 0 <= o < (1 << 64) else float(o)
        if self.name == "power" and len(ops) == 2:
            a, b = ops
            if isinstance(b, (int, np.integer)) and not isinstance(b, (bool, np.bool_)) \
                    and b < 0 and (kinds[0] is _WI or kinds[0].kind in "biu") \
                    and (type(a) is not DeviceArray or a.size):
                raise ValueError("Integers to negative integer powers are not allowed.")
        return ops

    def prepare_out(self, ops, out):
        """Operands for out=: broadcast to out's shape (NumPy's error when
        they do not), copied first when they overlap out otherwise than
        element for element."""
        shapes = [_shape(o) for o in ops]
        shape = np.broadcast_shapes(*shapes)
        full = np.broadcast_shapes(shape, out.shape)
        if full != out.shape:
            raise ValueError("non-broadcastable output operand with shape %s doesn't match "
                             "the broadcast shape %s" % (out.shape, full))
        res = []
        for o in ops:
            if type(o) is DeviceArray:
                if _overlaps(o, out) and not _same_view(o, out):
                    o = _astype(o, o.dtype, "C")
                if o.shape != out.shape:
                    o = _broadcast_view(o, out.shape)
            elif not (type(o) in _PYNUM or isinstance(o, np.generic)) \
                    and tuple(_shape(o)) != out.shape:
                o = _broadcast_view(_C.to_device(o), out.shape)
            res.append(o)
        if shape != out.shape and not _b.any(type(o) is DeviceArray for o in res):
            res[0] = _broadcast_view(_C.to_device(np.asarray(res[0])), out.shape)
        return res


def _exact_int(v, other):
    """A Python int compared with an array of dtype other: outside the
    array's integer range, a strong scalar that compares exactly (NumPy 2
    compares such ints exactly); beyond int64 (a weak int's type on the
    device) next to floats, a weak float."""
    if isinstance(other, np.dtype) and other.kind in "iu":
        info = np.iinfo(other)
        if info.min <= v <= info.max and v < (1 << 63):
            return v
    elif not (isinstance(other, np.dtype) and other.kind == "b"):
        return v if -(1 << 63) <= v < (1 << 63) else float(v)
    if -(1 << 63) <= v < (1 << 63):
        return np.int64(v)
    if 0 <= v < (1 << 64):
        return np.uint64(v)
    return float(v)


def _is_array(o):
    return not (type(o) in _PYNUM or isinstance(o, np.generic))


def _takes(a):
    try:
        _operand(a)
        return True
    except _Unsupported:
        return False


def _math(name, npfunc):
    return _Elementwise(name, npfunc, name, 1, variants={_F16: name + "_f2"},
                        complex_fn=name + "_c")


add = _Elementwise("add", np.add, "add", 2)
subtract = _Elementwise("subtract", np.subtract, "subtract", 2)
multiply = _Elementwise("multiply", np.multiply, "multiply", 2)
true_divide = divide = _Elementwise("true_divide", np.true_divide, "true_divide", 2)
floor_divide = _Elementwise("floor_divide", np.floor_divide, "floor_divide", 2)
remainder = mod = _Elementwise("remainder", np.remainder, "remainder", 2)
_divmod = _Elementwise("divmod", np.divmod, "divmod_", 2, nout=2)
power = _Elementwise("power", np.power, "power", 2, variants={np.dtype(np.int8): "power_i1"})
bitwise_and = _Elementwise("bitwise_and", np.bitwise_and, "bitwise_and", 2)
bitwise_or = _Elementwise("bitwise_or", np.bitwise_or, "bitwise_or", 2)
bitwise_xor = _Elementwise("bitwise_xor", np.bitwise_xor, "bitwise_xor", 2)
left_shift = _Elementwise("left_shift", np.left_shift, "left_shift", 2)
right_shift = _Elementwise("right_shift", np.right_shift, "right_shift", 2)
less = _Elementwise("less", np.less, "less", 2, compare=True, complex_fn="less_c")
less_equal = _Elementwise("less_equal", np.less_equal, "less_equal", 2, compare=True,
                          complex_fn="less_equal_c")
equal = _Elementwise("equal", np.equal, "equal", 2, compare=True)
not_equal = _Elementwise("not_equal", np.not_equal, "not_equal", 2, compare=True)
greater = _Elementwise("greater", np.greater, "greater", 2, compare=True,
                       complex_fn="greater_c")
greater_equal = _Elementwise("greater_equal", np.greater_equal, "greater_equal", 2,
                             compare=True, complex_fn="greater_equal_c")
negative = _Elementwise("negative", np.negative, "negative", 1)
positive = _Elementwise("positive", np.positive, "positive", 1)
invert = _Elementwise("invert", np.invert, "invert", 1)
absolute = abs = _Elementwise("absolute", np.absolute, "absolute", 1)
isnan = _Elementwise("isnan", np.isnan, "isnan", 1)
logical_and = _Elementwise("logical_and", np.logical_and, "logical_and", 2)
logical_or = _Elementwise("logical_or", np.logical_or, "logical_or", 2)
logical_xor = _Elementwise("logical_xor", np.logical_xor, "logical_xor", 2)
logical_not = _Elementwise("logical_not", np.logical_not, "logical_not", 1)
sqrt = _math("sqrt", np.sqrt)
exp = _math("exp", np.exp)
log = _math("log", np.log)
sin = _math("sin", np.sin)
cos = _math("cos", np.cos)
tan = _math("tan", np.tan)
tanh = _math("tanh", np.tanh)
arctan2 = _Elementwise("arctan2", np.arctan2, "arctan2", 2, variants={_F16: "arctan2_f2"})
minimum = _Elementwise("minimum", np.minimum, "minimum", 2, complex_fn="minimum_c")
maximum = _Elementwise("maximum", np.maximum, "maximum", 2, complex_fn="maximum_c")
_floor_f = _Elementwise("floor", np.floor, "floor", 1)
_ceil_f = _Elementwise("ceil", np.ceil, "ceil", 1)
_where = _Elementwise("where", np.where, "where", 3)
_clip = _Elementwise("clip", np.clip, "clip", 3, complex_fn="clip_c")
_clip_lo = _Elementwise("clip", lambda x, lo, **kw: np.clip(x, lo, None, **kw), "clip_lo", 2,
                        complex_fn="maximum_c")
_clip_hi = _Elementwise("clip", lambda x, hi, **kw: np.clip(x, None, hi, **kw), "clip_hi", 2,
                        complex_fn="minimum_c")


def floor(x, out=None):
    """NumPy's floor: integers and booleans unchanged, floats rounded down."""
    x = _array(x)
    if x.dtype.kind in "biu":
        np.floor(np.empty(0, x.dtype))
        return x.copy() if out is None else _to_out(x, out)
    return _floor_f(x, out=out)


def ceil(x, out=None):
    """NumPy's ceil: integers and booleans unchanged, floats rounded up."""
    x = _array(x)
    if x.dtype.kind in "biu":
        np.ceil(np.empty(0, x.dtype))
        return x.copy() if out is None else _to_out(x, out)
    return _ceil_f(x, out=out)


def where(condition, x, y):
    """Elements of x where condition is true, else of y (all three broadcast)."""
    return _where(condition, x, y)


def clip(a, a_min=None, a_max=None, out=None):
    """minimum(maximum(a, a_min), a_max), NaN propagating.  A Python int bound
    beyond an integer array's range on its harmless side is clamped to it
    (NumPy's rule; on the other side NumPy's OverflowError)."""
    if a_min is None and a_max is None:
        raise ValueError("One of max or min must be given")
    x = _array(a) if not isinstance(a, _PYNUM) else a
    dt = _kind(_operand(x))
    if isinstance(dt, np.dtype) and dt.kind in "iu":
        info = np.iinfo(dt)
        if type(a_min) is int and a_min < info.min:
            a_min = int(info.min)
        if type(a_max) is int and a_max > info.max:
            a_max = int(info.max)
    if a_min is None:
        return _clip_hi(x, a_max, out=out)
    if a_max is None:
        return _clip_lo(x, a_min, out=out)
    return _clip(x, a_min, a_max, out=out)


# ---- reductions ----

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


amin, amax = min, max


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


def _use_rows(rows, n):
    """One thread per row (sequential) rather than blocks per row."""
    return n <= 16 or (rows >= 16384 and n <= 1024)


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
            arg_blocks[(splits, _b.min(rows, 65535)), 256](x3, part, mx)
            if splits >= 32 and rows < 4096:
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
    _spec("scan", "partials", ACC=acc)[(splits, gy), nt](x3, part, chunk)
    _spec("scan", "carries", ACC=acc)[gy, nt](part)
    _spec("scan", "finish", ACC=acc)[(splits, gy), nt](x3, o3, part, chunk)


def _check_dtype(dt, fname):
    if dt not in _SUPPORTED:
        raise TypeError("cujit.%s(): dtype %s is not supported" % (fname, dt))


# ---- shapes and views ----

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


# ---- creation ----

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


# ---- NumPy's protocols: __array_ufunc__ and __array_function__ ----
#
# numpy.sqrt(a), numpy.add(a, b, out=c), numpy.add.reduce(a), ndarray + a and
# numpy.sum(a) on DeviceArrays run as the functions above.  Operands are what
# those take (host arrays and lists are copied to the device, as for
# DeviceArray's operators: ndarray + DeviceArray is numpy.add); an out= must
# be a DeviceArray.  What has no device version raises TypeError saying so.

_UFUNCS = {
    np.add: add, np.subtract: subtract, np.multiply: multiply, np.true_divide: true_divide,
    np.floor_divide: floor_divide, np.remainder: remainder, np.divmod: _divmod,
    np.power: power, np.negative: negative, np.positive: positive, np.absolute: absolute,
    np.invert: invert, np.sqrt: sqrt, np.exp: exp, np.log: log, np.sin: sin, np.cos: cos,
    np.tan: tan, np.tanh: tanh, np.arctan2: arctan2, np.floor: floor, np.ceil: ceil,
    np.minimum: minimum, np.maximum: maximum, np.isnan: isnan, np.less: less,
    np.less_equal: less_equal, np.equal: equal, np.not_equal: not_equal, np.greater: greater,
    np.greater_equal: greater_equal, np.bitwise_and: bitwise_and, np.bitwise_or: bitwise_or,
    np.bitwise_xor: bitwise_xor, np.left_shift: left_shift, np.right_shift: right_shift,
    np.logical_and: logical_and, np.logical_or: logical_or, np.logical_xor: logical_xor,
    np.logical_not: logical_not,
}
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


# ---- the operator table, registered with the C type ----

def _pow_operator(a, b):
    """a ** b: NumPy's ** squares for a Python 2, which for booleans is int8."""
    if type(b) is int and b == 2 and type(a) is DeviceArray and a.dtype == _BOOL:
        return _ek("power_i1")(a, b)
    return power.operator(a, b)


def _ops():
    d = {
        "add": add.operator, "sub": subtract.operator, "mul": multiply.operator,
        "truediv": true_divide.operator, "floordiv": floor_divide.operator,
        "mod": remainder.operator, "pow": _pow_operator, "divmod": _divmod.operator,
        "lshift": left_shift.operator, "rshift": right_shift.operator,
        "and": bitwise_and.operator, "or": bitwise_or.operator, "xor": bitwise_xor.operator,
        "iadd": add.inplace, "isub": subtract.inplace, "imul": multiply.inplace,
        "itruediv": true_divide.inplace, "ifloordiv": floor_divide.inplace,
        "imod": remainder.inplace, "ipow": power.inplace, "ilshift": left_shift.inplace,
        "irshift": right_shift.inplace, "iand": bitwise_and.inplace,
        "ior": bitwise_or.inplace, "ixor": bitwise_xor.inplace,
        "neg": negative.operator, "pos": positive.operator, "abs": absolute.operator,
        "invert": invert.operator,
        "lt": less.operator, "le": less_equal.operator, "eq": equal.operator,
        "ne": not_equal.operator, "gt": greater.operator, "ge": greater_equal.operator,
        "sum": sum, "prod": prod, "min": min, "max": max, "mean": mean, "argmin": argmin,
        "argmax": argmax, "any": any, "all": all, "cumsum": cumsum, "astype": astype,
        "fill": _fill, "reshape": reshape, "ravel": ravel, "flatten": _flatten,
        "transpose": transpose, "squeeze": squeeze, "real": _real, "imag": _imag,
        "array_ufunc": _array_ufunc, "array_function": _array_function, "assign": _assign,
    }
    return d


_C._set_array_ops(_ops())
