"""Elementwise operations: NumPy's ufunc semantics (result dtypes and errors
checked against NumPy once per signature, in-place casting, Python ints out
of range) over the @vectorize kernels of kernels/elementwise.py, and the
functions built on them (floor, ceil, where, clip)."""
import builtins as _b

import numpy as np

from cujit import _cujit as _C

from ._load import _ek, _spec
from ._operands import (
    _array, _astype, _BOOL, _broadcast_view, _copy_into, DeviceArray, _F16, _F32, _F64, _is_array,
    _kind, _np_dummy, _operand, _overlaps, _PYNUM, _same_view, _shape, _takes, _to_out,
    _Unsupported, _WC, _WI)


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


class _Power(_Elementwise):
    """numpy.power, whose operator form has one case of its own."""

    def operator(self, a, b):
        """a ** b: NumPy's ** squares for a Python 2, which for booleans is int8."""
        if type(b) is int and b == 2 and type(a) is DeviceArray and a.dtype == _BOOL:
            return _ek("power_i1")(a, b)
        return _Elementwise.operator(self, a, b)


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


def _math(name, npfunc):
    return _Elementwise(name, npfunc, name, 1, variants={_F16: name + "_f2"},
                        complex_fn=name + "_c")


add = _Elementwise("add", np.add, "add", 2)
subtract = _Elementwise("subtract", np.subtract, "subtract", 2)
multiply = _Elementwise("multiply", np.multiply, "multiply", 2)
true_divide = _Elementwise("true_divide", np.true_divide, "true_divide", 2)
floor_divide = _Elementwise("floor_divide", np.floor_divide, "floor_divide", 2)
remainder = _Elementwise("remainder", np.remainder, "remainder", 2)
_divmod = _Elementwise("divmod", np.divmod, "divmod_", 2, nout=2)
power = _Power("power", np.power, "power", 2, variants={np.dtype(np.int8): "power_i1"})
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
absolute = _Elementwise("absolute", np.absolute, "absolute", 1)
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
