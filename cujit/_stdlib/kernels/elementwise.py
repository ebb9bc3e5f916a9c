"""Elementwise kernels behind DeviceArray's operators and cujit's math
functions: scalar functions in the kernel language, each made a @vectorize
(typed per call with NumPy 2 promotion and NEP 50 weak Python scalars, so
`add` on int8 and a Python int stays int8, as NumPy's `+` does).

cujit/_stdlib/elementwise.py holds the NumPy semantics around them (result dtypes checked
against NumPy's, errors, in-place casting, scalars out of range); these are
only the kernels.  Loaded by path, not as a package."""
import math
import types

import numpy as np

from cujit import vectorize

# ---- arithmetic and bitwise operators ----


def add(a, b):
    return a + b


def subtract(a, b):
    return a - b


def multiply(a, b):
    return a * b


def true_divide(a, b):
    return a / b


def floor_divide(a, b):
    return a // b


def remainder(a, b):
    return a % b


def divmod_(a, b):
    return a // b, a % b


def power(a, b):
    return a ** b


def bitwise_and(a, b):
    return a & b


def bitwise_or(a, b):
    return a | b


def bitwise_xor(a, b):
    return a ^ b


def left_shift(a, b):
    return a << b


def right_shift(a, b):
    return a >> b


# ---- comparisons ----


def less(a, b):
    return a < b


def less_equal(a, b):
    return a <= b


def equal(a, b):
    return a == b


def not_equal(a, b):
    return a != b


def greater(a, b):
    return a > b


def greater_equal(a, b):
    return a >= b


# ---- unary ----


def negative(a):
    return -a


def positive(a):
    return +a


def invert(a):
    return ~a


def absolute(a):
    return abs(a)


def isnan(x):
    return x != x               # false for integers and booleans


# ---- logical (truth values: non-zero, NaN included, is true) ----


def logical_and(a, b):
    return (a != 0) & (b != 0)


def logical_or(a, b):
    return (a != 0) | (b != 0)


def logical_xor(a, b):
    return (a != 0) != (b != 0)


def logical_not(a):
    return a == 0


# ---- math (real arguments; ints compute in the float NumPy picks) ----


def sqrt(x):
    return math.sqrt(x)


def exp(x):
    return math.exp(x)


def log(x):
    return math.log(x)


def sin(x):
    return math.sin(x)


def cos(x):
    return math.cos(x)


def tan(x):
    return math.tan(x)


def tanh(x):
    return math.tanh(x)


def arctan2(a, b):
    return math.atan2(a, b)


# NumPy's float16 results for int8 / uint8 / bool inputs: the kernel
# language's math computes those in float32, so round explicitly
def sqrt_f2(x):
    return np.float16(math.sqrt(x))


def exp_f2(x):
    return np.float16(math.exp(x))


def log_f2(x):
    return np.float16(math.log(x))


def sin_f2(x):
    return np.float16(math.sin(x))


def cos_f2(x):
    return np.float16(math.cos(x))


def tan_f2(x):
    return np.float16(math.tan(x))


def tanh_f2(x):
    return np.float16(math.tanh(x))


def arctan2_f2(a, b):
    return np.float16(math.atan2(a, b))


def power_i1(a, b):
    return np.int8(a ** b)      # NumPy's bool ** int is int8


# floor / ceil of floats as floats (math.floor gives an int); x - x % 1.0 is
# exact (% is Python's, so the remainder is in [0, 1)) and keeps -0.0
def floor(x):
    return x if math.isinf(x) else x - x % 1.0


def ceil(x):
    y = -x                      # -floor(-x); `* -1.0` rather than a unary minus
    return x if math.isinf(x) else (y - y % 1.0) * -1.0     # inside ?: (float16)


# NumPy's minimum / maximum: a NaN in either argument wins
def minimum(a, b):
    return a if (a <= b or a != a) else b


def maximum(a, b):
    return a if (a >= b or a != a) else b


def clip(x, lo, hi):
    v = x if (x >= lo or x != x) else lo
    return v if (v <= hi or v != v) else hi


def clip_lo(x, lo):
    return x if (x >= lo or x != x) else lo


def clip_hi(x, hi):
    return x if (x <= hi or x != x) else hi


def where(c, a, b):
    return a if c else b


# ---- complex numbers: DT is the complex type computed in (each kernel is
# specialised per type), both operands converted to it first; NumPy's
# formulas and its lexicographic order (a NaN in either part wins) ----


def sqrt_c(x):
    z = DT(x)
    a = z.real
    b = z.imag
    if a == 0 and b == 0:
        return DT(complex(0.0, b))
    t = math.sqrt((abs(a) + abs(z)) * 0.5)
    if a >= 0:
        return DT(complex(t, b / (2 * t)))
    return DT(complex(abs(b) / (2 * t), math.copysign(t, b)))


def exp_c(x):
    z = DT(x)
    e = math.exp(z.real)
    return DT(complex(e * math.cos(z.imag), e * math.sin(z.imag)))


def log_c(x):
    z = DT(x)
    return DT(complex(math.log(abs(z)), math.atan2(z.imag, z.real)))


def sin_c(x):
    z = DT(x)
    return DT(complex(math.sin(z.real) * math.cosh(z.imag),
                      math.cos(z.real) * math.sinh(z.imag)))


def cos_c(x):
    z = DT(x)
    return DT(complex(math.cos(z.real) * math.cosh(z.imag),
                      -(math.sin(z.real) * math.sinh(z.imag))))


def tan_c(x):
    z = DT(x)
    d = math.cos(2 * z.real) + math.cosh(2 * z.imag)
    return DT(complex(math.sin(2 * z.real) / d, math.sinh(2 * z.imag) / d))


def tanh_c(x):
    z = DT(x)
    d = math.cosh(2 * z.real) + math.cos(2 * z.imag)
    return DT(complex(math.sinh(2 * z.real) / d, math.sin(2 * z.imag) / d))


def less_c(x, y):
    a = DT(x)
    b = DT(y)
    return (a.real < b.real and a.imag == a.imag and b.imag == b.imag) or \
        (a.real == b.real and a.imag < b.imag)


def less_equal_c(x, y):
    a = DT(x)
    b = DT(y)
    return (a.real < b.real and a.imag == a.imag and b.imag == b.imag) or \
        (a.real == b.real and a.imag <= b.imag)


def greater_c(x, y):
    a = DT(y)
    b = DT(x)
    return (a.real < b.real and a.imag == a.imag and b.imag == b.imag) or \
        (a.real == b.real and a.imag < b.imag)


def greater_equal_c(x, y):
    a = DT(y)
    b = DT(x)
    return (a.real < b.real and a.imag == a.imag and b.imag == b.imag) or \
        (a.real == b.real and a.imag <= b.imag)


def maximum_c(x, y):
    a = DT(x)
    b = DT(y)
    if a.real != a.real or a.imag != a.imag:
        return a
    if (a.real > b.real and a.imag == a.imag and b.imag == b.imag) or \
            (a.real == b.real and a.imag >= b.imag):
        return a
    return b


def minimum_c(x, y):
    a = DT(x)
    b = DT(y)
    if a.real != a.real or a.imag != a.imag:
        return a
    if (a.real < b.real and a.imag == a.imag and b.imag == b.imag) or \
            (a.real == b.real and a.imag <= b.imag):
        return a
    return b


def clip_c(x, lo, hi):
    a = DT(x)
    b = DT(lo)
    if not (a.real != a.real or a.imag != a.imag or
            (a.real > b.real and a.imag == a.imag and b.imag == b.imag) or
            (a.real == b.real and a.imag >= b.imag)):
        a = b
    b = DT(hi)
    if not (a.real != a.real or a.imag != a.imag or
            (a.real < b.real and a.imag == a.imag and b.imag == b.imag) or
            (a.real == b.real and a.imag <= b.imag)):
        a = b
    return a


# ---- copies and conversions ----


def copy(x):
    return x


def fill(x, v):
    return v                    # v: a scalar of x's dtype; x gives the shape


DT = np.float64                 # replaced in each specialised copy


def cast(x):
    return DT(x)


def cast_real(x):
    return DT(x.real)           # complex to real drops the imaginary part, as NumPy


def nonzero(x):
    return x != 0               # complex to bool: either part non-zero


def specialize(func, **names):
    """A copy of func whose globals bind `names` (a dtype such as DT), made a
    @vectorize: one kernel per target type, the types known at compile time."""
    g = dict(func.__globals__)
    g.update(names)
    return vectorize(types.FunctionType(func.__code__, g, func.__name__))


_NAMES = ["add", "subtract", "multiply", "true_divide", "floor_divide", "remainder",
          "divmod_", "power", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
          "right_shift", "less", "less_equal", "equal", "not_equal", "greater",
          "greater_equal", "negative", "positive", "invert", "absolute", "isnan",
          "logical_and", "logical_or", "logical_xor", "logical_not", "sqrt",
          "exp", "log", "sin", "cos", "tan", "tanh", "arctan2", "sqrt_f2", "exp_f2",
          "log_f2", "sin_f2", "cos_f2", "tan_f2", "tanh_f2", "arctan2_f2", "power_i1",
          "floor", "ceil", "minimum", "maximum", "clip", "clip_lo", "clip_hi", "where",
          "copy", "fill", "nonzero"]

# the @vectorize objects (compiled on first call, once per input types)
kernels = {name: vectorize(globals()[name]) for name in _NAMES}
