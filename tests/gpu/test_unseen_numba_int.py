"""The integer, bit, byte and image kernels of tests/unseen/numba_int.py
(numba.cuda kernels written as users write them: uint8 pixels, histograms,
hashes and hand-written PRNGs, bit tricks, radix/bitonic/odd-even sorts,
graphs, sparse matrices, dynamic programming on byte strings, fixed point,
modular arithmetic) run unchanged on the GPU against references that compute
what compiled Numba computes, on fresh random data: under cujit.cuda, and
under numba-cuda where it is installed (a case numba-cuda fails shows the
kernel or its reference is wrong, not cujit)."""

import pytest

pytestmark = pytest.mark.gpu

from unseen_runner import Runner, params  # noqa: E402
import numba_int  # noqa: E402

NAMES = [fn.__name__ for fn in numba_int.CASES]
RUN = Runner(numba_int)


@pytest.mark.parametrize("name", params(NAMES, numba_int.CUJIT_XFAIL))
def test_cujit(name):
    RUN.run("cujit", name)


# cases numba-cuda itself refuses or gets otherwise (none known yet: fill from
# an H100 run, with numba-cuda's message)
PEER_DIFFERS = {}


@pytest.mark.parametrize("name", params(NAMES, PEER_DIFFERS))
def test_numba_peer(name):
    RUN.run("numba", name)
