"""CUDA's vector types in Numba's spelling, without a GPU: the names and
aliases cujit.cuda gives (Numba's table), the vector_types dict and its
type objects, signatures naming vector types, and what is refused (a
kernel parameter, a host call).  Kernels' semantics are in
tests/kernels/vectypes.py (host shim and GPU); errors in tests/errors/."""
import numpy as np
import pytest

import cujit
from cujit import cuda
from cujit.cuda import vector_types

BASES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float32", "float64"]
# CUDA's C names, by the size NumPy gives them here (Numba's rule)
C_NAMES = {"char": np.byte, "short": np.short, "int": np.intc, "long": np.int_,
           "longlong": np.longlong, "uchar": np.ubyte, "ushort": np.ushort, "uint": np.uintc,
           "ulong": np.uint, "ulonglong": np.ulonglong, "float": np.single,
           "double": np.double}


def test_vector_types_dict():
    names = sorted(f"{b}x{n}" for b in BASES for n in range(1, 5))
    assert sorted(vector_types) == names
    for name, vt in vector_types.items():
        base, n = name.rsplit("x", 1)
        assert vt.name == name and str(vt) == name
        assert vt.num_elements == int(n)
        assert vt.attr_names == ("x", "y", "z", "w")[:int(n)]
        assert vt.base_type is getattr(cuda, base)
        assert getattr(cuda, name) is vt.user_facing_object


def test_aliases_are_numbas():
    for alias, t in C_NAMES.items():
        base = np.dtype(t).name
        for n in range(1, 5):
            ctor = getattr(cuda, f"{alias}{n}")
            assert ctor is getattr(cuda, f"{base}x{n}")
            assert f"{alias}{n}" in ctor.aliases
    assert cuda.float4 is cuda.float32x4 and cuda.double2 is cuda.float64x2
    assert cuda.short2 is cuda.int16x2 and cuda.uchar3 is cuda.uint8x3


def test_host_call_refused():
    with pytest.raises(TypeError, match="inside kernels and device functions only"):
        cuda.float32x2(1.0, 2.0)


def test_signature_strings():
    f2 = vector_types["float32x2"]
    sig = f2(f2, cuda.float32)
    assert str(sig) == "float32x2(float32x2, float32)"


def test_kernel_parameter_refused():
    """a signature is compiled at decoration (Numba's eager compile)"""
    with pytest.raises(TypeError, match="cannot take a CUDA vector type"):
        @cuda.jit("void(float32x4, float32[:])")
        def k(v, out):
            out[0] = v.x


def test_signature_array_of_vectors_refused():
    with pytest.raises(TypeError, match="arrays of and pointers to CUDA vector types"):
        @cuda.jit("void(float32x4[:])")
        def k(v):
            pass


def test_device_signature_object():
    """a device function compiled for a signature object naming vector types"""
    i2 = vector_types["int32x2"]

    @cuda.jit(i2(i2), device=True)
    def swap(v):
        return cuda.int2(v.y, v.x)

    @cuda.jit
    def k(a, out):
        v = swap(cuda.int32x2(a[0], a[1]))
        out[0] = v.x
        out[1] = v.y

    src = k.inspect_cuda(np.zeros(2, np.int32), np.zeros(2, np.int32))
    src = src if isinstance(src, str) else "\n".join(src.values())
    assert "int2 " in src and "make_int2(" in src
    ptx = k.inspect_ptx(np.zeros(2, np.int32), np.zeros(2, np.int32))
    assert ".entry" in (ptx if isinstance(ptx, str) else "\n".join(ptx.values()))


def test_device_signature_mismatch():
    """a declared vector parameter takes that vector type only"""
    f2 = vector_types["float32x2"]

    @cuda.jit(cuda.float32(f2), device=True)
    def first(v):
        return v.x

    @cuda.jit
    def k(out):
        out[0] = first(cuda.float64x2(1.0, 2.0))

    with pytest.raises(cujit.CompileError, match="none takes"):
        k.inspect_cuda(np.zeros(2, np.float32))


def test_vector_in_print_refused():
    @cuda.jit
    def k(out):
        print(cuda.float2(1.0, 2.0))

    with pytest.raises(cujit.CompileError, match="float32x2"):
        k.inspect_cuda(np.zeros(2, np.float32))


def test_unary_refused():
    @cuda.jit
    def k(out):
        v = -cuda.float2(1.0, 2.0)
        out[0] = v.x

    with pytest.raises(cujit.CompileError, match="not supported on CUDA vector types"):
        k.inspect_cuda(np.zeros(2, np.float32))


@pytest.mark.parametrize("name", sorted(vector_types))
def test_every_type_compiles(name):
    """the kernels tests/gpu/test_vectypes_gpu.py runs, one per vector
    type, compile to PTX here (NVRTC knows CUDA's vector types)"""
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import vectypes_cases
    vt = vector_types[name]
    kernel, order = vectypes_cases.make(vt)
    x = vectypes_cases.data(vt, 4, np.random.default_rng(1))
    out = np.zeros((4, len(order)), x.dtype)
    ptx = kernel.inspect_ptx(x, out)
    ptx = ptx if isinstance(ptx, str) else "\n".join(ptx.values())
    assert ".entry" in ptx
    src = kernel.inspect_cuda(x, out)
    src = src if isinstance(src, str) else "\n".join(src.values())
    cname = {"int8": "char", "int16": "short", "int32": "int", "int64": "longlong",
             "uint8": "uchar", "uint16": "ushort", "uint32": "uint", "uint64": "ulonglong",
             "float32": "float", "float64": "double"}[str(vt.base_type)]
    assert f"make_{cname}{vt.num_elements}(" in src


# every element type once, the lanes going round 1 to 4 (the host compiler
# takes about a second a kernel: all 40 are run on the GPU)
HOST = [f"{b}x{k % 4 + 1}" for k, b in enumerate(BASES)]


@pytest.mark.parametrize("name", HOST)
def test_lanes_on_host(name, tmp_path):
    """the GPU test's kernels run on the CPU through the host shim
    (tests/test_kernels_host.py): the lanes land where NumPy says"""
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import test_kernels_host
    import vectypes_cases
    if test_kernels_host.CXX is None:
        pytest.skip("no host C++ compiler (g++ or clang++)")
    vt = vector_types[name]
    kernel, order = vectypes_cases.make(vt)
    x = vectypes_cases.data(vt, 50, np.random.default_rng())
    out = np.full((50, len(order)), 77, x.dtype)
    test_kernels_host.host_launcher(str(tmp_path))(kernel, 2, 32, (x, out))
    np.testing.assert_array_equal(out, x[:, order])
