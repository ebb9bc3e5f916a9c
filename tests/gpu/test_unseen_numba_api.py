"""The breadth of numba.cuda's language and API in unusual combinations
(tests/unseen/numba_api.py: tuples, namedtuples, records, complex and
cmath, float16, integer semantics, math, builtins, control flow, device
functions, globals and closures, shared / dynamic shared / local arrays,
views, atomics, warp intrinsics, votes, print, assert, odd layouts, 0-d
arrays, forall, specialize, eager signatures) on the GPU, each case
against its NumPy reference on fresh random data: under cujit
(`from cujit import cuda`) and, where numba-cuda is installed and sees a
GPU, under numba-cuda itself, a parametrization of its own (a case the peer
gets wrong is the kernel's or the reference's mistake, not cujit's).
Without a GPU: tests/test_unseen_numba_api_nogpu.py."""
import ctypes
import os
import sys

import numpy as np
import pytest

import cujit
from cujit import cuda as cj_cuda

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "unseen"))
import numba_api  # noqa: E402
from corpus import xfail_params  # noqa: E402

pytestmark = pytest.mark.gpu

NAMES = [b.__name__ for b in numba_api.CASES]
CUJIT = numba_api.load(cj_cuda, "numba_api_cujit")


def numba_module():
    """numba_api with numba-cuda's `cuda`, or the reason there is none"""
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return None, "NUMBA_ENABLE_CUDASIM=1: the simulator is not the peer"
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack        # numba-cuda 0.30 still names it (gone in NumPy 2.5)
    try:
        from numba import cuda as nb_cuda
    except Exception as e:      # not installed, or broken here
        return None, "numba-cuda cannot be imported (%s: %s)" % (type(e).__name__, e)
    try:
        ok = nb_cuda.is_available()
    except Exception as e:
        return None, "numba-cuda sees no GPU (%s)" % e
    if not ok:
        return None, "numba-cuda sees no GPU"
    try:
        nb_cuda.compile_ptx(_trivial, "void(float32[:])")
    except Exception as e:      # numba-cuda 0.30 on NumPy 2.5: np.row_stack is gone
        return None, "numba-cuda cannot compile here (%s: %s)" % (type(e).__name__, e)
    return numba_api.load(nb_cuda, "numba_api_numba"), None


def _trivial(a):
    a[0] = 1.0


NUMBA, NO_NUMBA = numba_module()


def flush_c_stdout():
    """the device printf's text, which the driver writes through C's stdout"""
    try:
        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError):
        pass


def run_case(M, name, capfd):
    build = [b for b in M.CASES if b.__name__ == name][0]
    c = build()
    args = c.make(np.random.default_rng())
    before = M.ncopy(args)
    capfd.readouterr()
    c.run(args)
    M.cuda.synchronize()
    flush_c_stdout()
    out, _ = capfd.readouterr()
    M.compare(c, before, args)
    if c.printed:
        M.compare_printed(c.printed(before), out)


@pytest.mark.parametrize("name", xfail_params(NAMES, numba_api.CUJIT_XFAIL))
def test_cujit(name, capfd):
    run_case(CUJIT, name, capfd)


# cases numba-cuda 0.30.4 itself fails, measured on the H100 (cujit's result matches
# NumPy's and Python's in each)
PEER_DIFFERS = {
    "self_recursive_device_function": "numba-cuda: AttributeError: 'JITCUDACodegen' object "
                                      "has no attribute 'insert_unresolved_ref'",
    "inner_function_and_star_args_device_function": "numba-cuda gives scaled(1.0, s=0.5) of "
                                                    "an inner def 1.5 more than Python does",
}


@pytest.mark.skipif(NUMBA is None, reason=str(NO_NUMBA))
@pytest.mark.parametrize("name", xfail_params(NAMES, PEER_DIFFERS))
def test_numba_peer(name, capfd):
    run_case(NUMBA, name, capfd)


def test_cases_are_many_and_named_once():
    assert len(NAMES) >= 40 and len(set(NAMES)) == len(NAMES)
    assert cujit.cuda is cj_cuda
