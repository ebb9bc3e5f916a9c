"""The integer, bit, byte and image kernels of tests/unseen/numba_int.py
(numba.cuda kernels written as users write them: uint8 pixels, histograms,
hashes and hand-written PRNGs, bit tricks, radix/bitonic/odd-even sorts,
graphs, sparse matrices, dynamic programming on byte strings, fixed point,
modular arithmetic) run unchanged on the GPU against references that compute
what compiled Numba computes, on fresh random data: under cujit.cuda, and
under numba-cuda where it is installed (a case numba-cuda fails shows the
kernel or its reference is wrong, not cujit)."""
import os
import sys
import warnings

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "unseen"))
import numba_int  # noqa: E402

NAMES = [fn.__name__ for fn in numba_int.CASES]
_LOADED = {}


def _trivial(a):
    a[0] = 1.0


def _module(api):
    if api not in _LOADED:
        if api == "cujit":
            from cujit import cuda
        else:
            if not hasattr(np, "row_stack"):
                np.row_stack = np.vstack    # numba-cuda 0.30 still names it (gone in NumPy 2.5)
            numba_cuda = pytest.importorskip("numba.cuda")
            if not numba_cuda.is_available():
                pytest.skip("numba-cuda finds no GPU")
            try:
                numba_cuda.compile_ptx(_trivial, "void(float32[:])")
            except Exception as e:  # numba-cuda 0.30 on NumPy 2.5: np.row_stack is gone
                pytest.skip("numba-cuda cannot compile here (%s: %s)" % (type(e).__name__, e))
            cuda = numba_cuda
        _LOADED[api] = numba_int.load(cuda, api)
    return _LOADED[api]


def _run(api, name):
    mod = _module(api)
    seed = int(np.random.SeedSequence().entropy % (1 << 63))
    print("seed", seed)
    c = getattr(mod, name)()
    inputs = c.make(np.random.default_rng(seed))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # numba-cuda's performance warnings on small grids
        got = c.run(*inputs)
    c.verify(inputs, got)


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=numba_int.CUJIT_XFAIL[n]))
    if n in numba_int.CUJIT_XFAIL else n for n in NAMES])
def test_cujit(name):
    _run("cujit", name)


# cases numba-cuda itself refuses or gets otherwise (none known yet: fill from
# an H100 run, with numba-cuda's message)
PEER_DIFFERS = {}


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=PEER_DIFFERS[n]))
    if n in PEER_DIFFERS else n for n in NAMES])
def test_numba_peer(name):
    _run("numba", name)
