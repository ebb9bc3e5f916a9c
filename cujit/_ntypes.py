"""Numba's type objects for cujit.cuda: ``float32``, ``int32[:]``,
``float64[:, ::1]``, ``void(float32[:], int32)``, ``cuda.types.uint8``.

A Numba user writes signatures and dtypes with these; cujit's own spelling
is the signature string they print as (``str(void(float32[:], int32))`` is
``"void(float32[:], int32)"``, which cujit's signature parser reads).  A
scalar type also stands for its dtype: inside kernels (``cuda.local.array(4,
float32)``, ``float32(x)``: the frontend reads its ``__cujit_dtype__``) and
on the host (``np.dtype(float32)``, ``cuda.device_array(n, float32)``:
its ``dtype`` attribute).  Numba's own objects (``numba.float32``,
``numba.types.int32[:, ::1]``, ``numba.void(...)``), where numba is
installed, are read by their attributes (signature_string) without
importing numba."""
import numpy as np


class Type:
    """A scalar type (float32) or void; ``t[:]`` is an array type and
    ``t(args...)`` a signature (with values instead: a NumPy scalar)."""

    def __init__(self, name, dtype=None):
        self.name = name
        if dtype is not None:
            self.dtype = np.dtype(dtype)
            self.__cujit_dtype__ = self.dtype.name

    def __str__(self):
        return self.name

    def __repr__(self):
        return self.name

    def __eq__(self, other):
        return isinstance(other, Type) and other.name == self.name

    def __hash__(self):
        return hash(("cujit.cuda type", self.name))

    def __getitem__(self, key):
        if self.name == "void":
            raise TypeError("void has no array type")
        return Array(self, key)

    def __call__(self, *args):
        if all(_is_type(a) for a in args):
            return Signature(self, args)
        if self.name == "void" or len(args) != 1:
            raise TypeError(f"{self.name}() takes types (a signature) or one value (a cast)")
        return self.dtype.type(args[0])


def _layout(key):
    """'C', 'F' or 'A' of Numba's slice spelling: [:], [::1], [:, ::1], [::1, :]"""
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


class Array:
    """``float32[:, ::1]``: dtype, ndim and layout ('C', 'F' or 'A')."""

    def __init__(self, dtype, key):
        self.dtype_type = dtype
        self.dtype = dtype.dtype
        self.ndim, self.layout = _layout(key)

    def __str__(self):
        n, lay = self.ndim, self.layout
        dims = [":"] * n
        if lay == "C":
            dims[-1] = "::1"
        elif lay == "F":
            dims[0] = "::1"
        return f"{self.dtype_type.name}[{', '.join(dims)}]"

    __repr__ = __str__

    def __eq__(self, other):
        return isinstance(other, Array) and str(other) == str(self)

    def __hash__(self):
        return hash(str(self))


class Signature:
    """``void(float32[:], int32)``: what ``@cuda.jit(sig)`` takes."""

    def __init__(self, return_type, args):
        self.return_type = return_type
        self.args = tuple(args)

    def __str__(self):
        return f"{type_string(self.return_type)}({', '.join(map(type_string, self.args))})"

    __repr__ = __str__


def _from_numba(t):
    """Is t one of numba's own type objects (numba.core.types...)?"""
    return type(t).__module__.split(".")[0] == "numba"


def _is_type(t):
    return isinstance(t, (Type, Array, str)) or _from_numba(t)


def type_string(t):
    """cujit's spelling of a type: a string as it is, cujit.cuda's types by
    their str, numba's by their attributes (array(float32, 2d, C) ->
    float32[:, ::1]; none -> void)."""
    if isinstance(t, (str, Type, Array)):
        return str(t)
    if _from_numba(t):
        if hasattr(t, "ndim") and hasattr(t, "layout") and hasattr(t, "dtype"):
            dims = [":"] * t.ndim
            if t.layout == "C" and t.ndim:
                dims[-1] = "::1"
            elif t.layout == "F" and t.ndim:
                dims[0] = "::1"
            return f"{type_string(t.dtype)}[{', '.join(dims)}]"
        s = str(t)
        return "void" if s == "none" else s
    raise TypeError(f"{t!r} is not a type: give a signature string, cujit.cuda's types "
                    "(float32, int32[:]) or numba's")


def is_signature(s):
    """A signature object (cujit.cuda's or numba's), not a string or function"""
    return isinstance(s, Signature) or (_from_numba(s) and hasattr(s, "args")
                                        and hasattr(s, "return_type"))


def signature_string(s):
    """A signature as cujit's string: a string, a Signature, numba's
    signature, or a tuple of argument types."""
    if isinstance(s, str):
        return s
    if isinstance(s, (tuple, list)):
        return "(" + ", ".join(type_string(t) for t in s) + ")"
    if is_signature(s):
        ret = type_string(s.return_type) if s.return_type is not None else "void"
        return f"{ret}({', '.join(type_string(t) for t in s.args)})"
    raise TypeError(f"{s!r} is not a signature: give a string such as "
                    "'void(float32[:], int32)', void(float32[:], int32) or a tuple of types")


# Numba's names (numba.types / from numba import ...) -> NumPy dtype
SCALARS = {
    "boolean": "bool", "bool_": "bool", "b1": "bool",
    "int8": "int8", "i1": "int8", "int16": "int16", "i2": "int16",
    "int32": "int32", "i4": "int32", "int64": "int64", "i8": "int64",
    "intp": "int64", "intc": "int32",
    "uint8": "uint8", "u1": "uint8", "uint16": "uint16", "u2": "uint16",
    "uint32": "uint32", "u4": "uint32", "uint64": "uint64", "u8": "uint64",
    "uintp": "uint64", "uintc": "uint32",
    "float16": "float16", "f2": "float16", "float32": "float32", "f4": "float32",
    "float64": "float64", "f8": "float64", "double": "float64",
    "complex64": "complex64", "c8": "complex64", "complex128": "complex128",
    "c16": "complex128",
}


def _make():
    one = {dt: Type(np.dtype(dt).name, dt) for dt in set(SCALARS.values())}
    out = {name: one[dt] for name, dt in SCALARS.items()}     # aliases: the same object
    out["void"] = out["none"] = Type("void")
    return out


TYPES = _make()


class _Types:
    """cuda.types: numba.types' scalar names"""

    def __init__(self):
        self.__dict__.update(TYPES)
        self.Array = Array
        self.Signature = Signature

    def __repr__(self):
        return "<cujit.cuda.types>"


types = _Types()
