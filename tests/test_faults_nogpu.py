"""Faults in the runtime (issue 14, part 2): every driver and NVRTC call of a
representative workload fails in turn, against the fake libcuda and an NVRTC
shim that forwards to the real NVRTC (tests/fakecuda/faultplan.h).  The
scenarios are in tests/fakecuda/fault_scenarios.py, each in a fresh process.

What they found, each failing here before its fix (the fault in brackets):
- a vectorized call or gufunc returned a result with an exception set
  (SystemError): the grid size ignored a failed device query [cuCtxGetCurrent
  in vadd(), add, where];
- a host operand's device copy leaked when the context could not be read at
  its release, and the forms ignored a failed release (an exception behind a
  result) [cuCtxGetCurrent in vadd(x, host)];
- arrays, streams and events freed while the context read failed leaked
  their memory or handle [cuCtxGetCurrent, cuMemFreeAsync, cuStreamDestroy];
- a failed cuInit left the driver unusable for the rest of the process;
- messages that named neither the operation nor the kernel ("cuCtxGetCurrent
  failed", "cannot make device 0 current", an allocation inside vadd())."""
import os
import shutil
import subprocess
import sys

import pytest

import cujit
from cujit import _cujit as C

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAKE_DIR = os.path.join(ROOT, "tests", "fakecuda")


def real_nvrtc():
    """the NVRTC library this process loaded, and its toolkit's include folder"""
    try:
        C._nvrtc_version()
    except cujit.CudaError as e:
        pytest.skip("NVRTC not available: %s" % e)
    with open("/proc/self/maps") as f:
        paths = {ln.split()[-1] for ln in f if "libnvrtc.so" in ln and "/" in ln}
    paths = [p for p in paths if "builtins" not in os.path.basename(p)]
    if not paths:
        pytest.skip("cannot tell which NVRTC library was loaded")
    lib = paths[0]
    inc = os.path.join(os.path.dirname(os.path.dirname(lib)), "include")
    return lib, inc


def build(out, src, name, *flags):
    cc = os.environ.get("CC", "cc")
    r = subprocess.run([cc, "-shared", "-fPIC", "-O1", "-Wall", "-Werror", "-o",
                        os.path.join(out, name), os.path.join(FAKE_DIR, src), *flags],
                       capture_output=True, text=True)
    assert r.returncode == 0, "cannot build %s: %s" % (src, r.stderr[-1500:])


@pytest.fixture(scope="module")
def fakes(tmp_path_factory):
    """{env} running Python with the fake libcuda and the NVRTC shim"""
    if not shutil.which(os.environ.get("CC", "cc")) or not sys.platform.startswith("linux"):
        pytest.skip("needs a C compiler on Linux to build the fake libraries")
    lib, inc = real_nvrtc()
    out = tmp_path_factory.mktemp("faults")
    home = out / "nvrtc"
    (home / "lib64").mkdir(parents=True)
    if os.path.isdir(inc):
        os.symlink(inc, home / "include")
    build(str(out), "fakecuda.c", "libcuda.so.1")
    build(str(home / "lib64"), "fakenvrtc.c", "libnvrtc.so.13", "-ldl")
    return {"LD_LIBRARY_PATH": str(out) + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""),
            "CUDA_HOME": str(home), "FAKENVRTC_REAL": lib,
            "FAKENVRTC_LIB": str(home / "lib64" / "libnvrtc.so.13"),
            "CUJIT_PRELOAD_NVRTC": "0", "CUJIT_SYSTEM_CUDA": "1"}


def run_scenario(fakes, name, cache_dir, **env):
    e = dict(os.environ, CUJIT_CACHE_DIR=str(cache_dir), **fakes)
    e.pop("CUJIT_CACHE", None)
    e.update(env)
    r = subprocess.run([sys.executable, os.path.join(FAKE_DIR, "fault_scenarios.py"), name],
                       env=e, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, "scenario %s failed:\n%s\n%s" % (name, r.stdout[-8000:],
                                                                r.stderr[-4000:])
    assert "%s ok" % name in r.stdout
    return r


def test_every_call_of_a_warm_workload_fails_in_turn(fakes, tmp_path):
    r = run_scenario(fakes, "warm_faults", tmp_path)
    assert "warm_faults: 0 problems" in r.stdout


def test_every_call_of_loading_new_kernels_fails_in_turn(fakes, tmp_path):
    r = run_scenario(fakes, "cold_faults", tmp_path)
    assert "cold_faults: 0 problems" in r.stdout
    for name in ("nvrtcCompileProgram", "cuModuleLoadData", "cuModuleGetFunction"):
        assert name in r.stdout


# entry points called once per process (set-up): failed at their first call
FIRST_USE = ["cuInit:1:999", "cuDeviceGetCount:1:999", "cuDeviceGet:1:999",
             "cuDevicePrimaryCtxRetain:1:709", "cuCtxSetCurrent:1:709",
             "cuDeviceGetAttribute:1:999", "cuMemPoolCreate:1:2", "cuMemPoolSetAttribute:1:999",
             "cuStreamCreate:1:2", "cuEventCreate:1:2", "nvrtcGetNumSupportedArchs:1:1",
             "nvrtcCompileProgram:1:1", "nvrtcCreateProgram:1:1"]


@pytest.mark.parametrize("fault", FIRST_USE)
def test_a_failed_set_up_call_is_tried_again(fakes, tmp_path, fault):
    r = run_scenario(fakes, "first_use", tmp_path, FAKECUDA_FAULT=fault)
    assert "first:" in r.stdout
