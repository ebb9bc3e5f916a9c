"""Numba's type objects for cujit.cuda: ``float32``, ``int32[:]``,
``float64[:, ::1]``, ``void(float32[:], int32)``, ``cuda.types.uint8``,
``types.Array(float32, 2, "C")``, ``types.UniTuple(int32, 3)``, the domains.

A Numba user writes signatures and dtypes with these; cujit's own spelling
is the signature string they convert to (``signature_string(void(float32[:],
int32))`` is ``"void(float32[:], int32)"``, which cujit's signature parser
reads).  A scalar type also stands for its dtype: inside kernels
(``cuda.local.array(4, float32)``, ``float32(x)``: the frontend reads its
``__cujit_dtype__``) and on the host (``np.dtype(float32)``,
``cuda.device_array(n, float32)``: its ``dtype`` attribute).

The classes are Numba's (``Type``, ``Number``, ``Integer``, ``Float``,
``Complex``, ``Boolean``, ``NoneType``, ``Array``, ``Tuple``, ``UniTuple``,
``Optional``, ``Omitted``, ``IntegerLiteral``, ...) with the attributes
Numba's tests and users read (``bitwidth``, ``signed``, ``underlying_float``,
``dtype``, ``ndim``, ``layout``, ``count``), and like Numba's they are
interned: constructing a type equal to an existing one returns that object
(``types.NoneType("none") is types.none``).  Numba's own objects
(``numba.float32``, ``numba.types.int32[:, ::1]``, ``numba.void(...)``),
where numba is installed, are read by their attributes without importing
numba."""
import numpy as np


# ---- the classes ----

class _Interned(type):
    """Numba's types are interned: Class(args) returns the object already
    made for an equal type, so `is` compares them as Numba's tests do."""

    def __call__(cls, *args, **kwargs):
        t = super().__call__(*args, **kwargs)
        try:
            return _INTERNED.setdefault((type(t), t.key), t)
        except TypeError:           # an unhashable key (Omitted of a list): not interned
            return t


_INTERNED = {}


class Type(metaclass=_Interned):
    """numba.types.Type: the base of every type.  ``t[:]`` of a scalar type
    is an array type; ``t(args...)`` with types is a signature, with one
    value a cast (a NumPy scalar)."""

    mutable = False

    def __init__(self, name):
        self.name = name

    @property
    def key(self):
        return self.name

    def __str__(self):
        return self.name

    def __repr__(self):
        return self.name

    def __eq__(self, other):
        return self.__class__ is other.__class__ and self.key == other.key

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((self.__class__.__name__, self.key))

    def __getitem__(self, key):
        raise TypeError(f"{self} has no array type: array types are of numbers and "
                        "booleans (float32[:], int32[:, ::1])")

    def __call__(self, *args):
        if len(args) == 1 and not _is_type(args[0]):
            return self.cast_python_value(args[0])
        return Signature(self, args)

    def cast_python_value(self, value):
        raise TypeError(f"{self.name}() takes types (a signature) or, for a number "
                        "type, one value (a cast)")

    # numba.types.Type's predicates, for code that asks them
    is_precise = staticmethod(lambda: True)

    def unify(self, typingctx, other):
        return None

    def can_convert_to(self, typingctx, other):
        return None

    def can_convert_from(self, typingctx, other):
        return None

    def augment(self, other):
        return None

    def dump(self, tab=""):
        print(f"{tab}DUMP {type(self).__name__}[code={id(self)}, name={self.name}]")


class Dummy(Type):
    """A type that is nothing but its name (numba.types.Dummy)."""


class Opaque(Dummy):
    """numba.types.Opaque"""


class Phantom(Dummy):
    """numba.types.Phantom"""


class Hashable(Type):
    """numba.types.Hashable"""


class NoneType(Opaque):
    """``types.none`` (also ``types.void``): a kernel's return type."""


class Omitted(Opaque):
    """An argument left out, with its default (numba.types.Omitted)."""

    def __init__(self, value):
        self._value = value
        super().__init__(f"omitted(default={value!r})")

    @property
    def key(self):
        return type(self._value), id(self._value)

    @property
    def value(self):
        return self._value


class RawPointer(Opaque):
    """``types.voidptr`` (numba.types.RawPointer)"""


class CPointer(Type):
    """``types.CPointer(dtype)``: a raw pointer to ``dtype`` values (a
    ``dtype *`` parameter in the CUDA; its str, ``int32*``, is cujit's
    signature spelling).  A launch passes the address as a Python int."""

    mutable = True

    def __init__(self, dtype, addrspace=None):
        self.dtype = dtype
        self.addrspace = addrspace
        super().__init__(f"{dtype}*")

    @property
    def key(self):
        return self.dtype, self.addrspace


class Scalar(Type):
    """A number or a boolean: its NumPy dtype is ``dtype`` (np.dtype(t)
    reads it) and ``__cujit_dtype__`` (the frontend reads it in kernels)."""

    def __init__(self, name, dtype=None):
        super().__init__(name)
        self.dtype = np.dtype(dtype if dtype is not None else name)
        self.__cujit_dtype__ = self.dtype.name

    @property
    def bitwidth(self):
        return self.dtype.itemsize * 8

    def __getitem__(self, key):
        ndim, layout = _layout(key)
        return Array(self, ndim, layout)

    def cast_python_value(self, value):
        return self.dtype.type(value)


class Boolean(Scalar, Hashable):
    """``types.boolean`` (``bool_``, ``b1``); its name is ``bool`` as Numba's"""

    def __init__(self, name="bool"):
        super().__init__(name, "bool")


class Number(Scalar, Hashable):
    """numba.types.Number: integers, floats and complex numbers"""


class Integer(Number):
    """``types.int32`` ...: ``bitwidth`` and ``signed``."""

    def __init__(self, name, bitwidth=None, signed=None):
        dt = np.dtype(name) if bitwidth is None else np.dtype(
            f"{'i' if signed or signed is None else 'u'}{bitwidth // 8}")
        super().__init__(name, dt)
        self.signed = self.dtype.kind == "i"

    @classmethod
    def from_bitwidth(cls, bitwidth, signed=True):
        return cls(f"{'int' if signed else 'uint'}{bitwidth}")

    @property
    def minval(self):
        return int(np.iinfo(self.dtype).min)

    @property
    def maxval(self):
        return int(np.iinfo(self.dtype).max)


class Float(Number):
    """``types.float32`` ...: ``bitwidth``."""

    def __init__(self, name, *args, **kwargs):
        super().__init__(name)


class BFloat16(Float):
    """``types.bfloat16`` (numba.cuda.types.bfloat16, ``cuda.bf16.bfloat16``):
    NumPy has no bfloat16, so its ``dtype`` is ml_dtypes' (imported at the
    first use of ``dtype``, not with cujit)."""

    def __init__(self, name="bfloat16"):
        Type.__init__(self, name)
        self.__cujit_dtype__ = "bfloat16"

    @property
    def dtype(self):
        try:
            import ml_dtypes
        except ImportError:
            raise TypeError("bfloat16 arrays and values on the host need the ml_dtypes "
                            "package (pip install ml_dtypes), whose dtype NumPy uses") from None
        return np.dtype(ml_dtypes.bfloat16)

    @property
    def bitwidth(self):
        return 16

    def cast_python_value(self, value):
        return self.dtype.type(value)


class Complex(Number):
    """``types.complex64``: ``bitwidth`` and ``underlying_float`` (float32)."""

    def __init__(self, name, underlying_float, *args, **kwargs):
        super().__init__(name)
        self.underlying_float = underlying_float


class NPDatetime(Scalar):
    """``from_dtype(np.dtype('M8[D]'))``: ``datetime64[D]`` (``unit``).  On
    the device its values are int64 counts (kernels read such arrays as
    int64; vectorize and guvectorize view their results back:
    cujit/_dtforms.py)."""

    def __init__(self, unit):
        self.unit = unit
        super().__init__(f"datetime64[{unit}]" if unit else "datetime64",
                         f"M8[{unit}]" if unit else "M8")
        self.__cujit_dtype__ = "int64"


class NPTimedelta(NPDatetime):
    """``timedelta64[D]``: as NPDatetime, for NumPy's timedelta64"""

    def __init__(self, unit):
        Scalar.__init__(self, f"timedelta64[{unit}]" if unit else "timedelta64",
                        f"m8[{unit}]" if unit else "m8")
        self.unit = unit
        self.__cujit_dtype__ = "int64"


class Literal(Type):
    """numba.types.Literal: a compile-time constant value and its type."""

    def __init__(self, value):
        self._literal_value = value
        self.literal_type = _typeof_scalar(value)
        Type.__init__(self, f"Literal[{type(value).__name__}]({value!r})")

    @property
    def literal_value(self):
        return self._literal_value

    @property
    def key(self):
        return type(self._literal_value), self._literal_value


class IntegerLiteral(Literal, Integer):
    """``types.IntegerLiteral(3)``: the integer constant 3 (an int64)."""

    def __init__(self, value):
        Literal.__init__(self, value)
        self.dtype = np.dtype("int64")
        self.__cujit_dtype__ = "int64"
        self.signed = True


class BooleanLiteral(Literal, Boolean):
    """``types.BooleanLiteral(True)``"""

    def __init__(self, value):
        Literal.__init__(self, value)
        self.dtype = np.dtype("bool")
        self.__cujit_dtype__ = "bool"


class Optional(Type):
    """``types.Optional(int32)``: an int32 or None (``.type``)."""

    def __init__(self, typ):
        self.type = typ
        super().__init__(f"OptionalType({typ})")

    @property
    def key(self):
        return self.type


class Record(Type):
    """``from_dtype(np.dtype([('a', 'f8'), ...]))``: a structured dtype's
    type (``dtype``, ``fields``, ``size``, ``aligned``); ``rec[:]`` is an
    array of it.  Kernels compiled for the arrays they are given take such
    arrays; a signature names it as ``rec_<hex>`` (cujit/_recsig.py), aligned."""

    def __init__(self, dtype):
        self.dtype = np.dtype(dtype)
        self.size = self.dtype.itemsize
        self.aligned = self.dtype.isalignedstruct
        self.__cujit_dtype__ = self.dtype       # cuda.shared.array(n, dtype=rec) in kernels
        self.fields = {k: (from_dtype(v[0]) if v[0].names is None and v[0].shape == ()
                           else v[0], v[1]) for k, v in self.dtype.fields.items()}
        inner = ",".join(f"{k}[type={v[0]};offset={v[1]}]" for k, v in self.fields.items())
        super().__init__(f"Record({inner};{self.size};{self.aligned})")

    @property
    def key(self):
        return self.dtype.descr, self.size, self.aligned

    def __getitem__(self, key):
        ndim, layout = _layout(key)
        return Array(self, ndim, layout)


class Array(Type):
    """``types.Array(float32, 2, "C")`` = ``float32[:, ::1]``: ``dtype`` (the
    element's type), ``ndim``, ``layout`` ('C', 'F' or 'A'), ``readonly``."""

    mutable = True

    def __init__(self, dtype, ndim, layout="A", readonly=False, name=None, aligned=True):
        if not isinstance(dtype, (Scalar, Record)):
            dtype = _scalar_of(dtype)
        if not isinstance(ndim, int) or isinstance(ndim, bool) or ndim < 0:
            raise TypeError(f"types.Array: ndim must be an integer >= 0, not {ndim!r}")
        if layout not in ("C", "F", "A"):
            raise ValueError(f"types.Array: layout must be 'C', 'F' or 'A', not {layout!r}")
        self.dtype = dtype
        self.ndim = ndim
        self.layout = layout
        self.readonly = bool(readonly)
        self.mutable = not readonly
        self.aligned = aligned
        super().__init__(name or _array_string(dtype, ndim, layout))

    @property
    def key(self):
        return self.dtype, self.ndim, self.layout, self.mutable, self.aligned

    def copy(self, dtype=None, ndim=None, layout=None, readonly=None):
        return Array(self.dtype if dtype is None else dtype,
                     self.ndim if ndim is None else ndim,
                     self.layout if layout is None else layout,
                     self.readonly if readonly is None else readonly)

    @property
    def is_c_contig(self):
        return self.layout == "C" or (self.ndim <= 1 and self.layout in "CF")

    @property
    def is_f_contig(self):
        return self.layout == "F" or (self.ndim <= 1 and self.layout in "CF")

    @property
    def is_contig(self):
        return self.layout in "CF"

    def __repr__(self):
        return (f"Array({self.dtype}, {self.ndim}, {self.layout!r}, {self.readonly}, "
                f"aligned={self.aligned})")


class BaseTuple(Type):
    """What Tuple and UniTuple share: ``types``, ``count``, len() and
    indexing by position."""

    def __len__(self):
        return len(self.types)

    def __iter__(self):
        return iter(self.types)

    def __getitem__(self, i):
        return self.types[i]

    @property
    def count(self):
        return len(self.types)


class UniTuple(BaseTuple):
    """``types.UniTuple(int32, 3)``: a tuple of 3 int32 (``dtype``, ``count``)."""

    def __init__(self, dtype, count):
        self.dtype = dtype
        self._count = count
        self.types = (dtype,) * count
        super().__init__(f"UniTuple({dtype} x {count})")

    @property
    def count(self):
        return self._count

    @property
    def key(self):
        return self.dtype, self._count


class _TupleMeta(_Interned):
    def __call__(cls, types):
        types = tuple(types)
        if cls is Tuple and types and all(t == types[0] for t in types):
            return UniTuple(types[0], len(types))    # as Numba: a homogeneous one
        return super().__call__(types)


class Tuple(BaseTuple, metaclass=_TupleMeta):
    """``types.Tuple((int32, float32))``; a homogeneous one is a UniTuple."""

    def __init__(self, types):
        self.types = tuple(types)
        super().__init__(f"Tuple({', '.join(map(str, self.types))})")

    @property
    def key(self):
        return self.types

    @classmethod
    def from_types(cls, tys):
        return Tuple(tys)


class List(Type):
    """``types.List(int32)``: a type name only; kernels have no lists."""

    def __init__(self, dtype, reflected=False, initial_value=None):
        self.dtype = dtype
        self.reflected = reflected
        super().__init__(f"{'reflected ' if reflected else ''}list({dtype})")

    @property
    def key(self):
        return self.dtype, self.reflected


class Set(Type):
    """``types.Set(int32)``: a type name only; kernels have no sets."""

    def __init__(self, dtype, reflected=False):
        self.dtype = dtype
        self.reflected = reflected
        super().__init__(f"{'reflected ' if reflected else ''}set({dtype})")

    @property
    def key(self):
        return self.dtype, self.reflected


# ---- signatures ----

class Signature:
    """``int32(int32, int32)``, ``void(float32[:], int32)``: ``return_type``
    and ``args``.  Everything that takes a signature string takes one:
    cuda.jit, vectorize, guvectorize, compile_ptx."""

    def __init__(self, return_type, args, recvr=None, pysig=None):
        self.return_type = return_type
        self.args = tuple(args)
        self.recvr = recvr
        self.pysig = pysig

    def __str__(self):
        return signature_string(self)

    def __repr__(self):
        return f"({', '.join(map(str, self.args))}) -> {self.return_type}"

    def __eq__(self, other):
        return (isinstance(other, Signature) and self.return_type == other.return_type
                and self.args == other.args and self.recvr == other.recvr)

    def __hash__(self):
        return hash((self.return_type, self.args))

    def replace(self, **kwargs):
        d = dict(return_type=self.return_type, args=self.args, recvr=self.recvr,
                 pysig=self.pysig)
        d.update(kwargs)
        return Signature(d["return_type"], d["args"], d["recvr"], d["pysig"])

    def as_function(self):
        return Signature(self.return_type, self.args)

    @property
    def is_method(self):
        return self.recvr is not None


def signature(return_type, *args, **kws):
    """numba.core.typing.signature: Signature(return_type, args)"""
    return Signature(return_type, args, recvr=kws.get("recvr"))


# ---- helpers ----

def _layout(key):
    """(ndim, 'C', 'F' or 'A') of Numba's slice spelling: [:], [::1], [:, ::1], [::1, :]"""
    key = key if isinstance(key, tuple) else (key,)
    steps = []
    for s in key:
        if not isinstance(s, slice) or s.start is not None or s.stop is not None \
                or s.step not in (None, 1):
            raise TypeError("an array type is written with ':' and '::1' only, as in "
                            "float32[:], float32[::1], float32[:, ::1] or float32[::1, :]")
        steps.append(s.step)
    unit = [i for i, st in enumerate(steps) if st == 1]
    if not unit:
        return len(key), "A"
    if unit == [len(key) - 1]:
        return len(key), "C"
    if unit == [0] and len(key) > 1:
        return len(key), "F"
    raise TypeError("only the last (C order) or the first (F order) dimension of an "
                    "array type can be '::1'")


def _dims(ndim, layout):
    """Numba's slice spelling of an array's dimensions: [:, ::1]"""
    dims = [":"] * ndim
    if layout == "C" and ndim:
        dims[-1] = "::1"
    elif layout == "F" and ndim:
        dims[0] = "::1"
    return f"[{', '.join(dims)}]"


def _array_string(dtype, ndim, layout):
    """cujit's (and Numba's slice) spelling: float32[:, ::1]"""
    if isinstance(dtype, Record):
        return f"array({dtype}, {ndim}d, {layout})"     # Numba's spelling (its name)
    return f"{type_string(dtype)}{_dims(ndim, layout)}"


def _recsig():
    from cujit import _recsig
    return _recsig


def _scalar_of(dtype):
    """The scalar type of a dtype-like (np.float32, 'f4', numba's float32)"""
    if _from_numba(dtype):
        dtype = str(dtype)
    try:
        return from_dtype(np.dtype(dtype))
    except TypeError:
        raise TypeError(f"{dtype!r} is not a number or boolean type: an array's element "
                        "type is one of float32, int64, complex64, boolean ...") from None


def from_dtype(dtype):
    """The scalar type of a NumPy dtype (numba.np.numpy_support.from_dtype)"""
    dt = np.dtype(dtype)
    if dt.names is not None:
        return Record(dt)
    if dt.kind in "Mm":
        unit = np.datetime_data(dt)[0]
        return (NPDatetime if dt.kind == "M" else NPTimedelta)("" if unit == "generic" else unit)
    t = TYPES.get(dt.name)
    if t is None or not isinstance(t, Scalar):
        raise TypeError(f"cujit has no type for dtype {dt}")
    return t


def _typeof_scalar(value):
    if isinstance(value, (bool, np.bool_)):
        return TYPES["boolean"]
    if isinstance(value, np.generic):
        return from_dtype(value.dtype)
    if isinstance(value, int):
        return TYPES["int64"]
    if isinstance(value, float):
        return TYPES["float64"]
    if isinstance(value, complex):
        return TYPES["complex128"]
    return None


def typeof(value):
    """numba.typeof for what kernels take: numbers, arrays (NumPy's, and any
    with __cuda_array_interface__ or a dtype, shape and strides), tuples, None."""
    t = _typeof_scalar(value)
    if t is not None:
        return t
    if value is None:
        return TYPES["none"]
    if isinstance(value, tuple):
        return Tuple([typeof(v) for v in value])
    if isinstance(value, np.ndarray):
        flags = value.flags
        layout = "C" if flags.c_contiguous else "F" if flags.f_contiguous else "A"
        return Array(from_dtype(value.dtype), value.ndim, layout,
                     readonly=not flags.writeable)
    cai = getattr(value, "__cuda_array_interface__", None)
    if cai is not None:
        dt = np.dtype(cai["typestr"])
        shape, strides = tuple(cai["shape"]), cai.get("strides")
        layout = "C" if strides is None or _c_contig(shape, strides, dt.itemsize) else \
            "F" if _c_contig(shape[::-1], tuple(strides)[::-1], dt.itemsize) else "A"
        return Array(from_dtype(dt), len(shape), layout)
    raise ValueError(f"cujit cannot type {type(value).__name__} values: kernels take "
                     "numbers, arrays and tuples of them")


def _c_contig(shape, strides, itemsize):
    expect = itemsize
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != expect:
            return False
        expect *= n
    return True


def _from_numba(t):
    """Is t one of numba's own type objects (numba.core.types...)?"""
    return type(t).__module__.split(".")[0] == "numba"


def _is_type(t):
    return isinstance(t, (Type, str)) or (_from_numba(t) and not is_signature(t))


def type_string(t):
    """cujit's spelling of a type: a string as it is, cujit.cuda's types by
    their str (none -> void, UniTuple(int32 x 2) -> Tuple(int32, int32)),
    numba's by their attributes (array(float32, 2d, C) -> float32[:, ::1])."""
    if isinstance(t, str):
        return _recsig().rewrite(t) if "Record(" in t else t
    if isinstance(t, NoneType):
        return "void"
    if isinstance(t, Record):
        return _recsig().sig_name(t.dtype, str(t))
    if isinstance(t, Array) and isinstance(t.dtype, Record):
        return _recsig().sig_name(t.dtype.dtype, str(t.dtype)) + _dims(t.ndim, t.layout)
    if isinstance(t, Array):
        return t.name if t.name.endswith("]") else _array_string(t.dtype, t.ndim, t.layout)
    if isinstance(t, BaseTuple):
        return f"Tuple({', '.join(type_string(e) for e in t.types)})"
    if isinstance(t, Literal):
        return type_string(t.literal_type)
    if isinstance(t, CPointer):
        return _pointer_string(t)
    if isinstance(t, Scalar):
        return t.dtype.name
    if isinstance(t, Type) and hasattr(t, "signature_name"):
        return t.signature_name         # a CUDA vector type (_vectypes.py): float32x4
    if isinstance(t, Type):
        raise TypeError(f"cujit's kernels cannot take {t} in a signature: give numbers, "
                        "arrays (float32[:]) or tuples of numbers")
    if _from_numba(t):
        if type(t).__name__ == "Record":
            return _recsig().sig_name(t.dtype, str(t))
        if hasattr(t, "ndim") and hasattr(t, "layout") and hasattr(t, "dtype"):
            if type(t.dtype).__name__ == "Record":
                return _recsig().sig_name(t.dtype.dtype, str(t.dtype)) + _dims(t.ndim, t.layout)
            return _array_string(t.dtype, t.ndim, t.layout)
        if hasattr(t, "types") and hasattr(t, "count"):
            return f"Tuple({', '.join(type_string(e) for e in t.types)})"
        if type(t).__name__ == "CPointer":
            return _pointer_string(t)
        s = str(t)
        return "void" if s == "none" else s
    raise TypeError(f"{t!r} is not a type: give a signature string, cujit.cuda's types "
                    "(float32, int32[:]) or numba's")


def _pointer_string(t):
    """A CPointer's spelling, "float32*": a pointer to a number only"""
    inner = type_string(t.dtype)
    if not inner.replace("_", "").isalnum() or inner in ("void", "none"):
        raise TypeError(f"{t}: cujit's kernels take pointers to numbers only "
                        "(types.CPointer(types.float32))")
    return inner + "*"


def is_signature(s):
    """A signature object (cujit.cuda's or numba's), not a string or function"""
    return isinstance(s, Signature) or (_from_numba(s) and hasattr(s, "args")
                                        and hasattr(s, "return_type"))


def signature_string(s):
    """A signature as cujit's string: a string, a Signature, numba's
    signature, or a tuple of argument types."""
    if isinstance(s, str):
        return _recsig().rewrite(s) if "Record(" in s else s
    if isinstance(s, (tuple, list)):
        return "(" + ", ".join(type_string(t) for t in s) + ")"
    if is_signature(s):
        ret = type_string(s.return_type) if s.return_type is not None else "void"
        return f"{ret}({', '.join(type_string(t) for t in s.args)})"
    raise TypeError(f"{s!r} is not a signature: give a string such as "
                    "'void(float32[:], int32)', void(float32[:], int32) or a tuple of types")


def return_type_of(s):
    """The return type a signature (string, object or tuple) gives, as
    cujit's string; None where it gives none (a tuple of argument types)."""
    if isinstance(s, (tuple, list)):
        return None
    if is_signature(s):
        return type_string(s.return_type) if s.return_type is not None else "void"
    text = signature_string(s).strip()
    if text.startswith("(") or "(" not in text:
        return None
    return text[:text.index("(")].strip()


# ---- the names ----

# Numba's names (numba.types / from numba import ...) -> NumPy dtype
SCALARS = {
    "boolean": "bool", "bool_": "bool", "b1": "bool", "bool": "bool",
    "int8": "int8", "i1": "int8", "int16": "int16", "i2": "int16",
    "int32": "int32", "i4": "int32", "int64": "int64", "i8": "int64",
    "intp": "int64", "intc": "int32", "byte": "int8", "char": "int8", "short": "int16",
    "int_": "int64", "long_": "int64", "longlong": "int64", "ssize_t": "int64",
    "uint8": "uint8", "u1": "uint8", "uint16": "uint16", "u2": "uint16",
    "uint32": "uint32", "u4": "uint32", "uint64": "uint64", "u8": "uint64",
    "uintp": "uint64", "uintc": "uint32", "uchar": "uint8", "ushort": "uint16",
    "uint": "uint64", "ulong": "uint64", "ulonglong": "uint64", "size_t": "uint64",
    "float16": "float16", "f2": "float16", "float32": "float32", "f4": "float32",
    "float64": "float64", "f8": "float64", "double": "float64",
    "complex64": "complex64", "c8": "complex64", "complex128": "complex128",
    "c16": "complex128",
}


def _scalar(dt):
    kind = np.dtype(dt).kind
    if kind == "b":
        return Boolean("bool")
    if kind in "iu":
        return Integer(dt)
    if kind == "f":
        return Float(dt)
    half = {"complex64": "float32", "complex128": "float64"}[dt]
    return Complex(dt, Float(half))


def _make():
    one = {dt: _scalar(dt) for dt in ("bool", "float16", "float32", "float64", "int8",
                                      "int16", "int32", "int64", "uint8", "uint16",
                                      "uint32", "uint64", "complex64", "complex128")}
    out = {name: one[dt] for name, dt in SCALARS.items()}     # aliases: the same object
    out["void"] = out["none"] = NoneType("none")
    out["bfloat16"] = BFloat16()
    return out


TYPES = _make()
# the names cujit.cuda exports (from numba import float32 ... ; numba.cuda.float32)
EXPORTED = {k: v for k, v in TYPES.items() if k not in ("bool", "char", "uint")}

_t = TYPES
integer_domain = frozenset(_t[n] for n in ("int8", "int16", "int32", "int64", "uint8",
                                           "uint16", "uint32", "uint64"))
signed_domain = frozenset(t for t in integer_domain if t.signed)
unsigned_domain = frozenset(t for t in integer_domain if not t.signed)
real_domain = frozenset((_t["float32"], _t["float64"]))
complex_domain = frozenset((_t["complex64"], _t["complex128"]))
number_domain = real_domain | integer_domain | complex_domain
del _t

_CLASSES = (Type, Dummy, Opaque, Phantom, Hashable, NoneType, Omitted, RawPointer, CPointer,
            Scalar, NPDatetime, NPTimedelta,
            Boolean, Number, Integer, Float, BFloat16, Complex, Literal, IntegerLiteral,
            BooleanLiteral, Optional, Record, Array, BaseTuple, Tuple, UniTuple, List, Set)


class _Types:
    """cuda.types: numba.types' names (scalar types, the classes, the
    domains, voidptr, none / void)."""

    def __init__(self):
        self.__dict__.update(TYPES)
        self.__dict__.update({c.__name__: c for c in _CLASSES})
        self.Signature = Signature
        self.voidptr = RawPointer("void*")
        self.integer_domain = integer_domain
        self.signed_domain = signed_domain
        self.unsigned_domain = unsigned_domain
        self.real_domain = real_domain
        self.complex_domain = complex_domain
        self.number_domain = number_domain
        self.optional = Optional
        self.literal = lambda value: IntegerLiteral(value) if isinstance(value, int) \
            and not isinstance(value, bool) else Literal(value)
        self.unliteral = lambda t: t.literal_type if isinstance(t, Literal) else t

    def __repr__(self):
        return "<cujit.cuda.types>"


types = _Types()
