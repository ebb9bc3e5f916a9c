"""The floating-point kernels of tests/unseen/numba_fp.py (numba.cuda kernels
written as users write them: float64 accumulators of float32 data, softmax,
norms, activations, attention, convolutions, stencils, particle forces, RK4,
xoroshiro128p Monte-Carlo, fractals, interpolation, float16, complex64,
NaN and infinities, rounding, np.float32 constants) run unchanged on the GPU
against NumPy on fresh random data: under cujit.cuda, and under numba-cuda
where it is installed (a case numba-cuda fails shows the kernel or its
reference is wrong, not cujit)."""
import os
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "unseen"))
import numba_fp  # noqa: E402

NAMES = [fn.__name__ for fn in numba_fp.CASES]
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
        _LOADED[api] = numba_fp.load(cuda, api)
    return _LOADED[api]


def _run(api, name):
    mod = _module(api)
    seed = int(np.random.SeedSequence().entropy % (1 << 63))
    print("seed", seed)
    c = getattr(mod, name)()
    inputs = c.make(np.random.default_rng(seed))
    got = c.run(*inputs)
    c.verify(inputs, got)


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=numba_fp.CUJIT_XFAIL[n]))
    if n in numba_fp.CUJIT_XFAIL else n for n in NAMES])
def test_cujit(name):
    _run("cujit", name)


# cases numba-cuda itself refuses or computes otherwise, measured on the GPU
# (none known yet: every kernel compiles under numba-cuda 0.30.4's compile_ptx)
PEER_DIFFERS = {}


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=PEER_DIFFERS[n]))
    if n in PEER_DIFFERS else n for n in NAMES])
def test_numba_peer(name):
    _run("numba", name)
