"""@cujit.fuse: a function written with array operations becomes one kernel.

The function is compiled from its AST, not traced: each array parameter
stands for one element of the broadcast iteration, as the parameters of a
@vectorize function do, and the array library's functions (NumPy's, CuPy's,
cujit's: np.exp, cp.where, cujit.maximum ...) mean their operation on one
element, through the table `_names()` the frontend reads in fused mode
(frontend/names.c).  A function ending in `return np.sum(expr, axis=...)`
(or expr.sum(...), prod, min, max, mean, any, all) is a reduction whose map
is the rest of the body (module/fuse.c); any other is an elementwise
Vectorize (module/vectorize.c) whose arguments written in place (x += y,
np.add(x, y, out=x)) are its first outputs.

What the C side needs from the source before it compiles (the reduction's
axis and keepdims, the parameters written in place) cujit/_fuse_plan.py
reads at the first call; everything else, errors included, comes from the
compiler."""
import builtins
import functools
import math
import types

from cujit._cujit import FuseReduce, Vectorize

# array functions that are a math builtin on one element
_MATH = {"sqrt": "sqrt", "exp": "exp", "expm1": "expm1", "log": "log", "log1p": "log1p",
         "log2": "log2", "log10": "log10", "sin": "sin", "cos": "cos", "tan": "tan",
         "arcsin": "asin", "arccos": "acos", "arctan": "atan", "arctan2": "atan2",
         "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "arcsinh": "asinh",
         "arccosh": "acosh", "arctanh": "atanh", "hypot": "hypot", "cbrt": "cbrt",
         "isinf": "isinf", "isfinite": "isfinite", "copysign": "copysign"}

# ... and those that are a scalar function of the stdlib's kernels
# (cujit/_stdlib/kernels/elementwise.py), with NumPy's semantics
_KERNELS = {"add": "add", "subtract": "subtract", "multiply": "multiply",
            "true_divide": "true_divide", "divide": "true_divide",
            "floor_divide": "floor_divide", "remainder": "remainder", "mod": "remainder",
            "power": "power", "bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or",
            "bitwise_xor": "bitwise_xor", "left_shift": "left_shift",
            "right_shift": "right_shift", "less": "less", "less_equal": "less_equal",
            "equal": "equal", "not_equal": "not_equal", "greater": "greater",
            "greater_equal": "greater_equal", "negative": "negative", "positive": "positive",
            "invert": "invert", "bitwise_not": "invert", "logical_and": "logical_and",
            "logical_or": "logical_or", "logical_xor": "logical_xor",
            "logical_not": "logical_not", "isnan": "isnan", "floor": "floor", "ceil": "ceil",
            "minimum": "minimum", "maximum": "maximum", "clip": "clip", "where": "where"}


def square(x):
    return x * x


_table = None


def _names():
    """name -> what it means on one element: a math builtin, a function in
    the kernel language, or an int (a reduction)."""
    global _table
    if _table is None:
        from cujit._stdlib._load import _kmod
        ek = _kmod("elementwise")
        t = {name: getattr(math, m) for name, m in _MATH.items()}
        t["abs"] = t["absolute"] = builtins.abs
        t.update({name: getattr(ek, m) for name, m in _KERNELS.items()})
        t["square"] = square
        from cujit._fuse_plan import _RED
        t.update(_RED)
        _table = t
    return _table


class Fused:
    """A function of array operations compiled into one kernel per input
    signature (dtypes, ndims, layouts).  Call it with DeviceArrays, CuPy /
    PyTorch / Numba arrays, NumPy arrays (copied) or numbers."""

    def __init__(self, func, kernel_name=None):
        if not isinstance(func, types.FunctionType):
            raise TypeError("cujit.fuse decorates a Python function, got %s"
                            % type(func).__name__)
        if kernel_name is not None and not (isinstance(kernel_name, str)
                                            and kernel_name.isidentifier()):
            raise ValueError("kernel_name must be a C identifier, got %r" % (kernel_name,))
        functools.update_wrapper(self, func)
        self.py_func = func
        self.kernel_name = kernel_name
        self._k = None

    def _kernel(self):
        if self._k is None:
            from cujit._fuse_plan import _Plan
            plan = _Plan(self.py_func)
            if plan.op:
                self._k = FuseReduce(self.py_func, plan.op, plan.axis, plan.keepdims,
                                     _names(), self.kernel_name)
            else:
                self._k = Vectorize(self.py_func, None, _names(), self.kernel_name,
                                    plan.inplace)
        return self._k

    def __call__(self, *args):
        k = self._k
        if k is None:
            k = self._kernel()
        return k(*args)

    def inspect_cuda(self, *args):
        """inspect_cuda(*args): the CUDA C++ a call with these example
        arguments runs (no GPU needed); inspect_cuda(): every kernel so far."""
        return self._kernel().inspect_cuda(*args)

    def inspect_ptx(self, *args, arch="sm_90"):
        """NVRTC's PTX of inspect_cuda(*args), for arch (no GPU needed)."""
        return self._kernel().inspect_ptx(*args, arch=arch)

    def __repr__(self):
        return "<cujit.fuse %s>" % self.__name__


def fuse(func=None, *, kernel_name=None):
    """``@cujit.fuse`` / ``@cujit.fuse(kernel_name="name")``: the function's
    array operations become one kernel, typed and cached per input signature."""
    if func is None:
        return lambda f: Fused(f, kernel_name)
    return Fused(func, kernel_name)
