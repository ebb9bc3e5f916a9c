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

# cases cupyx.jit (CuPy 14.2) itself rejects or computes otherwise, measured on the H100;
# cujit's result matches NumPy in each (its own parametrizations pass).  strict: it is
# refused at compile time, or computed otherwise on any data; not strict: a rounding
# difference that random data may or may not show.
_UINT32 = H.UINT32_REASON
PEER_DIFFERS = {
    "bitonic_sort_shared": (True, _UINT32),
    "block_scan_hillis_steele": (True, _UINT32),
    "block_sum_shared_atomic": (True, _UINT32),
    "cg_grid_sync_two_phase": (True, _UINT32),
    "cg_thread_block_reduce": (True, _UINT32),
    "device_function_shared_and_sync": (True, _UINT32),
    "histogram_shared_privatized": (True, _UINT32),
    "matmul_tiled_shared": (True, _UINT32),
    "softmax_rows": (True, _UINT32),
    "syncwarp_shared_reduce": (True, _UINT32),
    "three_pass_scan": (True, _UINT32),
    "warp_reduce_shfl_down": (True, _UINT32),
    "warp_scan_shfl_up_broadcast": (True, _UINT32),
    "small_ints_and_uint64_atomics": (True, "cupyx.jit: Cannot cast from 'int8' to uint16 "
                                      "with casting rule same_kind"),
    "device_function_helpers": (True, "cupyx.jit: Failed to infer the return type: float or "
                                "double (a device function returning both)"),
    "unroll_runtime_count": (True, "cupyx.jit: loop unrolling requires constant start, stop, "
                             "step and unroll value (jit.range(width, unroll=4))"),
    "reverse_range_single_thread": (True, "cupyx.jit computes this product in int32 and "
                                    "wraps; NumPy's int64 does not"),
    "dot_dynamic_shared": (False, "cupyx.jit's sum differs from NumPy's by 1.6e-8 relative "
                           "(rtol 1e-9)"),
    "control_flow_odds_and_ends": (False, "cupyx.jit's values differ from NumPy's by 1e-7 "
                                   "relative (rtol 1e-12)"),
    "matmul_naive": (False, "cupyx.jit's products differ from NumPy's by 4e-5 relative "
                     "(rtol 1e-12)"),
    "tuple_launch_python_scalars": (False, "cupyx.jit's x * scale + shift differs from "
                                    "NumPy's by 1e-6 relative near 0 (rtol 1e-6)"),
    "unrolled_poly_horner": (False, "cupyx.jit's Horner sums differ from NumPy's by 1.7e-6 "
                             "relative (rtol 1e-12)"),
}


@pytest.mark.parametrize("name, impl", list(H.params(H.CASES, PEER_DIFFERS)))
def test_case(name, impl):
    jit, cupy_module, xp = H.setup(impl)
    c, got, want = H.run_case(name, jit, cupy_module, xp)
    H.check(c, got, want)
