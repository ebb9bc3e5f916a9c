"""Foreign compiled code (PTX, cubin, fatbin, object, archive; LTO-IR through
nvJitLink) linked into kernels through the driver's JIT linker, on the fake
driver:
tests/fakecuda/link_scenarios.py, each scenario in a fresh process.  The
code to link is made here: PTX, a relocatable cubin and LTO-IR by NVRTC, the fatbin,
object and archive by nvcc where the machine has it."""
import os
import shutil
import subprocess
import sys

import pytest

import cujit
from cujit import _cujit as C
from test_runtime_nogpu import FAKE_DIR, fake_driver, nvrtc_or_skip  # noqa: F401

# Numba's ABI (int name(ret *out, args...)) and the C ABI
F_CU = r'''
extern "C" __device__ int mul3(int *out, int a) { *out = 3 * a; return 0; }
extern "C" __device__ float addf(float a, float b) { return a + b; }
extern "C" __device__ int array_mutator(void *out, int *a) { a[0] = a[1]; return 0; }
'''


def ltoir_of(src, arch="90"):
    """LTO-IR of src by NVRTC (-dlto), through ctypes on the libnvrtc cujit
    loaded (found again by its soname)"""
    import ctypes
    C._nvrtc_version()
    lib = ctypes.CDLL("libnvrtc.so.13")
    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), b"lto.cu", 0, None,
                                  None) == 0
    opts = [b"-dlto", b"-rdc=true", b"--gpu-architecture=compute_" + arch.encode()]
    assert lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts)) == 0
    n = ctypes.c_size_t()
    assert lib.nvrtcGetLTOIRSize(prog, ctypes.byref(n)) == 0
    buf = ctypes.create_string_buffer(n.value)
    assert lib.nvrtcGetLTOIR(prog, buf) == 0
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return buf.raw


def nvcc():
    for p in (shutil.which("nvcc"), os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"),
                                                 "bin", "nvcc")):
        if p and os.path.exists(p):
            return p
    return None


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    nvrtc_or_skip()
    d = tmp_path_factory.mktemp("linkdata")
    ptx, _, _ = C._nvrtc_compile(F_CU, "f", "compute_90", options=["-rdc=true"])
    _, cubin, _ = C._nvrtc_compile(F_CU, "f", "sm_90", cubin=True, options=["-rdc=true"])
    (d / "f.ptx").write_text(ptx)
    (d / "g.ptx").write_text(ptx + "\n// g\n")
    (d / "jitlink.ptx").write_text(ptx)
    (d / "f.cubin").write_bytes(cubin)
    (d / "f.ltoir").write_bytes(ltoir_of(F_CU))
    cc = nvcc()
    if cc:
        # the toolkit's programs run without the sanitizers make asan-py preloads
        env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        (d / "f.cu").write_text(F_CU)
        for args in (["-fatbin", "-o", "f.fatbin"], ["-dc", "-o", "f.o"]):
            r = subprocess.run([cc, "-arch=sm_90", "-rdc=true", "f.cu", *args], cwd=d,
                               capture_output=True, text=True, env=env)
            assert r.returncode == 0, r.stderr
        r = subprocess.run(["ar", "rcs", "libf.a", "f.o"], cwd=d, capture_output=True, text=True,
                           env=env)
        assert r.returncode == 0, r.stderr
    return str(d)


def run(fake_driver, name, data, cache_dir, **env):  # noqa: F811
    e = dict(os.environ, CUJIT_CACHE_DIR=str(cache_dir),
             LD_LIBRARY_PATH=fake_driver + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    e.pop("CUJIT_CACHE", None)
    e.update(env)
    r = subprocess.run([sys.executable, os.path.join(FAKE_DIR, "link_scenarios.py"), name, data],
                       env=e, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, "scenario %s failed:\n%s\n%s" % (name, r.stdout, r.stderr)
    assert "%s ok" % name in r.stdout
    return r


@pytest.mark.parametrize("name", ["kinds", "objects_and_abis", "link_errors"])
def test_scenario(fake_driver, data, tmp_path, name):  # noqa: F811
    run(fake_driver, name, data, tmp_path)


def test_every_kind_when_nvcc_is_here(fake_driver, data, tmp_path):  # noqa: F811
    r = run(fake_driver, "kinds", data, tmp_path)
    assert ("kinds ok 5" if nvcc() else "kinds ok 2") in r.stdout


def test_from_buffer(fake_driver, data, tmp_path):  # noqa: F811
    pytest.importorskip("cffi")
    run(fake_driver, "jitlink_from_buffer", data, tmp_path)


def test_linked_image_cached_and_keyed_by_the_file(fake_driver, data, tmp_path):  # noqa: F811
    r = run(fake_driver, "cache_first", data, tmp_path, CUJIT_LOG="1")
    assert ", link " in r.stderr and "disk cache miss (stored)" in r.stderr, r.stderr
    r = run(fake_driver, "cache_second", data, tmp_path, CUJIT_LOG="1", CHANGED="1")
    assert "disk cache hit" in r.stderr, r.stderr


def test_ltoir_through_nvjitlink(fake_driver, data, tmp_path):  # noqa: F811
    r = run(fake_driver, "lto", data, tmp_path, CUJIT_LOG="1")
    assert ", link " in r.stderr, r.stderr


def test_declaration_api_checks_items(tmp_path):
    from cujit import cuda
    with pytest.raises(ValueError, match="is not LTO-IR"):
        cuda.declare_device("f", "int32()", link=cuda.LTOIR(b"\x7fELF"))
    with pytest.raises(FileNotFoundError, match="does not exist"):
        cuda.declare_device("f", "int32()", link=str(tmp_path / "f.ltoir"))
    with pytest.raises(FileNotFoundError, match="does not exist"):
        cuda.declare_device("f", "int32()", link=str(tmp_path / "f.ptx"))
    with pytest.raises(TypeError, match="holds int, not bytes"):
        cuda.declare_device("f", "int32()", link=cuda.Cubin(3))
    f = cuda.declare_device("f", "int32()", link=cuda.PTXSource(".version 8.0\n.target sm_90\n"))
    assert f.__cujit_extern__[4][0].startswith("//@cujit-link ptx ")
    with pytest.raises(ValueError, match="empty"):
        C._link_blob("ptx", b"", "x")
    with pytest.raises(ValueError, match="unknown kind"):
        C._link_blob("cu", b"x", "x")
    assert isinstance(cujit.CudaError, type)
