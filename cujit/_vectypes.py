"""CUDA's vector types in Numba's spelling: ``cuda.float32x4`` (alias
``cuda.float4``), ``cuda.int16x2`` (``cuda.short2``) ... for int8 to int64,
uint8 to uint64, float32 and float64 with 1 to 4 lanes.

In kernels and device functions, ``cuda.float32x4(x, y, z, w)`` makes a
vector (CUDA's ``float4``, by ``make_float4``), from numbers and smaller
vectors of the same element type whose lanes add up (``float32x4(v2, z,
w)``, ``float32x3(v3)``); ``v.x``, ``v.y``, ``v.z``, ``v.w`` read its
lanes; vectors are passed to and returned from device functions.  As in
Numba, they have no arithmetic, and no kernel takes one as an argument.

``vector_types`` (``cujit.cuda.vector_types``) maps each name to its type
object, Numba's ``VectorType``: ``name``, ``base_type``, ``num_elements``,
``attr_names`` and ``user_facing_object`` (the constructor).  A type object
also names the type in a device function's signature
(``cuda.jit(float32x2(float32x2), device=True)``, or the string
``"float32x2(float32x2)"``).  The frontend knows a constructor by its
``__cujit_builtin__`` tag, ``"vector.float32x4"``."""
import itertools

import numpy as np

from cujit import _ntypes

BASES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float32", "float64")
ATTR_NAMES = ("x", "y", "z", "w")


def _c_aliases():
    """CUDA's C names -> the element type they are on this platform (Numba's
    table: long is int64 on 64-bit Linux)"""
    c = {"char": np.byte, "short": np.short, "int": np.intc, "long": np.int_,
         "longlong": np.longlong, "uchar": np.ubyte, "ushort": np.ushort, "uint": np.uintc,
         "ulong": np.uint, "ulonglong": np.ulonglong, "float": np.single, "double": np.double}
    return {alias: np.dtype(t).name for alias, t in c.items()}


class VectorConstructor:
    """The object a kernel calls to make a vector (``cuda.float32x4``);
    ``aliases`` lists its other names (``float4``)."""

    def __init__(self, name):
        self.__name__ = self.__qualname__ = name
        self.__cujit_builtin__ = "vector." + name
        self.aliases = []

    def __repr__(self):
        return f"<{self.__name__}>"

    def __call__(self, *args):
        raise TypeError(f"cuda.{self.__name__}() makes a CUDA vector inside kernels and "
                        "device functions only; on the host, use a NumPy array of its lanes")


class VectorType(_ntypes.Type):
    """numba.cuda.vector_types.VectorType: a vector's type object."""

    def __init__(self, name, base_type, attr_names, user_facing_object):
        self._base_type = base_type
        self._attr_names = tuple(attr_names)
        self._user_facing_object = user_facing_object
        super().__init__(name)

    @property
    def base_type(self):
        return self._base_type

    @property
    def attr_names(self):
        return self._attr_names

    @property
    def num_elements(self):
        return len(self._attr_names)

    @property
    def user_facing_object(self):
        return self._user_facing_object

    @property
    def signature_name(self):
        """its spelling in cujit's signature strings: float32x4"""
        return self.name


def _make():
    types = {}
    for base, n in itertools.product(BASES, (1, 2, 3, 4)):
        name = f"{base}x{n}"
        types[name] = VectorType(name, _ntypes.TYPES[base], ATTR_NAMES[:n],
                                 VectorConstructor(name))
    for alias, base in _c_aliases().items():
        for n in (1, 2, 3, 4):
            types[f"{base}x{n}"].user_facing_object.aliases.append(f"{alias}{n}")
    return types


vector_types = _make()


def exported():
    """The names cujit.cuda gives the constructors: float32x4, float4 ..."""
    out = {}
    for name, vt in vector_types.items():
        ctor = vt.user_facing_object
        out[name] = ctor
        out.update({alias: ctor for alias in ctor.aliases})
    return out
