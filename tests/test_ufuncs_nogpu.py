"""NumPy's elementwise ufuncs in kernels, without a GPU: NumPy's result
dtypes, the CUDA they become, every ufunc compiled to PTX for the input
types Numba's test_ufuncs uses, and the errors (each at the user's line).
The kernels run on the CPU host shim and on the GPU from
tests/kernels/ufuncs.py."""
import inspect

import numpy as np
import pytest

import cujit
from cujit import cuda
from test_runtime_nogpu import nvrtc_or_skip

UNARY = ["sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh",
         "arccosh", "arctanh", "log", "log2", "log10", "log1p", "exp", "exp2", "expm1", "sqrt",
         "deg2rad", "radians", "rad2deg", "degrees", "logical_not", "invert", "isnan", "isinf",
         "isfinite", "negative", "absolute", "square"]
BINARY = ["arctan2", "hypot", "greater", "greater_equal", "less", "less_equal", "equal",
          "not_equal", "logical_and", "logical_or", "logical_xor", "maximum", "minimum", "fmax",
          "fmin", "bitwise_and", "bitwise_or", "bitwise_xor", "add", "subtract", "multiply",
          "divide"]


def error_at(k, args, exc, text):
    """k's compile error: its type, a message holding `text`, at the line
    marked # <- here"""
    with pytest.raises(exc) as ei:
        k.inspect_cuda(*args)
    e = ei.value
    assert isinstance(e, cujit.CompileError) and text in str(e), str(e)
    src, first = inspect.getsourcelines(k.py_func)
    marked = [first + i for i, line in enumerate(src) if "# <- here" in line]
    assert e.lineno == marked[0], (e.lineno, marked)
    return e


def usecase(name, nargs):
    """def fn(a0 ... an): np.<name>(a0 ... an), as Numba's test_ufuncs
    builds it"""
    params = ", ".join("a%d" % i for i in range(nargs))
    ns = {"np": np}
    exec(compile("def fn(%s):\n    np.%s(%s)\n" % (params, name, params),
                 "<ufunc %s>" % name, "exec"), ns)
    return cuda.jit(ns["fn"])


def test_result_dtypes_follow_numpy():
    """float ufuncs of small ints are float32 (Numba's loops), of the rest
    float64; comparisons bool; abs of complex real; true division float64"""
    @cuda.jit
    def k(i8, i32, f4, c8, out, flags):
        out[0] = np.sin(i8) + np.sqrt(i32) + np.exp(f4) + np.absolute(c8) + np.divide(i8, i8)
        flags[0] = np.less(i32, f4) and np.isnan(f4)
    src = k.inspect_cuda(np.int8(1), np.int32(2), np.float32(3), np.complex64(1j),
                         np.zeros(1), np.zeros(1, np.bool_))
    assert "cj_uf_sin((float)i8)" in src and "cj_uf_sqrt((double)i32)" in src
    assert "cj_uf_exp(f4)" in src and "cj_uf_absolute(c8)" in src
    assert "cj_uf_divide((double)i8, (double)i8)" in src
    assert "cj_uf_less((double)i32, (double)f4)" in src


def test_scalar_results_are_typed_as_numpy_gives_them():
    @cuda.jit
    def k(a, b, out):
        x = np.maximum(a, b)
        y = np.arctan2(a, 2)
        z = np.equal(a, b)
        out[0] = x + y + z
    src = k.inspect_cuda(np.float32(1), np.float32(2), np.zeros(1, np.float32))
    # 2 is an int64 in a cuda.jit kernel (Numba): arctan2(float32, int64) is float64
    assert "float x;" in src and "double y;" in src and "bool z;" in src
    assert "x = cj_uf_maximum(a, b);" in src and "z = cj_uf_equal(a, b);" in src


def test_out_forms_and_mixed_comparisons():
    """np.f(a, out), out=o, out=(o,), and int64 against uint64 compared as
    they are (not through float64)"""
    @cuda.jit
    def k(a, s, u, out, flags):
        np.sqrt(a, out)
        np.add(a, 1.5, out=out)
        np.negative(a, out=(out,))
        np.less(s, u, flags)
    src = k.inspect_cuda(np.zeros(4), np.int64(-1), np.uint64(1), np.zeros(4),
                         np.zeros(4, np.bool_))
    assert "cj_uf_map1<double>(out, cj_uf_f_sqrt(), a)" in src
    assert "cj_uf_map2<double, double>(out, cj_uf_f_add(), a, 1.5)" in src
    assert "cj_uf_map1<double>(out, cj_uf_f_negative(), a)" in src
    assert "cj_uf_map2<long long, unsigned long long>(flags, cj_uf_f_less(), s, u)" in src


# the input types of Numba's test_ufuncs: numbers, and arrays of 1 to 3
# dimensions, C and F order, of each kind
INPUTS = [np.uint8(1), np.int16(-1), np.uint32(1), np.int64(-1), np.uint64(1), np.float32(0.5),
          np.float64(-0.5), np.complex64(0.5 + 0.5j), np.complex128(-0.5),
          np.array([0, 1], np.uint64), np.array([-1, 0, 1], np.int8),
          np.array([-0.5, 0.5], np.float32), np.linspace(0, 1).reshape((2, 5, -1)),
          np.asfortranarray(np.linspace(0, 1).reshape((5, -1))),
          np.linspace(0, 1 + 1j).reshape(5, -1)]
REAL_ONLY = {"arctan2", "hypot", "deg2rad", "radians", "rad2deg", "degrees"}
INT_ONLY = {"bitwise_and", "bitwise_or", "bitwise_xor", "invert"}


FLOATS = set(UNARY[:20]) | {"divide"}


def kinds_of(name):
    """the kinds whose results cast back to the input's dtype (NumPy's
    'same_kind'): float ufuncs of floats, bitwise of integers"""
    return ("iu" if name in INT_ONLY else "f" if name in REAL_ONLY
            else "fc" if name in FLOATS else "iufc")


@pytest.mark.parametrize("name", UNARY + BINARY)
def test_every_ufunc_compiles_to_ptx(name):
    """np.f(x ..., out) with out of the input's dtype and shape, as Numba's
    test_ufuncs calls it, for every input type that the ufunc takes"""
    nvrtc_or_skip()
    uf = getattr(np, name)
    k = usecase(name, uf.nin + 1)
    for x in INPUTS:
        if x.dtype.kind not in kinds_of(name) or (name in ("subtract", "negative")
                                                  and x.dtype == np.bool_):
            continue
        out = np.zeros(x.shape if np.ndim(x) else 1, x.dtype)
        assert k.inspect_ptx(*(x,) * uf.nin, out)


def test_errors_bad_inputs():
    @cuda.jit
    def no_out(a, out):
        out[0] = np.sin(a)  # <- here
    e = error_at(no_out, (np.zeros(3), np.zeros(3)), TypeError, "needs an output array")
    assert "np.sin(a, out)" in str(e)

    @cuda.jit
    def bits_of_float(a, out):
        out[0] = np.bitwise_and(a, a)  # <- here
    error_at(bits_of_float, (np.float64(1), np.zeros(1)), TypeError, "integers or bool")

    @cuda.jit
    def complex_arctan2(a, out):
        np.arctan2(a, a, out)  # <- here
    error_at(complex_arctan2, (np.zeros(2, np.complex128), np.zeros(2, np.complex128)),
             TypeError, "real numbers")

    @cuda.jit
    def bool_subtract(a, out):
        np.subtract(a, a, out)  # <- here
    error_at(bool_subtract, (np.zeros(2, np.bool_), np.zeros(2, np.bool_)), TypeError,
             "logical_xor")

    @cuda.jit
    def half(a, out):
        np.sin(a, out)  # <- here
    error_at(half, (np.zeros(2, np.float16), np.zeros(2, np.float32)), TypeError, "float16")


def test_errors_bad_outputs():
    @cuda.jit
    def narrowing(a, out):
        np.sin(a, out)  # <- here
    error_at(narrowing, (np.zeros(2), np.zeros(2, np.int32)), TypeError, "same_kind")

    @cuda.jit
    def not_array(a, o):
        np.sin(a, o)  # <- here
    error_at(not_array, (np.zeros(2), np.float64(1)), TypeError, "must be an array")

    @cuda.jit
    def too_small(a, out):
        np.sin(a, out)  # <- here
    error_at(too_small, (np.zeros((2, 2)), np.zeros(4)), TypeError, "does not broadcast")

    @cuda.jit
    def keyword(a, out):
        np.sin(a, out=out, where=a)  # <- here
    error_at(keyword, (np.zeros(2), np.zeros(2)), TypeError, "where=")

    @cuda.jit
    def arity(a, out):
        np.add(a, out)  # <- here
    e = error_at(arity, (np.zeros(2), np.zeros(2)), TypeError, "needs an output array")
    del e

    @cuda.jit
    def too_many(a, out):
        np.sin(a, a, out)  # <- here
    error_at(too_many, (np.zeros(2), np.zeros(2)), TypeError, "takes 1 input")

    @cuda.jit
    def twice(a, out):
        np.sin(a, out, out=out)  # <- here
    error_at(twice, (np.zeros(2), np.zeros(2)), TypeError, "twice")
