"""Raw pointers (Numba's types.CPointer(dtype), cujit's "dtype*") without a
GPU: the signature spellings, the generated CUDA, the cache-hint loads and
stores in the PTX, the errors, and how a launch resolves a Python int
address.  tests/gpu/test_cpointer_gpu.py runs them on the GPU."""
import numpy as np
import pytest

from cujit import cuda
from cujit.cuda import types



def axpy(r, a, x, y, n):
    i = cuda.grid(1)
    if i < n:
        r[i] = a * x[i] + y[i]


def test_cpointer_type_spelling():
    p = types.CPointer(types.int32)
    assert str(p) == "int32*"
    assert p is types.CPointer(types.int32)
    assert str(types.void(p, types.int32)) == "void(int32*, int32)"


def test_pointer_parameters_in_cuda():
    k = cuda.jit(types.void(types.CPointer(types.int32), types.int32,
                            types.CPointer(types.int32), types.CPointer(types.int32),
                            types.uint32))(axpy)
    assert k.signatures == ["(int32*, int32, int32*, int32*, uint32)"]
    src = next(iter(k.inspect_cuda().values()))
    assert "(int *r, int a, int *x, int *y, unsigned int n)" in src
    # int32 arithmetic is int64 in a cuda.jit kernel (Numba), stored back as int32
    assert "r[i] = (int)((long long)a * (long long)x[i] + (long long)y[i]);" in src


def test_pointer_string_signature_and_ptx():
    ptx, _ = cuda.compile_ptx(axpy, "void(float64*, float64, float64*, float64*, int64)")
    assert "ld.global.f64" in ptx or "ld.f64" in ptx
    assert "st.global.f64" in ptx or "st.f64" in ptx


def test_augmented_store_and_device_function():
    @cuda.jit(device=True)
    def twice(p, i):
        return p[i] * 2

    def k(p, out, n):
        i = cuda.grid(1)
        if i < n:
            p[i] += 1.5
            out[i] = twice(p, i)

    ptx, _ = cuda.compile_ptx(k, (types.CPointer(types.float32), types.float32[::1],
                                  types.int64))
    assert "add.f32" in ptx or "add.rn.f32" in ptx


LOADS = ("ldca", "ldcg", "ldcs", "ldlu", "ldcv")
STORES = ("stcg", "stcs", "stwb", "stwt")


@pytest.mark.parametrize("op", LOADS)
@pytest.mark.parametrize("ty,bits", [(types.int32, 32), (types.float64, 64),
                                     (types.uint8, 8)])
def test_cache_hint_loads_through_pointer(op, ty, bits):
    f = getattr(cuda, op)

    def f_ptr(ptr, r, n):
        for i in range(n):
            r[i] = f(ptr, i)

    ptx, _ = cuda.compile_ptx(f_ptr, (types.CPointer(ty), ty[::1], types.intp))
    assert f"ld.global.{op[2:]}.b{bits}" in ptx


@pytest.mark.parametrize("op", STORES)
@pytest.mark.parametrize("ty,bits", [(types.int64, 64), (types.float32, 32)])
def test_cache_hint_stores_through_pointer(op, ty, bits):
    f = getattr(cuda, op)

    def f_ptr(ptr, values, n):
        for i in range(n):
            f(ptr, i, values[i])

    ptx, _ = cuda.compile_ptx(f_ptr, (types.CPointer(ty), ty[::1], types.intp))
    assert f"st.global.{op[2:]}.b{bits}" in ptx


def test_cache_hint_pointer_index_errors():
    def two(ptr, r):
        r[0] = cuda.ldcg(ptr, (0, 1))

    with pytest.raises(TypeError, match="Expected 1 indices, got 2"):
        cuda.compile_ptx(two, (types.CPointer(types.int32), types.int32[::1]))


@pytest.mark.parametrize("sig,msg", [
    ("void(float32**)", "a pointer to a pointer"),
    ("void(Tuple(float32*, int32))", "a tuple cannot hold a pointer"),
    ("void(float32*[:])", "an array of pointers"),
])
def test_bad_pointer_signatures(sig, msg):
    with pytest.raises(TypeError, match=msg):
        cuda.compile_ptx(axpy, sig)


def test_pointer_to_non_number_is_rejected():
    with pytest.raises(TypeError, match="pointers to numbers only"):
        cuda.compile_ptx(axpy, (types.CPointer(types.none), types.int32))


def test_resolve_args_takes_int_addresses():
    k = cuda.jit(types.void(types.CPointer(types.int32), types.int32,
                            types.CPointer(types.int32), types.CPointer(types.int32),
                            types.uint32))(axpy)
    conv = k._resolve_args(0x7f0000001000, 5, 2 ** 63 + 16, np.int64(64), 16)
    assert conv[0] == 0x7f0000001000 and type(conv[0]) is int
    assert conv[2] == 2 ** 63 + 16 and conv[3] == 64
    assert conv[1].dtype == np.int32 and conv[4].dtype == np.uint32


def test_pointer_parameter_refuses_arrays_and_floats():
    k = cuda.jit(types.void(types.CPointer(types.float32), types.int64))(
        lambda p, n: None)
    with pytest.raises(TypeError, match="No matching definition"):
        k._resolve_args(np.zeros(3, np.float32), 3)
    with pytest.raises(TypeError, match="No matching definition"):
        k._resolve_args(1.5, 3)


def test_auto_device_refuses_non_contiguous():
    x = np.arange(10, dtype=np.float64)
    with pytest.raises(ValueError, match="not contiguous"):
        cuda.devicearray.auto_device(x[:-1:2])


# ---- cuda.carray / cuda.farray ----

def add_one(a_ptr):
    a = cuda.carray(a_ptr, (1,), dtype=cuda.float32)
    a[0] += 1.2


def test_carray_compiles_to_loads_and_stores():
    ptx, _ = cuda.compile_ptx(add_one, types.void(types.CPointer(types.float32)))
    assert "ld.global.f32" in ptx and "st.global.f32" in ptx


def grid2(p, m, n, out):
    a = cuda.farray(p, (m, n))
    b = cuda.carray(p, m * n)
    c = cuda.carray(p, (m, n))
    i, j = cuda.grid(2)
    if i < m and j < n:
        out[i, j] = a[i, j] + b[i * n + j] + c[i, j] * a.shape[1] + c.size


def test_carray_farray_runtime_shapes_in_cuda():
    k = cuda.jit("void(float64*, int64, int64, float64[:, ::1])")(grid2)
    src = next(iter(k.inspect_cuda().values()))
    assert "cj_carray<double, 2, long long>(p, {(long long)(m), (long long)(n)}, true)" in src
    assert "cj_carray<double, 1, long long>(p, {m * n}, false)" in src
    assert "cj_carray<double, 2, long long>(p, {(long long)(m), (long long)(n)}, false)" in src
    assert k.inspect_ptx(k.signatures[0])


def test_numpy_support_names_carray():
    assert cuda.numpy_support.carray is cuda.carray
    assert cuda.numpy_support.farray is cuda.farray


@pytest.mark.parametrize("call,msg", [
    ("cuda.carray(x, (1,))", "needs a raw pointer"),
    ("cuda.carray(p, 1.5)", "the shape is an integer or a tuple of integers"),
    ("cuda.carray(p, (2, 1.0))", "the shape is an integer or a tuple of integers"),
    ("cuda.carray(p, (2,), dtype=cuda.int32)", "differs from the pointer's float32"),
    ("cuda.farray(p)", "takes 2 or 3 arguments"),
])
def test_carray_errors(call, msg):
    ns = {"cuda": cuda}
    exec(compile(f"def f(p, x):\n    a = {call}\n    a[0] = 1\n", "/nonexistent/cptr_errors.py",
                 "exec"), ns)
    with pytest.raises(TypeError, match=msg):
        cuda.compile_ptx(ns["f"], "void(float32*, float32[:])")


def test_gpu_data_has_device_pointer():
    from cujit._gpudata import GpuData
    g = GpuData(0x7f0012345000)
    assert g == 0x7f0012345000 and int(g.device_pointer) == 0x7f0012345000


def test_device_function_declared_with_a_pointer():
    def get(p, i):
        return p[i]

    dev = cuda.jit("float32(float32*, int64)", device=True)(get)

    def k(p, out):
        out[0] = dev(p, 3)

    ptx, _ = cuda.compile_ptx(k, "void(float32*, float32[:])")
    assert "ld.global.f32" in ptx
    with pytest.raises(TypeError, match="none takes"):
        cuda.compile_ptx(k, "void(float64*, float32[:])")
