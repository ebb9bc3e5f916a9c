"""The second corpus of cupyx.jit kernels (tests/unseen/cupyx_more.py) on the
GPU, each against its NumPy reference on seeded random data, three ways
(cupyx_harness.IMPLS): cujit with its own arrays and NumPy as the kernels'
`cupy`; cujit with CuPy's arrays, streams and ufuncs; and the peer, cupyx.jit
itself, whose failures show a kernel (not cujit) is wrong.  The last two skip
where CuPy is not installed.  tests/conftest.py skips the module without a
GPU; without one, tests/test_unseen_cupyx_more_nogpu.py runs the corpus on the
fake driver."""
import os
import sys

import pytest

pytestmark = pytest.mark.gpu

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "unseen"))
import cupyx_harness as H  # noqa: E402
import cupyx_more  # noqa: E402

# cases cupyx.jit itself rejects or computes otherwise: (strict, reason); cujit's
# parametrizations must pass them
PEER_DIFFERS = {
    "cg_tiled_partition_shuffle_reduce": (True, "cupyx.jit.cg has no tiled_partition "
                                          "(this_grid, this_thread_block, sync, wait, "
                                          "wait_prior and memcpy_async only); cujit adds it"),
}


@pytest.mark.parametrize("name, impl", list(H.params(cupyx_more.CASES, PEER_DIFFERS)))
def test_case(name, impl):
    jit, cupy_module, xp = H.setup(impl)
    c, got, want = H.run_case(name, jit, cupy_module, xp, cases=cupyx_more.CASES)
    H.check(c, got, want)
