"""The real-world-style cupyx.jit kernels of tests/unseen/cupyx_kernels.py on
the GPU, each against its NumPy reference on fresh seeded data:

  cujit        `from cujit import jit`, cujit's device arrays and streams,
               NumPy as the `cupy` the kernels read (cupy.float32, cupy.pi,
               cupy.sqrt ...)
  cujit-cupy   `from cujit import jit` with CuPy itself: CuPy arrays, CuPy
               streams, CuPy's ufuncs and constants in the kernels
  cupyx        the peer, `from cupyx import jit` with CuPy (CuPy 14): a case
               it rejects or computes differently shows that the kernel, not
               cujit, is wrong

The last two skip where CuPy is not installed.  tests/conftest.py skips the
module without a GPU."""
import os
import sys

import pytest

pytestmark = pytest.mark.gpu

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "unseen"))
import cupyx_harness as H  # noqa: E402

try:
    import cupy
    cupy.cuda.runtime.getDeviceCount()
except Exception:                       # not installed, or no device it can use
    cupy = None

IMPLS = ["cujit", "cujit-cupy", "cupyx"]


def _setup(impl):
    import numpy as np
    if impl == "cujit":
        from cujit import jit
        return jit, np, H.CujitArrays()
    if cupy is None:
        pytest.skip("CuPy is not installed")
    if impl == "cujit-cupy":
        from cujit import jit
        return jit, cupy, H.CupyArrays()
    from cupyx import jit
    return jit, cupy, H.CupyArrays()


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("name", sorted(H.CASES))
def test_case(name, impl):
    jit, cupy_module, xp = _setup(impl)
    c, got, want = H.run_case(name, jit, cupy_module, xp)
    H.check(c, got, want)
