"""NumPy's functions and methods, cmath and literal_unroll in kernels, without
a GPU: result types, what compiles to PTX, and the errors (each at the
user's line).  The kernels run on the CPU host shim and on the GPU from
tests/kernels/npfuncs.py; cujit.cuda.transpose runs in tests/gpu."""
import cmath
import inspect

import numpy as np
import pytest

import cujit
from cujit import cuda
from cujit.cuda import literal_unroll
from test_runtime_nogpu import nvrtc_or_skip

F64 = "(float64[::1], float64[::1])"
C2 = "(float64[:, ::1], float64[::1])"


def error_at(k, sig, exc, text):
    """k's compile error: its type, a message holding `text`, at the line
    marked # <- here"""
    with pytest.raises(exc) as ei:
        k.inspect_cuda(sig)
    e = ei.value
    assert isinstance(e, cujit.CompileError) and text in str(e), str(e)
    src, first = inspect.getsourcelines(k.py_func)
    marked = [first + i for i, line in enumerate(src) if "# <- here" in line]
    assert e.lineno == marked[0], (e.lineno, marked)
    return e


def test_result_dtypes_follow_numpy():
    """int sums widen to int64 / uint64, means of ints are float64, var of
    complex is real, all/any bool, count_nonzero int64"""
    @cuda.jit
    def k(a, b, c, out):
        out[0] = np.sum(a) + a.prod()
        out[1] = np.sum(b)
        out[2] = np.mean(a)
        out[3] = np.var(c)
        out[4] = np.all(a) + np.count_nonzero(b)
    src = k.inspect_cuda("(int16[::1], uint8[::1], complex64[::1], float64[::1])")
    assert "cj_np_sum<long long>(a" in src and "cj_np_prod<long long>(a" in src
    assert "cj_np_sum<unsigned long long>(b" in src
    assert "cj_np_mean<double>(a" in src
    assert "cj_np_var<float, cj_complex64>(c" in src
    assert "!cj_np_find(a, false)" in src and "cj_np_count(b)" in src


def test_every_reduction_compiles_to_ptx():
    nvrtc_or_skip()

    @cuda.jit
    def k(x, out):
        out[0] = (np.sum(x) + np.prod(x) + np.min(x) + np.max(x) + np.amin(x) + np.amax(x)
                  + np.mean(x) + np.var(x) + np.std(x) + np.all(x) + np.any(x) + np.nansum(x)
                  + np.nanprod(x) + np.nanmin(x) + np.nanmax(x) + np.nanmean(x)
                  + np.count_nonzero(x) + x.sum() + x.max() + x.min() + x.mean() + x.any())
    for sig in ("(float32[:, :], float32[::1])", "(int64[::1], float64[::1])",
                "(bool[:, ::1], float64[::1])", "(uint16[::1], float64[::1])"):
        assert ".entry" in k.inspect_ptx(sig)


def test_shared_and_dynamic_shared_arrays():
    nvrtc_or_skip()

    @cuda.jit
    def k(x, out):
        s = cuda.shared.array((4, 8), np.float32)
        d = cuda.shared.array(0, np.float32)
        s[0, 0] = x[0]
        d[0] = x[0]
        cuda.syncthreads()
        out[0] = s.sum() + np.max(d)
    src = k.inspect_cuda("(float32[::1], float32[::1])")
    assert "cj_np_sum<float>(cj_array<float, 2," in src
    assert ".entry" in k.inspect_ptx("(float32[::1], float32[::1])")


GLOBAL_TUPLE = (np.arange(6.0), np.arange(12, dtype=np.int32).reshape(3, 4), np.float32([1.5]))


def test_literal_unroll_reads_the_body_per_item():
    @cuda.jit
    def k(out):
        i = 0
        for a in literal_unroll(GLOBAL_TUPLE):
            out[i] = a.sum() + a.ndim
            i += 1
    src = k.inspect_cuda("(float64[::1],)")
    assert src.count("cj_np_sum<double>(") == 1 and "cj_np_sum<long long>(" in src
    assert "cj_np_sum<float>(" in src and "cj_table2" in src


def test_literal_unroll_of_a_local_tuple_is_a_plain_loop():
    @cuda.jit
    def k(x, out):
        t = (x[0], x[1], 2.5)
        s = 0.0
        for v in literal_unroll(t):
            s += v
        out[0] = s
    assert "for (" in k.inspect_cuda(F64)


def test_numba_literal_unroll_is_recognised():
    numba_special = pytest.importorskip("numba.misc.special")

    @cuda.jit
    def k(out):
        i = 0
        for a in numba_special.literal_unroll(GLOBAL_TUPLE):
            out[i] = np.max(a)
            i += 1
    assert "cj_np_extreme<int>(" in k.inspect_cuda("(float64[::1],)")


def test_global_array_is_a_constant_table_shared_between_reads():
    table = np.arange(10.0)

    @cuda.jit
    def k(out):
        out[0] = table[3] + table.sum() + np.max(table)
    src = k.inspect_cuda("(float64[::1],)")
    assert "cj_table0" in src and "cj_table1" not in src


def test_global_array_is_read_only():
    table = np.arange(10.0)

    @cuda.jit
    def k(out):
        table[0] = out[0]           # <- here
    with pytest.raises(cujit.CompileError, match="read-only"):
        k.inspect_cuda("(float64[::1],)")


def test_zero_d_global_array_is_its_item():
    zero = np.array(7)

    @cuda.jit
    def k(out):
        out[0] = np.count_nonzero(zero) + zero
    assert "cj_np_count(7LL)" in k.inspect_cuda("(float64[::1],)")


def test_cmath_types():
    @cuda.jit
    def k(z, out, r, b):
        out[0] = cmath.sqrt(z[0])
        r[0] = cmath.phase(z[0]) + cmath.polar(z[0])[1]
        b[0] = cmath.isnan(z[0]) or cmath.isinf(z[0]) or cmath.isfinite(z[0])
        out[1] = cmath.rect(r[0], r[1]) + cmath.log(z[0], 10) + cmath.log10(z[0])
    src = k.inspect_cuda("(complex64[::1], complex64[::1], float32[::1], bool[::1])")
    assert "cj_csqrt(z.data[0LL])" in src and "cj_cphase(" in src
    assert "cj_cpolar<cj_T2_f4_f4_>(" in src


def test_cmath_compiles_to_ptx():
    nvrtc_or_skip()

    @cuda.jit
    def k(z, out):
        v = z[0]
        out[0] = (cmath.acos(v) + cmath.acosh(v) + cmath.asin(v) + cmath.asinh(v)
                  + cmath.atan(v) + cmath.atanh(v) + cmath.cos(v) + cmath.cosh(v)
                  + cmath.exp(v) + cmath.log(v) + cmath.log10(v) + cmath.sin(v)
                  + cmath.sinh(v) + cmath.sqrt(v) + cmath.tan(v) + cmath.tanh(v))
    for sig in ("(complex128[::1], complex128[::1])", "(complex64[::1], complex64[::1])"):
        assert ".entry" in k.inspect_ptx(sig)


def test_array_methods_compile_to_ptx():
    nvrtc_or_skip()

    @cuda.jit
    def k(b, x, out):
        w = b[0:8].view(np.int32)
        y = x.reshape(3, -1)
        z = x.reshape((2, 6))
        loc = cuda.local.array((2, 3), np.float64)
        loc[0, 0] = x[0]
        c = loc.copy()
        out[0] = w[1] + y[2, 3] + z[1, 5] + c[0, 0]
    sig = "(uint8[::1], float64[::1], float64[::1])"
    src = k.inspect_cuda(sig)
    assert "cj_np_view<int>(" in src and "cj_np_reshape<2>(" in src
    assert "cj_np_copy(c, " in src
    assert ".entry" in k.inspect_ptx(sig)


# ---- errors ----

def test_reduction_keywords_are_refused():
    @cuda.jit
    def k(x, out):
        out[0] = np.sum(x, axis=0)      # <- here
    error_at(k, F64, TypeError, "axis=")


def test_reduction_of_a_number_array_only():
    @cuda.jit
    def k(x, out):
        out[0] = np.max(x)              # <- here
    error_at(k, "(complex128[::1], float64[::1])", TypeError, "complex")


def test_reduction_argument_count():
    @cuda.jit
    def k(x, out):
        out[0] = np.mean(x, x)          # <- here
    error_at(k, F64, TypeError, "takes 1 argument")


def test_copy_of_an_argument_is_refused():
    @cuda.jit
    def k(x, out):
        q = x.copy()                    # <- here
        out[0] = q[0]
    error_at(k, F64, cujit.CompileError, "known when the kernel compiles")


def test_reshape_of_a_strided_array_is_refused():
    @cuda.jit
    def k(x, out):
        y = x.reshape(4)                # <- here
        out[0] = y[0]
    error_at(k, "(float64[:], float64[::1])", cujit.CompileError, "C-contiguous")


def test_view_needs_a_dtype():
    @cuda.jit
    def k(x, out):
        out[0] = x.view(3)[0]           # <- here
    error_at(k, F64, cujit.CompileError, "NumPy dtype")


def test_break_in_an_unrolled_loop_is_refused():
    @cuda.jit
    def k(out):
        for a in literal_unroll(GLOBAL_TUPLE):
            if a.size > 3:
                break                   # <- here
            out[0] = a.sum()
    error_at(k, "(float64[::1],)", cujit.CompileError, "break and continue")


def test_cmath_of_an_array_is_refused():
    @cuda.jit
    def k(z, out):
        out[0] = cmath.sqrt(z)          # <- here
    error_at(k, "(complex128[::1], complex128[::1])", cujit.CompileError, "takes a number")


def test_numpy_support_as_dtype():
    assert cuda.numpy_support.as_dtype(cuda.complex64) == np.complex64
    assert cuda.numpy_support.as_dtype(cuda.float64) == np.float64
    assert cuda.numpy_support.from_dtype(np.dtype(np.int16)) is cuda.int16
    with pytest.raises(NotImplementedError):
        cuda.numpy_support.as_dtype(cuda.float32[:])


def test_global_array_attributes_are_pythons():
    """.shape, .size and .dtype of a global array are read in Python (no
    table: an array over 64 KiB is fine), its methods are the kernel's"""
    big = np.zeros((300, 100))

    @cuda.jit
    def k(out):
        loc = cuda.local.array(4, big.dtype)
        loc[0] = big.shape[0] + big.size
        out[0] = loc[0]
    src = k.inspect_cuda("(float64[::1],)")
    assert "cj_table" not in src and "300LL + 30000LL" in src
    small = np.arange(5.0)

    @cuda.jit
    def m(out):
        out[0] = small.sum()
    assert "cj_np_sum<double>(" in m.inspect_cuda("(float64[::1],)")
