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
from cujit import _cujit as _C

from ._load import _ek, _kmod                   # noqa: F401  (_kmod, _UFUNCS: for the tests)
from ._operands import _BOOL, DeviceArray
from .copies import _assign, _fill, astype, copy
from .creation import arange, linspace
from .elementwise import (
    abs, absolute, add, arctan2, bitwise_and, bitwise_or, bitwise_xor, ceil, clip, cos, divide,
    _divmod, equal, exp, floor, floor_divide, greater, greater_equal, invert, isnan,
    left_shift, less, less_equal, log, logical_and, logical_not, logical_or, logical_xor,
    maximum, minimum, mod, multiply, negative, not_equal, positive, power, remainder,
    right_shift, sin, sqrt, subtract, tan, tanh, true_divide, where)
from .protocols import _array_function, _array_ufunc, _UFUNCS   # noqa: F401
from .reductions import all, amax, amin, any, argmax, argmin, max, mean, min, prod, sum
from .scans import cumsum
from .shape import (
    ascontiguousarray, _flatten, _imag, ravel, _real, reshape, squeeze, transpose)

__all__ = ["add", "subtract", "multiply", "true_divide", "divide", "floor_divide",
           "remainder", "mod", "power", "bitwise_and", "bitwise_or", "bitwise_xor",
           "left_shift", "right_shift", "less", "less_equal", "equal", "not_equal", "greater",
           "greater_equal", "negative", "positive", "invert", "absolute", "abs", "sqrt", "exp",
           "log", "sin", "cos", "tan", "tanh", "arctan2", "floor", "ceil", "minimum", "maximum",
           "where", "clip", "isnan", "sum", "prod", "min", "max", "amin", "amax", "mean",
           "argmin", "argmax", "any", "all", "cumsum", "arange", "linspace", "astype",
           "reshape", "ravel", "transpose", "squeeze", "ascontiguousarray", "copy",
           "logical_and", "logical_or", "logical_xor", "logical_not"]


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
