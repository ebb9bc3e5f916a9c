"""scripts/peer_suite.py, the adapter that runs CuPy's and numba-cuda's own
kernel tests against cujit: its import renames (on sources written here, not
the peers'), the classes it gives failures, and one run of a small suite in
the peers' style (cupyx.jit spelling, which needs no peer installed) with its
table."""
import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "scripts", "peer_suite.py")

_spec = importlib.util.spec_from_file_location("peer_suite", SCRIPT)
ps = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ps)

NAMES = {m: ps.cujit_names(m) for m in ("cujit", "cujit.cuda", "cujit.jit")}


def rw(src):
    out, kept, _ = ps.rewrite(textwrap.dedent(src), "peer_pkg", NAMES)
    return out, kept


def test_numba_imports_renamed():
    out, kept = rw("""\
        from numba import cuda, njit, float32
        from numba.cuda import jit as cjit, types, to_device
        from numba.cuda.testing import CUDATestCase
        import numba.cuda as nc
        """)
    assert "from cujit import cuda; from numba import njit" in out
    assert "from numba.cuda.testing import CUDATestCase" in out      # helpers stay
    assert "import cujit.cuda as nc" in out
    assert "numba.njit" in kept
    # numba.cuda.types is Numba's until cujit.cuda has it (cujit/_ntypes.py)
    if "types" in NAMES["cujit.cuda"]:
        assert "from cujit.cuda import jit as cjit, types, to_device" in out
        assert "numba.cuda.types" not in kept
    else:
        assert "from cujit.cuda import jit as cjit, to_device" in out
        assert "from numba.cuda import types" in out and "numba.cuda.types" in kept
    # Numba's type objects are Numba's until cujit.cuda has them
    assert ("numba.float32" in kept) != ("float32" in NAMES["cujit.cuda"])


def test_cupyx_imports_and_attributes_renamed_line_numbers_kept():
    src = '''\
        """doc"""
        from __future__ import annotations
        import cupyx.jit
        from cupyx.jit import rawkernel, threadIdx


        @cupyx.jit.rawkernel()
        def f(x):
            x[cupyx.jit.threadIdx.x] = 1
        '''
    out, kept = rw(src)
    assert out.count("\n") == textwrap.dedent(src).count("\n")
    lines = out.splitlines()
    assert lines[2] == "import cujit.cuda, cujit.jit; import cupyx.jit"
    assert lines[3] == "from cujit.jit import rawkernel, threadIdx"
    assert lines[6] == "@cujit.jit.rawkernel()"
    assert lines[8] == "    x[cujit.jit.threadIdx.x] = 1"
    assert kept == []


def test_vectorize_and_peer_package_imports():
    out, _ = rw("""\
        from numba import vectorize, guvectorize as gu
        from numba.cuda import vectorize as cv
        from numba.cuda.tests.cudapy.cache_usecases import UseCase
        from .extensions_usecases import MyStruct

        def f():
            from cupyx import jit
        """)
    # numba.vectorize is the CPU's unless target="cuda": a shim decides
    assert "from _peer_shims import vectorize, guvectorize as gu" in out
    assert "from cujit.cuda import vectorize as cv" in out
    assert "from peer_pkg.cache_usecases import UseCase" in out
    assert "from .extensions_usecases import MyStruct" in out
    assert "    from cujit import jit" in out


@pytest.mark.parametrize("text, cls", [
    ("numba.cuda.cudadrv.error.CudaSupportError: Error at driver init", "environment"),
    ("ModuleNotFoundError: No module named 'cffi'", "environment"),
    ("AttributeError: 'Dispatcher' object has no attribute '_func'", "internals"),
    ("kernel.inspect_llvm()", "internals"),
    ("cuda.jit(void(types.int32[:]))", "types"),
    ("Failed: DID NOT RAISE <class 'TypeError'>", "errors"),
    ("cujit.CompileError: unknown name 'cub'", "feature"),
])
def test_classes(text, cls):
    assert ps.classify(text) == cls


SUITE = {
    "test_style.py": '''\
        import numpy
        import pytest
        from cupyx import jit


        def test_passes():
            @jit.rawkernel()
            def f(x, y):
                i = jit.grid(1)
                if i < x.size:
                    y[i] = x[i] * 2
            x = numpy.arange(8, dtype=numpy.float32)
            y = numpy.zeros_like(x)
            src = f.inspect_cuda(x, y)
            assert "__global__" in src


        def test_feature_missing():
            @jit.rawkernel()
            def f(x):
                x[0] = jit.no_such_builtin(1)
            f.inspect_cuda(numpy.zeros(1, numpy.float32))


        def test_skipped():
            pytest.skip("not here")
        ''',
    "test_broken.py": "import no_such_peer_helper_module\n",
}


def test_run_small_suite(tmp_path):
    src = tmp_path / "jit_tests"
    src.mkdir()
    for name, text in SUITE.items():
        (src / name).write_text(textwrap.dedent(text))
    out_json = tmp_path / "r.json"
    r = subprocess.run([sys.executable, SCRIPT, str(src), "--json", str(out_json), "-j", "2"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    rows = {os.path.basename(f["file"]): f for f in json.loads(out_json.read_text())["files"]}
    style = rows["test_style.py"]
    assert (style["passed"], style["failed"], style["skipped"]) == (1, 1, 1), style
    (fail,) = style["failures"]
    assert fail["test"].endswith("test_feature_missing") and fail["class"] == "feature"
    assert "no_such_builtin" in fail["first_line"]
    broken = rows["test_broken.py"]
    assert broken["errors"] == 1 and broken["failures"][0]["class"] == "environment"
    assert "No module named 'no_such_peer_helper_module'" in broken["failures"][0]["first_line"]
    assert "test_style.py" in r.stdout and "[feature]" in r.stdout and "total" in r.stdout


def test_source_errors():
    r = subprocess.run([sys.executable, SCRIPT, "cupy"], capture_output=True, text=True)
    assert r.returncode != 0 and "fetch_peer_tests.py" in r.stderr
    r = subprocess.run([sys.executable, SCRIPT, "/no/such/folder"], capture_output=True,
                       text=True)
    assert r.returncode != 0 and "no such folder" in r.stderr
