"""The science kernels of tests/unseen/numba_science.py (numba.cuda kernels
written as users write them: stencils, n-body, matrix multiply, scans,
histograms, shuffles, sorts, fractals, xoroshiro128p Monte-Carlo,
Black-Scholes, image filters, k-means, streams and events) run unchanged on
the GPU against NumPy on fresh random data: under cujit.cuda, and under
numba-cuda where it is installed (a case numba-cuda fails shows the kernel
or its reference is wrong, not cujit)."""

import pytest

pytestmark = pytest.mark.gpu

from unseen_runner import Runner, params  # noqa: E402
import numba_science  # noqa: E402

NAMES = [fn.__name__ for fn in numba_science.CASES]
RUN = Runner(numba_science)


@pytest.mark.parametrize("name", params(NAMES, numba_science.CUJIT_XFAIL))
def test_cujit(name):
    RUN.run("cujit", name)


# cases numba-cuda 0.30.4 itself refuses, measured on the H100 (cujit accepts more)
_SHAPE = ("numba-cuda refuses cuda.shared.array of this shape (arithmetic on module "
          "constants, which cujit folds): No implementation of function shared.array")
PEER_DIFFERS = {
    "moving_average_shared": _SHAPE,
    "laplace_shared_halo": _SHAPE,
    "transpose_shared_padded": _SHAPE,
    "matvec_shared_x_tiles": _SHAPE,
    "const_2d_filter_shared_tile": _SHAPE,
    "vote_ballot_syncthreads_count": "numba-cuda: No implementation of syncthreads_count for "
                                     "this predicate",
    "newton_cube_root_while_true": "numba-cuda 0.30.4 under NumPy 2.5: KeyError <ufunc 'sqrt'>",
}


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name", params(NAMES, PEER_DIFFERS))
def test_numba_peer(name):
    RUN.run("numba", name)


def test_device_attributes_match_numba():
    """Numba's dev.WARP_SIZE ... read through cujit agree with numba-cuda's"""
    from cujit import cuda
    numba_cuda = pytest.importorskip("numba.cuda")
    if not numba_cuda.is_available():
        pytest.skip("numba-cuda finds no GPU")
    mine, theirs = cuda.get_current_device(), numba_cuda.get_current_device()
    for name in ("WARP_SIZE", "MAX_THREADS_PER_BLOCK", "MULTIPROCESSOR_COUNT",
                 "MAX_SHARED_MEMORY_PER_BLOCK", "COMPUTE_CAPABILITY_MAJOR", "L2_CACHE_SIZE"):
        assert getattr(mine, name) == getattr(theirs, name), name
