"""Numba's type objects and signatures (cujit/_ntypes.py) and cuda.compile_ptx /
compile without a GPU: the types' classes, attributes, equality and
interning; signatures made by calling types, accepted by cuda.jit,
vectorize and guvectorize; the PTX compile_ptx gives for kernels and device
functions, and the errors of each.  The GPU runs of kernels typed this way
are in tests/gpu/test_ntypes_gpu.py."""
import re

import numpy as np
import pytest

import cujit
from cujit import cuda
from cujit.cuda import (complex64, float32, float64, int16, int32, int64, types, uint8,
                        uint32, void)
from test_runtime_nogpu import nvrtc_or_skip


# ---- the types ----

def test_scalar_classes_and_attributes():
    assert isinstance(int32, types.Integer) and isinstance(int32, types.Number)
    assert isinstance(float32, types.Float) and isinstance(types.boolean, types.Boolean)
    assert isinstance(complex64, types.Complex) and isinstance(void, types.NoneType)
    for t in (int32, float32, types.boolean, void, float32[:], types.UniTuple(int32, 2)):
        assert isinstance(t, types.Type)
    assert (int16.bitwidth, int16.signed, uint32.signed, float64.bitwidth) == (16, True, False,
                                                                               64)
    assert complex64.underlying_float is float32
    assert types.complex128.underlying_float is float64
    assert str(types.boolean) == "bool" and str(types.none) == "none"
    assert np.dtype(float32) == np.float32 and float32(1.5) == np.float32(1.5)
    assert types.longlong is int64 and types.ulonglong is types.uint64
    assert types.bool_ is types.boolean and types.intp is int64


def test_interned_and_equal_as_numba():
    assert types.NoneType("none") is types.none is types.void is void
    assert types.Omitted(None) is types.Omitted(None)
    assert types.Integer("int32") is int32
    assert float32[::1] == types.Array(float32, 1, "C")
    assert float32[:, ::1] is types.Array(float32, 2, "C")
    assert float32[:] != float32[::1] and float32[:] != float64[:]
    assert types.Array(float32, 1, "C", readonly=True) != types.Array(float32, 1, "C")
    assert len({float32[:], types.Array(float32, 1, "A"), float32[::1]}) == 2
    assert int32 in types.signed_domain and uint8 in types.unsigned_domain
    assert types.integer_domain == types.signed_domain | types.unsigned_domain
    assert float32 in types.real_domain and complex64 in types.number_domain
    assert float32 not in types.integer_domain


def test_array_type():
    a = types.Array(int32, 3, "F")
    assert (a.dtype, a.ndim, a.layout, a.readonly) == (int32, 3, "F", False)
    assert a == int32[::1, :, :] and a.is_f_contig and not a.is_c_contig
    assert types.Array(np.float64, 2, "A") == float64[:, :]
    assert a.copy(layout="C") == int32[:, :, ::1]
    assert float32[::1].dtype.name == "float32"     # np.zeros(n, t.dtype.name)
    with pytest.raises(ValueError, match="layout"):
        types.Array(float32, 1, "X")
    with pytest.raises(TypeError, match="ndim"):
        types.Array(float32, -1, "C")
    with pytest.raises(TypeError, match="has no array type"):
        void[:]


def test_tuples_and_other_types():
    t = types.Tuple((int32, float32))
    assert isinstance(t, types.Tuple) and t.types == (int32, float32) and len(t) == 2
    u = types.Tuple((int32, int32))
    assert isinstance(u, types.UniTuple) and u is types.UniTuple(int32, 2)
    assert u.dtype is int32 and u.count == 2 and list(u) == [int32, int32]
    assert types.Optional(int32).type is int32
    lit = types.IntegerLiteral(3)
    assert lit.literal_value == 3 and lit.literal_type is int64 and isinstance(lit, types.Literal)
    assert str(types.voidptr) == "void*"
    assert cuda.typeof(np.zeros((2, 3), np.float32)) == float32[:, ::1]
    assert cuda.typeof(np.zeros((2, 3), order="F")) == float64[::1, :]
    assert cuda.typeof(np.zeros(8)[::2]) == float64[:]
    assert cuda.typeof(1) is int64 and cuda.typeof(1.0) is float64
    assert cuda.typeof(np.uint8(1)) is uint8 and cuda.typeof((1, 2.0)) == types.Tuple(
        (int64, float64))


# ---- signatures ----

def test_calling_a_type_makes_a_signature():
    s = int32(int32, int32)
    assert isinstance(s, types.Signature) and s.return_type is int32 and s.args == (int32, int32)
    assert s == int32(int32, int32) and s != int64(int32, int32)
    assert str(void(float32[:], int32)) == "void(float32[:], int32)"
    assert str(float64[::1](float64[::1])) == "float64[::1](float64[::1])"
    assert repr(s) == "(int32, int32) -> int32"
    assert str(void(types.UniTuple(int32, 2))) == "void(Tuple(int32, int32))"
    assert str(void(types.boolean[:])) == "void(bool[:])"


@pytest.mark.parametrize("sig", [
    void(float32[::1], int32), (float32[::1], int32), "void(float32[::1], int32)",
    "(float32[::1], int32)", [void(float32[::1], int32)]])
def test_cuda_jit_takes_every_spelling(sig):
    @cuda.jit(sig)
    def k(x, n):
        i = cuda.grid(1)
        if i < n:
            x[i] = 2 * x[i]
    assert k.signatures == ["(float32[::1], int32)"]


def test_boolean_in_signature_strings():
    @cuda.jit("void(boolean[:], int32[:])")
    def k(b, x):
        x[0] = 1 if b[0] else 0
    assert k.signatures == ["(bool[:], int32[:])"]


@pytest.mark.parametrize("sig", [int32(int32[::1]), "int32(int32[::1])",
                                 [void(int32[::1]), float32[::1](int32[::1])]])
def test_kernel_signature_must_return_void(sig):
    with pytest.raises(TypeError, match="must have void return type"):
        @cuda.jit(sig)
        def k(x):
            x[0] = 1


def test_device_function_with_a_signature_is_called_from_a_kernel():
    @cuda.jit(float32(float32, float32), device=True)
    def add(a, b):
        return a + b

    @cuda.jit((float32[::1], float32[::1]))
    def k(out, x):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = add(x[i], x[i])
    assert "cj_dev_add" in k.inspect_cuda(k.signatures[0])


@cuda.jit([int32(int32), float64(float64)], device=True)
def twice(a):
    return a * 2.5


@cuda.jit(float32(float32, float32), device=True)
def add32(a, b):
    return a + b


@cuda.jit(void(float64[:]), device=True)
def set_first(a):
    a[0] = 1


def test_declared_signatures_type_the_calls():
    """a device function declared with signatures is typed for the one that
    takes the call's arguments best (its own types, then safe conversions,
    then any), its arguments and result converted as in Numba"""
    @cuda.jit
    def k(out, x, y):
        out[0] = twice(x[0]) + twice(y[0]) + add32(y[0], 1)
        set_first(out)
    src = k.inspect_cuda("(float64[::1], int32[::1], float64[::1])")
    assert "int cj_dev_twice_i4(int a)" in src and "return (int)((double)a * 2.5);" in src
    assert "double cj_dev_twice_f8(double a)" in src
    assert "float cj_dev_add32_f4_f4(float a, float b)" in src
    assert "cj_dev_set_first_f8a1A(" in src

    @cuda.jit
    def bad(x):
        set_first(x[0])
    with pytest.raises(cujit.CompileTypeError,
                       match=r"'set_first' with parameters \(float64\): it is compiled for 1 "
                             "declared signature"):
        bad.inspect_cuda("(float64[::1],)")

    @cuda.jit(int32(int32), device=True)
    def tup(a):
        return a, a

    @cuda.jit
    def calls_tup(x):
        x[0] = tup(x[0])[0]
    with pytest.raises(cujit.CompileTypeError, match="declared to return int32 but returns"):
        calls_tup.inspect_cuda("(int32[::1],)")


def test_vectorize_and_guvectorize_take_signature_objects():
    v = cujit.vectorize([float32(float32, float32), float64(float64, float64)])(
        lambda a, b: a * b + 1)
    assert isinstance(v, cujit.Vectorize)
    v2 = cuda.vectorize(float32(float32), target="cuda")(lambda a: a + 1)
    assert isinstance(v2.form, cujit.Vectorize)     # in Numba's rules (_numba_forms)

    def copy(a, b):
        for i in range(a.shape[0]):
            b[i] = a[i]
    for sigs in ([void(float32[:], float32[:])], [(float32[:], float32[:])],
                 "void(float32[:], float32[:])"):
        g = cuda.guvectorize(sigs, "(n)->(n)", target="cuda")(copy)
        assert isinstance(g.form, cujit.GUFunc)


def test_guvectorize_errors_as_numba():
    with pytest.raises(TypeError, match="guvectorized functions cannot return values.*"
                                        "specifies int32 return type"):
        cuda.guvectorize([int32(int32[:], int32[:])], "(m)->(m)", target="cuda")
    with pytest.raises(TypeError, match="^nopython flag must be True$"):
        cuda.guvectorize([void(float32[:], float32[:])], "(x)->(x)", target="cuda",
                         nopython=False)
    with pytest.raises(TypeError, match="^The following target options are not supported: "
                                        "'what1', 'ever2'$"):
        cuda.guvectorize([void(float32[:], float32[:])], "(x)->(x)", target="cuda",
                         what1=True, ever2=False)


def test_bad_signature_objects():
    with pytest.raises(TypeError, match="takes a function, a signature"):
        cuda.jit(3.5)
    with pytest.raises(TypeError, match="cannot take"):
        @cuda.jit(void(types.voidptr))
        def k(p):
            pass


# ---- compile_ptx / compile ----

def saxpy(r, a, x, y):
    i = cuda.grid(1)
    if i < len(r):
        r[i] = a * x[i] + y[i]


def add(x, y):
    return x + y


def test_compile_ptx_kernel():
    nvrtc_or_skip()
    ptx, resty = cuda.compile_ptx(saxpy, (float32[:], float32, float32[:], float32[:]))
    assert resty is void
    assert ".visible .entry" in ptx and ".visible .func" not in ptx
    assert "ld.param" in ptx and "st.global.f32" in ptx and "fma.rn.f32" in ptx
    assert not re.search(r'\.file.*test_ntypes\.py"', ptx)
    ptx, _ = cuda.compile_ptx(saxpy, (float32[:], float32, float32[:], float32[:]),
                              lineinfo=True)
    assert re.search(r'\.file.*test_ntypes\.py"', ptx)
    code, resty = cuda.compile_all(saxpy, "void(float32[:], float32, float32[:], float32[:])",
                                   device=False, abi="numba", output="ptx")
    assert isinstance(code, list) and len(code) == 1 and ".visible .entry" in code[0]


@pytest.mark.parametrize("sig, ret, width", [
    ((float32, float32), "float32", "b32"), (int32(int32, int32), "int32", "b32"),
    (int16(int16, int16), "int16", "b32"), ("uint32(uint32, uint32)", "uint32", "b32"),
    (int64(int64, int64), "int64", "b64"), (float32(int32, int32), "float32", "b32")])
def test_compile_device_function(sig, ret, width):
    nvrtc_or_skip()
    for fn in (cuda.compile_ptx, cuda.compile):
        ptx, resty = fn(add, sig, device=True)
        assert resty is getattr(types, ret)
        assert ".visible .entry" not in ptx
        assert re.search(r"\.visible\s+\.func\s+\(\.param\s+\.%s\s+func_retval0\)\s+add\("
                         % width, ptx), ptx


def test_compile_device_function_names_and_types():
    nvrtc_or_skip()
    ptx, _ = cuda.compile(lambda x: x, int32(int32), abi_info={"abi_name": "_Z4funcii"})
    assert re.search(r"func_retval0\)\s+_Z4funcii\(", ptx)
    ptx, _ = cuda.compile(lambda x: x, int32(int32))
    assert re.search(r"func_retval0\)\s+lambda\(", ptx)

    def eq(a, b):
        return a == b

    def eq8(a, b):
        return types.uint8(a == b)
    assert cuda.compile(eq, (int32, int32))[1] is types.boolean
    assert cuda.compile(eq8, (int32, int32))[1] is uint8

    def half(x):
        return x / 2
    assert cuda.compile(half, types.complex128(types.complex128))[1] is types.complex128

    def nothing():
        pass
    ptx, resty = cuda.compile(nothing, ())
    assert resty is void and ".visible .func nothing()" in ptx


def test_compile_options():
    nvrtc_or_skip()

    def f(x, y, z, d):
        return (x * y + z) / d
    ptx, _ = cuda.compile_ptx(f, (float32,) * 4, device=True)
    assert "fma.rn.f32" in ptx and "div.rn.f32" in ptx
    ptx, _ = cuda.compile_ptx(f, (float32,) * 4, device=True, fastmath=True)
    assert "fma.rn.ftz.f32" in ptx and "div.approx.ftz.f32" in ptx
    ptx, _ = cuda.compile_ptx(f, (float32,) * 4, device=True, debug=True, opt=False)
    assert re.search(r"\.section\s+\.debug_info", ptx)
    ptx, resty = cuda.compile_ptx(lambda: None, (), cc=(9, 0, "a"))
    assert ".target sm_90a" in ptx and resty is void
    ptx, _ = cuda.compile_ptx(lambda: None, (), cc=(8, 0))
    assert ".target sm_80" in ptx
    cubin, _ = cuda.compile(add, (int32, int32), output="cubin", cc=(9, 0))
    assert isinstance(cubin, bytes) and cubin[:4] == b"\x7fELF"
    ptx, _ = cuda.compile_ptx_for_current_device(saxpy, (float32[:], float32, float32[:],
                                                         float32[:]))
    assert ".target sm_" in ptx
    ptx, resty = cuda.compile_for_current_device(add, (float32, float32))
    assert resty is float32 and ".visible .func" in ptx


def test_compile_errors():
    with pytest.raises(TypeError, match="must have void return type"):
        cuda.compile_ptx(add, int32(int32, int32))
    with pytest.raises(NotImplementedError, match="^Unsupported ABI: fastcall$"):
        cuda.compile_ptx(add, (int32, int32), abi="fastcall")
    with pytest.raises(NotImplementedError, match="The C ABI is not supported for kernels"):
        cuda.compile_ptx(add, (int32, int32), abi="c")
    with pytest.raises(NotImplementedError, match="Unsupported output type: illegal"):
        cuda.compile(add, int32(int32, int32), output="illegal")
    with pytest.raises(ValueError, match="Can only designate forced inlining in LTO-IR"):
        cuda.compile(add, int32(int32, int32), forceinline=True)
    with pytest.raises(TypeError, match="compute capability"):
        cuda.compile(add, int32(int32, int32), cc="sm_90")
    nvrtc_or_skip()

    def returns(x, y):
        return x[0] + y[0]
    with pytest.raises(TypeError, match="must have void return type"):
        cuda.compile_ptx(returns, (uint32[::1], uint32[::1]))
    code, ret = cuda.compile(lambda x: x, float32[:](float32[:]))   # a view, as its argument
    assert str(ret) == "float32[:]" and "func_retval0[24]" in code and "param_0[24]" in code
