"""The integer, bit, byte and image kernels of tests/unseen/numba_int.py
without a GPU: every case's host code runs unchanged under cujit.cuda
against the fake libcuda (tests/fakecuda/unseen_int_scenarios.py, one fresh
process for all cases), each launched kernel built for the host and run
there on the parameters cujit packed (one host thread per CUDA thread where
the block's threads work together); the results are checked against the
references, which compute what compiled Numba computes.  Also the
regression tests of what these kernels found in cujit."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import cujit
from cujit import cuda
from test_kernels_host import CXX
from test_runtime_nogpu import fake_driver, nvrtc_or_skip  # noqa: F401

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "unseen"))
import numba_int  # noqa: E402

NAMES = [fn.__name__ for fn in numba_int.CASES]
PARAMS = [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=numba_int.CUJIT_XFAIL[n]))
          if n in numba_int.CUJIT_XFAIL else n for n in NAMES]


@pytest.fixture(scope="module")
def results(fake_driver, tmp_path_factory):  # noqa: F811
    nvrtc_or_skip()
    if CXX is None:
        pytest.skip("no host C++ compiler (g++ or clang++)")
    tmp = tmp_path_factory.mktemp("unseen_int")
    env = dict(os.environ, CUJIT_CACHE_DIR=str(tmp / "cache"),
               LD_LIBRARY_PATH=fake_driver + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    env.pop("CUJIT_CACHE", None)
    out = tmp / "results.json"
    r = subprocess.run([sys.executable, os.path.join(HERE, "fakecuda", "unseen_int_scenarios.py"),
                        str(out)], env=env, capture_output=True, text=True, timeout=1200)
    assert out.exists(), "the scenario ended without results:\n%s\n%s" % (r.stdout[-3000:],
                                                                        r.stderr[-3000:])
    return json.loads(out.read_text())


@pytest.mark.parametrize("name", PARAMS)
def test_case_on_host(results, name):
    assert name in results, "the case did not run"
    assert results[name] == "ok", results[name]


def test_module_has_enough_cases():
    assert len(NAMES) >= 40 and len(set(NAMES)) == len(NAMES)
    assert set(numba_int.SIM_DIFFERS) <= set(NAMES)


# ---- regressions ----

def test_bitwise_operator_of_a_float_is_a_compile_error():
    """x & 1 where Numba's typing made x a float64 (a variable assigned both
    a uint64 and an int64): Numba refuses the operator, and so does cujit,
    at the user's line (it printed `v & 1.0` for NVRTC to refuse before)"""
    nvrtc_or_skip()

    def k(a, out):
        i = cuda.grid(1)
        v = a[i] >> 1          # uint64
        if i > 3:
            v = i              # int64: v is float64
        out[i] = v & 1

    with pytest.raises(cujit.CompileTypeError, match=r"operator & needs integers or booleans, "
                       r"got float64 and int64 \(in Numba's typing a variable assigned both"):
        cuda.jit(k).inspect_cuda("void(uint32[::1], int64[::1])")

    def s(a, out):
        i = cuda.grid(1)
        out[i] = a[i] << 2

    with pytest.raises(cujit.CompileTypeError, match=r"operator << needs integers"):
        cuda.jit(s).inspect_cuda("void(float32[::1], int64[::1])")
