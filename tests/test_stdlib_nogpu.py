"""The array stdlib without a GPU: each scenario of tests/fakecuda/stdlib_scenarios.py
runs in a fresh process against the fake libcuda, where the bundled kernels
compile through NVRTC but do not run: result dtypes and shapes against
NumPy's (every dtype pair, every operator and function), errors, views,
laziness of the import and leaks.  Values are checked on the GPU
(tests/gpu/test_stdlib_gpu.py)."""
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

import cujit
from cujit import _cujit as C

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAKE_DIR = os.path.join(ROOT, "tests", "fakecuda")
# compiled kernels are kept between runs (the disk cache keys on everything
# that changes a binary), so only the first run pays NVRTC for them
CACHE = os.path.join(tempfile.gettempdir(), "cujit-test-stdlib-cache-%d" % os.getuid())


@pytest.fixture(scope="module")
def fake_driver(tmp_path_factory):
    cc = os.environ.get("CC", "cc")
    if not shutil.which(cc) or not sys.platform.startswith("linux"):
        pytest.skip("needs a C compiler on Linux to build the fake libcuda")
    try:
        C._nvrtc_version()
    except cujit.CudaError as e:
        pytest.skip("NVRTC not available: %s" % e)
    out = tmp_path_factory.mktemp("fakecuda")
    lib = str(out / "libcuda.so.1")
    r = subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", lib,
                        os.path.join(FAKE_DIR, "fakecuda.c")], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip("cannot build the fake libcuda: " + r.stderr[-500:])
    return str(out)


def run_scenario(fake_driver, name):
    e = dict(os.environ, CUJIT_CACHE_DIR=CACHE,
             LD_LIBRARY_PATH=fake_driver + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    e.pop("CUJIT_CACHE", None)
    r = subprocess.run([sys.executable, os.path.join(FAKE_DIR, "stdlib_scenarios.py"), name],
                       env=e, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, "scenario %s failed:\n%s\n%s" % (name, r.stdout[-6000:],
                                                                r.stderr[-6000:])
    assert "%s ok" % name in r.stdout
    return r


@pytest.mark.parametrize("name", ["lazy_import", "binary_dtypes", "inplace_dtypes",
                                  "unary_and_functions", "reductions", "errors", "views",
                                  "creation", "operands", "compile_elementwise", "numpy_protocols",
                                  "writes", "no_leaks"])
def test_stdlib(fake_driver, name):
    run_scenario(fake_driver, name)


def test_import_cost():
    """import cujit neither loads the stdlib nor NumPy."""
    code = ("import sys, cujit\n"
            "bad = [m for m in ('cujit._stdlib', 'numpy') if m in sys.modules]\n"
            "assert not bad, bad\n")
    r = subprocess.run([sys.executable, "-c", code], env=dict(os.environ),
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_stdlib_kernels_are_kernel_language():
    """The bundled kernels live in the installed package (cujit/_stdlib/kernels/)
    and load by path."""
    from cujit import _stdlib
    pkg = os.path.join(os.path.dirname(os.path.abspath(cujit.__file__)), "_stdlib", "kernels")
    for name in ("elementwise", "reductions", "scan", "creation"):
        m = _stdlib._kmod(name)
        assert os.path.dirname(m.__file__) == pkg
    assert isinstance(_stdlib._ek("add"), cujit.Vectorize)
    assert isinstance(_stdlib._kmod("reductions").add, cujit.Reduce)
    assert isinstance(_stdlib._kmod("reductions").arg_kernels[0], cujit.Kernel)
