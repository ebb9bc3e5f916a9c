"""The second corpus of cupyx.jit kernels (tests/unseen/cupyx_more.py) without a
GPU: every case run through `from cujit import jit` against the fake libcuda
(tests/fakecuda/unseen_cupyx_scenarios.py --corpus=cupyx_more, one fresh
process), each launched kernel run on the CPU where its meaning allows and
compared with NumPy; and the regressions of what those kernels found.  On the
GPU: tests/gpu/test_unseen_cupyx_more.py."""
import os
import sys

import numpy as np
import pytest

from cujit import jit
from test_runtime_nogpu import fake_driver, nvrtc_or_skip  # noqa: F401

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "unseen"))
import cupyx_harness as H  # noqa: E402
import cupyx_more  # noqa: E402

# kernels whose threads must run in lock-step (shuffles, lane ids, warp barriers,
# cub, cooperative groups): compiled and launched here, their values checked on
# the GPU only
COMPILED_ONLY = {"softmax_warp_per_row_online", "spmv_csr_warp_per_row",
                 "warp_then_block_inclusive_scan", "shuffles_with_width_and_uint64",
                 "laneid_warpsize_warp_totals", "cub_warp_sums_float64_four_warps",
                 "cub_block_max_and_min_int64", "cg_memcpy_async_then_wait",
                 "cg_grid_sync_histogram_then_frequencies", "cg_tiled_partition_shuffle_reduce"}


@pytest.fixture(scope="module")
def scenario_results(fake_driver, tmp_path_factory):  # noqa: F811
    nvrtc_or_skip()
    return H.fake_driver_results(fake_driver, tmp_path_factory.mktemp("unseen-cupyx-more"),
                                 "cupyx_more")


def test_about_forty_cases():
    assert len(cupyx_more.CASES) >= 40
    assert not set(cupyx_more.CASES) & set(H.CASES), "a case of the first corpus again"
    assert COMPILED_ONLY <= set(cupyx_more.CASES)


@pytest.mark.parametrize("name", sorted(cupyx_more.CASES))
def test_case_on_fake_driver(scenario_results, name):
    got = scenario_results[name]
    want = "compiled" if name in COMPILED_ONLY else "values"
    assert got == want, "%s: %s" % (name, got)


# ---- regressions ----

def _range_from_unsigned(x, out, start, step):
    i = jit.grid(1)
    acc = 0
    for k in range(start, x.size, step):
        acc += x[k] * (k - 1) + i
    out[i] = acc


def test_range_of_uint64_and_int64_counts_in_int64():
    """range(uint64, int64, uint64) -- a grid group's thread_rank() and size()
    beside a.size -- promotes to float64 under NumPy's rules; cupyx.jit's loop
    variable is int64 whatever the bounds, and so is cujit's now (it said
    'array indices must be integers, got float64')"""
    nvrtc_or_skip()
    k = jit.rawkernel()(_range_from_unsigned)
    sig = "(int64[::1], int64[::1], uint64, uint64)"
    src = k.inspect_cuda(sig)
    assert "long long k" in src, src
    assert ".visible .entry" in k.inspect_ptx(sig)

    @jit.rawkernel()
    def grid_loop(x, out):
        g = jit.cg.this_grid()
        for j in range(g.thread_rank(), x.size, g.size()):
            out[j] = x[j] * 2
    assert ".visible .entry" in grid_loop.inspect_ptx("(float64[::1], float64[::1])")


def test_range_of_uint64_and_int64_values_on_host(tmp_path):
    """the values: k - 1 at k = 0 is -1 (int64), not 2**64 - 1"""
    from test_kernels_host import CXX, host_launcher
    nvrtc_or_skip()
    if CXX is None:
        pytest.skip("no host C++ compiler")
    rng = np.random.default_rng(11)
    x = rng.integers(-50, 50, 40)
    out = np.full(8, 99, np.int64)
    host_launcher(str(tmp_path))(jit.rawkernel()(_range_from_unsigned), 1, 8,
                                 [x, out, np.uint64(0), np.uint64(3)])
    want = [sum(int(x[k]) * (k - 1) + i for k in range(0, 40, 3)) for i in range(8)]
    np.testing.assert_array_equal(out, want)
