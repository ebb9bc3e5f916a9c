"""The floating-point kernels of tests/unseen/numba_fp.py (numba.cuda kernels
written as users write them: float64 accumulators of float32 data, softmax,
norms, activations, attention, convolutions, stencils, particle forces, RK4,
xoroshiro128p Monte-Carlo, fractals, interpolation, float16, complex64,
NaN and infinities, rounding, np.float32 constants) run unchanged on the GPU
against NumPy on fresh random data: under cujit.cuda, and under numba-cuda
where it is installed (a case numba-cuda fails shows the kernel or its
reference is wrong, not cujit)."""

import pytest

pytestmark = pytest.mark.gpu

from unseen_runner import Runner, params  # noqa: E402
import numba_fp  # noqa: E402

NAMES = [fn.__name__ for fn in numba_fp.CASES]
RUN = Runner(numba_fp)


@pytest.mark.parametrize("name", params(NAMES, numba_fp.CUJIT_XFAIL))
def test_cujit(name):
    RUN.run("cujit", name)


# cases numba-cuda itself refuses or computes otherwise, measured on the GPU
# (none known yet: every kernel compiles under numba-cuda 0.30.4's compile_ptx)
PEER_DIFFERS = {}


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name", params(NAMES, PEER_DIFFERS))
def test_numba_peer(name):
    RUN.run("numba", name)
