"""cujit.bf16: Numba's ``numba.cuda.bf16`` (``from cujit.cuda.bf16 import
hadd``), on cujit's own bfloat16.

``bfloat16`` (also ``nv_bfloat16``, numba.cuda._internal.cuda_bf16's name) is
the type: ``bfloat16(x)`` in a kernel converts, rounding to nearest even.
The functions are cuda_bf16.h's (``hadd``, ``hfma``, ``hmax_nan``,
``hisinf``, ``float2bfloat16_rz``, ``bfloat162int_rd``, ...; with their
``__`` prefix too) and Numba's NumPy-style spellings of the conversions
(``float32_to_bfloat16``, ``bfloat16_to_int16_rn``, ``int16_as_bfloat16``,
...).  Each is a name the compiler knows (common/intrin.c's ``bf16.*`` rows,
prelude.c's ``cj_bf_*``): calling one outside a kernel raises.
"""
from cujit import _ntypes
from cujit._cujit import _intrinsics

bfloat16 = nv_bfloat16 = _ntypes.TYPES["bfloat16"]


class _Function:
    """A cuda.bf16 function: it means something inside kernels only."""

    def __init__(self, name, tag):
        self.__name__ = name
        self.__cujit_builtin__ = tag    # the intrinsic's row (frontend/names.c)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"cuda.bf16.{self.__name__}() can only be used inside a "
                           "@cuda.jit function")

    def __repr__(self):
        return f"<cujit builtin cuda.bf16.{self.__name__}>"


# Numba's NumPy-style names -> cuda_bf16.h's
_ROUNDINGS = ("rn", "rz", "rd", "ru")
_INTS = {"int16": "short", "uint16": "ushort", "int32": "int", "uint32": "uint",
         "int64": "ll", "uint64": "ull"}
_ALIASES = {
    "float32_to_bfloat16": "float2bfloat16", "float64_to_bfloat16": "double2bfloat16",
    "bfloat16_to_float32": "bfloat162float",
    "bfloat16_to_int8_rz": "bfloat162char_rz", "bfloat16_to_uint8_rz": "bfloat162uchar_rz",
    "bfloat16_as_int16": "bfloat16_as_short", "bfloat16_as_uint16": "bfloat16_as_ushort",
    "int16_as_bfloat16": "short_as_bfloat16", "uint16_as_bfloat16": "ushort_as_bfloat16",
    **{f"float32_to_bfloat16_{m}": f"float2bfloat16_{m}" for m in _ROUNDINGS},
    **{f"{np_name}_to_bfloat16_{m}": f"{c}2bfloat16_{m}"
       for np_name, c in _INTS.items() for m in _ROUNDINGS},
    **{f"bfloat16_to_{np_name}_{m}": f"bfloat162{c}_{m}"
       for np_name, c in _INTS.items() for m in _ROUNDINGS},
}


def _install():
    names = {}
    for tag in _intrinsics():
        owner, _, name = tag.partition(".")
        if owner == "bf16":
            names[name] = _Function(name, tag)
    for alias, name in _ALIASES.items():
        names[alias] = names[name]
    names.update({"__" + k: v for k, v in list(names.items())})   # cuda_bf16.h's spelling
    globals().update(names)
    return sorted(k for k in names if not k.startswith("__"))


__all__ = ["bfloat16", "nv_bfloat16"] + _install()
