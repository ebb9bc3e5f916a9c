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


# CuPy's ufuncs of one expression that cupyx.jit compiles in kernels and cujit lacked
# (cupy.logaddexp in a log-sum-exp, cupy.left_shift ...): NumPy's values
NEW_UFUNCS = [("logaddexp", "float64"), ("logaddexp", "float32"), ("logaddexp", "int32"),
              ("logaddexp2", "float64"), ("logaddexp2", "float32"), ("nextafter", "float32"),
              ("nextafter", "float64"), ("heaviside", "float64"), ("heaviside", "int16"),
              ("left_shift", "int8"), ("left_shift", "uint8"), ("left_shift", "int32"),
              ("left_shift", "uint64"), ("left_shift", "bool"), ("right_shift", "int16"),
              ("right_shift", "int64"), ("right_shift", "uint32"), ("gcd", "int16"),
              ("gcd", "int64"), ("gcd", "uint32"), ("lcm", "int32"), ("lcm", "uint16")]


def _new_operands(name, dt, rng, n=96):
    if dt.kind == "f":
        x = rng.uniform(-30, 30, n).astype(dt)
        y = rng.uniform(-30, 30, n).astype(dt)
        x[:8] = [np.inf, -np.inf, np.nan, 0, -0.0, 5, np.inf, 1]
        y[:8] = [np.inf, -np.inf, 1, 0.5, 0.5, 5, 1, np.nan]
        return x, y
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(bool), rng.integers(0, 2, n).astype(bool)
    info = np.iinfo(dt)
    if name.endswith("shift"):
        lo = -2 if dt.kind == "i" else 0
        return (rng.integers(max(info.min, -10 ** 6), min(info.max, 10 ** 6), n).astype(dt),
                rng.integers(lo, info.bits + 3, n).astype(dt))
    if name in ("gcd", "lcm"):
        lo = -60 if dt.kind == "i" else 0
        x, y = rng.integers(lo, 60, n).astype(dt), rng.integers(lo, 60, n).astype(dt)
        x[:2] = 0
        return x, y
    return rng.integers(-40, 40, n).astype(dt), rng.integers(-40, 40, n).astype(dt)


@pytest.mark.parametrize("name, dt", NEW_UFUNCS)
def test_more_ufunc_values_on_host(tmp_path, name, dt):
    from test_kernels_host import CXX, host_launcher
    nvrtc_or_skip()
    if CXX is None:
        pytest.skip("no host C++ compiler")
    f = getattr(np, name)
    dt = np.dtype(dt)
    x, y = _new_operands(name, dt, np.random.default_rng(17))

    def k(x, y, out):
        i = jit.grid(1)
        if i < out.size:
            out[i] = f(x[i], y[i])
    with np.errstate(all="ignore"):
        want = f(x, y)
    if want.dtype == np.float16:
        want = f(x.astype(np.float32), y.astype(np.float32))     # cujit's float of int16
    out = np.zeros(x.size, want.dtype)
    host_launcher(str(tmp_path))(jit.rawkernel()(k), 1, x.size, [x, y, out])
    if want.dtype.kind == "f":
        np.testing.assert_allclose(out, want, rtol=1e-6 if want.dtype.itemsize == 4 else 1e-14,
                                   atol=1e-30, equal_nan=True)
    else:
        np.testing.assert_array_equal(out, want)


def test_more_ufuncs_out_form_and_errors(tmp_path):
    """np.gcd(a, b, out) over arrays; gcd of bool and shifts of floats are
    refused as NumPy refuses them"""
    from test_kernels_host import CXX, host_launcher
    import cujit
    nvrtc_or_skip()
    if CXX is None:
        pytest.skip("no host C++ compiler")

    @jit.rawkernel()
    def k(a, b, g, s):
        np.gcd(a, b, g)
        np.left_shift(a, 3, out=s)

    rng = np.random.default_rng(5)
    a = rng.integers(-100, 100, (3, 7))
    b = rng.integers(1, 50, 7)
    g, s = np.zeros_like(a), np.zeros_like(a)
    host_launcher(str(tmp_path))(k, 1, 1, [a, b, g, s])
    np.testing.assert_array_equal(g, np.gcd(a, b))
    np.testing.assert_array_equal(s, np.left_shift(a, 3))

    def bad_gcd(x, out):
        out[0] = np.gcd(x[0], x[1])

    def bad_shift(x, out):
        out[0] = np.left_shift(x[0], 2)
    with pytest.raises(cujit.CompileTypeError, match=r"np.gcd\(\) takes integers, not bool"):
        jit.rawkernel()(bad_gcd).inspect_cuda("(bool[::1], int64[::1])")
    with pytest.raises(cujit.CompileTypeError, match=r"np.left_shift\(\) takes integers or bool"):
        jit.rawkernel()(bad_shift).inspect_cuda("(float64[::1], float64[::1])")
