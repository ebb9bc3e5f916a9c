"""Numba's host API and dispatcher surface in cujit.cuda without a GPU:
cuda.jit's keyword arguments (launch_bounds= in the CUDA and PTX,
shared_memory_carveout=, lto=, link= ...), the Dispatcher's attributes,
launch configuration errors with Numba's messages, and, against the fake
libcuda (tests/fakecuda/napi_scenarios.py, each in a fresh process), kernel
attributes, foreign arrays, cuda.gpus / current_context / streams, In / Out
/ extensions and device arrays read as globals.  On the GPU:
tests/gpu/test_numba_host_api_gpu.py."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import cujit
from cujit import cuda
from test_runtime_nogpu import fake_driver, nvrtc_or_skip  # noqa: F401

FAKE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fakecuda")
SIG = "(float32[::1])"


def body_kernel(x):
    x[0] = 1


# ---- cuda.jit's keyword arguments ----

@pytest.mark.parametrize("bounds, text, ptx", [
    (128, "__launch_bounds__(128)", [r"\.maxntid 128, 1, 1"]),
    ((128,), "__launch_bounds__(128)", [r"\.maxntid 128, 1, 1"]),
    ((256, 2), "__launch_bounds__(256, 2)", [r"\.maxntid 256, 1, 1", r"\.minnctapersm 2"]),
    ((128, 2, 4), "__launch_bounds__(128, 2, 4)",
     [r"\.maxntid 128, 1, 1", r"\.minnctapersm 2", r"\.maxclusterrank 4"]),
])
def test_launch_bounds_in_cuda_and_ptx(bounds, text, ptx):
    k = cuda.jit(launch_bounds=bounds)(body_kernel)
    src = k.inspect_cuda(SIG)
    assert f'extern "C" __global__ void {text} cj_body_kernel' in src
    nvrtc_or_skip()
    p = k.inspect_ptx(SIG, arch="sm_90")
    for pat in ptx:
        assert re.search(pat, p), (pat, p[:2000])
    if len(text.split(",")) < 2:
        assert ".minnctapersm" not in p


def test_launch_bounds_coarsened_entry_and_key():
    def saxpy(a, x, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a * x[i]
    plain = cuda.jit(saxpy).inspect_cuda("(float32, float32[::1], float32[::1])")
    bounded = cuda.jit(launch_bounds=64)(saxpy).inspect_cuda(
        "(float32, float32[::1], float32[::1])")
    assert "__launch_bounds__" not in plain         # the front key tells them apart
    assert bounded.count("__launch_bounds__(64)") == bounded.count("__global__") >= 2


@pytest.mark.parametrize("bad, exc, text", [
    ((128, 2, 4, 8), ValueError, "Got 4 launch bounds:"),
    ((), ValueError, "Got 0 launch bounds"),
    ((0,), ValueError, "positive"),
    ((128.0,), ValueError, "positive"),
])
def test_launch_bounds_errors(bad, exc, text):
    with pytest.raises(exc, match=text):
        cuda.jit("void()", launch_bounds=bad)(lambda: None)


@pytest.mark.parametrize("bad, exc, text", [
    (150, ValueError, "must be between -1 and 100"),
    (-2, ValueError, "must be between -1 and 100"),
    ("InvalidOption", ValueError, "Invalid carveout value"),
    (1.5, TypeError, "int or a str"),
])
def test_carveout_errors(bad, exc, text):
    with pytest.raises(exc, match=text):
        cuda.jit(shared_memory_carveout=bad)(body_kernel)
    with pytest.raises(exc, match=text):
        cuda.jit("void(int32[:])", shared_memory_carveout=bad)(body_kernel)
    with pytest.raises(ValueError, match="between -1 and 100"):
        cujit.Kernel(body_kernel, carveout=101)


def test_accepted_options_and_link():
    k = cuda.jit(lto=True, forceinline=True, _dbg_optnone=False, extensions=[],
                 shared_memory_carveout="MaxShared")(body_kernel)
    assert "__global__" in k.inspect_cuda(SIG) and k.extensions == []
    with pytest.raises(TypeError, match="unexpected keyword argument 'nonsense'"):
        cuda.jit(nonsense=1)
    with pytest.raises(FileNotFoundError, match=r"cuda.jit\(link=...\): link file 'f.ptx' "):
        cuda.jit(link=["f.ptx"])        # linked (tests/test_link_nogpu.py) once it exists
    with pytest.raises(ValueError, match="link keyword invalid for device function"):
        cuda.jit(device=True, link=["f.cu"])


# ---- the Dispatcher ----

def test_docstring_definition_and_overloads():
    def add_kernel(a, b):
        """Add two integers, kernel version"""
        a[0] = b

    def add_device(a, b):
        """Add two integers, device version"""
        return a + b
    k, d = cuda.jit(add_kernel), cuda.jit(device=True)(add_device)
    assert k.__doc__ == "Add two integers, kernel version"
    assert d.__doc__ == "Add two integers, device version"
    with pytest.raises(TypeError, match="0 signatures"):
        k.definition
    k.inspect_cuda("(float64[::1], float64)")
    assert "__global__" in k.definition
    assert k.overloads[(cuda.float64[::1], cuda.float64)].inspect_cuda() == k.definition
    assert k.definitions[(cuda.float64[::1], cuda.float64)] == k.definition
    nvrtc_or_skip()
    assert ".entry cj_add_kernel" in k.inspect_lto_ptx((cuda.float64[::1], cuda.float64))


def test_specialize_with_types_is_cached():
    def f(x, y):
        pass
    k = cuda.jit(f)
    assert len(k.specializations) == 0 and not k.specialized
    a = k.specialize(cuda.float32[:], cuda.float32[:])
    c = k.specialize(cuda.float32[::1], cuda.float32[::1])
    assert len(k.specializations) == 2 and a is not c and a.specialized
    assert k.specialize(cuda.float32[::1], cuda.float32[::1]) is c
    assert c.signatures == ["(float32[::1], float32[::1])"]
    with pytest.raises(RuntimeError, match="Dispatcher already specialized"):
        c.specialize(cuda.int32[::1], cuda.int32[::1])
    one = cuda.jit("void(float32[::1], float32[::1])")(f)
    with pytest.raises(RuntimeError, match="Dispatcher already specialized"):
        one.specialize(cuda.float32[::1], cuda.float32[::1])
    assert not cuda.jit(["void(float32[::1], float32[::1])"])(f).specialized


def add_kernel(r, x, y):
    r[0] = x + y


def set_first(x, n):
    x[0] = n


def test_explicit_signatures_resolve_as_numba():
    f = cuda.jit(["(float64[::1], float32, float32)", "(float64[::1], float64, float64)",
                  "(int64[::1], int64, int64)"])(add_kernel)
    r = np.zeros(1)
    a = f._resolve_args(r, np.float32(1), np.float32(2))       # exact
    assert a[0] is r and [type(x) for x in a[1:]] == [np.float32, np.float32]
    a = f._resolve_args(r, 1, 2.5)                              # int -> float64: safe
    assert [type(x) for x in a[1:]] == [np.float64, np.float64] and a[1] == 1
    a = f._resolve_args(np.zeros(1, np.int64), 1, np.int32(2))  # promotion to int64
    assert [type(x) for x in a[1:]] == [np.int64, np.int64]
    with pytest.raises(TypeError, match="is a float .* parameter is int64"):
        f._resolve_args(np.zeros(1, np.int64), 1.5, 2)          # no float to an int, as Numba
    with pytest.raises(TypeError, match=r"No matching definition for argument type\(s\) "
                       r"array\(complex128, 1d, C\), complex128, complex128"):
        f._resolve_args(np.zeros(1, np.complex128), 1j, 1j)
    with pytest.raises(TypeError, match="No matching definition"):
        f._resolve_args(np.zeros((1, 1)), 1.0, 2.0)             # rank
    g = cuda.jit("void(float32[:], int32)")(set_first)
    a = g._resolve_args(np.zeros(4, np.float32)[::2], 3)        # 'A' takes any layout
    assert type(a[1]) is np.int32
    a = g._resolve_args(np.zeros(4, np.float32), (1 << 31) | 5)  # wraps, as Numba's launch
    assert type(a[1]) is np.int32 and a[1] == -(1 << 31) + 5
    assert g._by_signature and not cuda.jit(add_kernel)._by_signature
    assert not cuda.jit("void(float32[::1], float32, float32)", device=True)(
        add_kernel)._by_signature


def test_launch_configuration_errors():
    k = cuda.jit(body_kernel)
    with pytest.raises(ValueError, match=re.escape(
            "griddim must be a sequence of 1, 2 or 3 integers, got [1, 2, 3, 4]")):
        k[(1, 2, 3, 4), (5, 6)]
    with pytest.raises(ValueError, match=re.escape(
            "blockdim must be a sequence of 1, 2 or 3 integers, got [3, 4, 5, 6]")):
        k[(1, 2), (3, 4, 5, 6)]
    with pytest.raises(TypeError, match=re.escape(
            "griddim must be a sequence of integers, got [2.0]")):
        k[2.0, 3]
    with pytest.raises(TypeError, match=re.escape(
            "blockdim must be a sequence of integers, got [3.0]")):
        k[2, (3.0,)]
    with pytest.raises(ValueError, match="launch configuration was not specified"):
        k(np.zeros(1))
    with pytest.raises(ValueError, match="launch configuration was not specified"):
        cuda.jit("void(float32[::1])")(body_kernel)(0)
    with pytest.raises(TypeError, match="device function"):
        cuda.jit(device=True)(body_kernel)(0)
    with pytest.raises(ValueError, match="launch configuration was not specified"):
        k(1, 2, np.zeros(1))                        # a third argument that is no tuple


def test_host_names_without_gpu():
    assert cuda.cudadrv.devicearray.DeviceNDArray is cujit.DeviceArray
    assert cuda.devicearray is cuda.cudadrv.devicearray
    assert cuda.cudadrv.driver.CudaAPIError is cujit.CudaError
    assert cuda.is_bfloat16_supported() is (   # False where no GPU can be reached
        cujit.is_available() and tuple(cuda.get_current_device().compute_capability) >= (8, 0))
    s = cuda.default_stream()
    assert s.handle == 0 and cuda.legacy_default_stream().handle == 1
    assert cuda.per_thread_default_stream().handle == 2
    e = cuda.external_stream(0x12345678)
    assert int(e.handle) == 0x12345678 and e.external
    with pytest.raises(ValueError, match="not a cujit IPC handle"):
        cuda.open_ipc_array(b"", 4, np.int64)
    with pytest.raises(NotImplementedError, match="Masked arrays are not supported"):
        cuda.from_cuda_array_interface({"shape": (1,), "typestr": "<f4", "data": (0, False),
                                        "version": 3, "mask": object()})
    with pytest.raises(TypeError, match="__cuda_array_interface__"):
        cuda.as_cuda_array(np.zeros(3))
    assert isinstance(cuda.In(np.zeros(1)), cuda.In)


# ---- against the fake driver ----

def run_scenario(fake_driver, name, tmp_path):  # noqa: F811
    e = dict(os.environ, CUJIT_CACHE_DIR=str(tmp_path),
             LD_LIBRARY_PATH=fake_driver + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    e.pop("CUJIT_CACHE", None)
    r = subprocess.run([sys.executable, os.path.join(FAKE_DIR, "napi_scenarios.py"), name],
                       env=e, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, "scenario %s failed:\n%s\n%s" % (name, r.stdout[-4000:],
                                                                r.stderr[-4000:])
    assert "%s ok" % name in r.stdout


@pytest.mark.parametrize("name", ["attributes", "explicit_signatures", "carveout", "foreign_arrays", "launch_sync", "no_transfer_for_device_data", "host_api",
                                  "in_out_and_extensions", "captured_globals",
                                  "numba_host_rules", "device_array_methods"])
def test_fake_driver(fake_driver, tmp_path, name):  # noqa: F811
    nvrtc_or_skip()
    run_scenario(fake_driver, name, tmp_path)


@cuda.jit("void(float32[::1])")
def module_kernel(x):
    x[0] = 1


def test_pickle_dispatcher():
    import pickle
    assert pickle.loads(pickle.dumps(module_kernel)) is module_kernel    # by name
    k = cuda.jit("void(float64[::1])")(body_kernel)                      # by its function
    k2 = pickle.loads(pickle.dumps(k))
    assert k2 is not k and k2.signatures == ["(float64[::1])"] and k2._by_signature
    assert k2.specialized and isinstance(k2, cuda.Dispatcher)
    lazy = pickle.loads(pickle.dumps(cuda.jit(lineinfo=True)(body_kernel)))
    assert lazy.signatures == [] and not lazy._by_signature

    def local(x):
        x[0] = 2
    k3 = pickle.loads(pickle.dumps(cuda.jit(local)))      # by value (tests/test_dispatch_nogpu.py)
    assert k3.py_func is not local and k3.py_func.__code__ == local.__code__


def test_numba_random_module_path_imports_first():
    # from numba.cuda.random import ... with numba renamed, in a fresh process
    # (before anything read cuda.random): cujit.random itself, spec untouched
    code = ("from cujit.cuda.random import create_xoroshiro128p_states as c\n"
            "import cujit.random as r, cujit.cuda as cu\n"
            "assert c is r.create_xoroshiro128p_states and cu.random is r\n"
            "assert r.__spec__.name == 'cujit.random', r.__spec__\n"
            "try:\n    import cujit.cuda.nothing\nexcept ModuleNotFoundError as e:\n"
            "    print('refused', e.name)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "refused cujit.cuda.nothing", r.stdout
