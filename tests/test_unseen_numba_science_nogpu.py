"""The science kernels of tests/unseen/numba_science.py without a GPU: every
case's host code runs unchanged under cujit.cuda against the fake libcuda
(tests/fakecuda/unseen_nb_scenarios.py, one fresh process for all cases),
each launched kernel built for the host and run there on the parameters
cujit packed, one host thread per CUDA thread where the block's threads
work together; the results are checked against NumPy.  Also the regression
tests of what these kernels found in cujit."""
import os
import subprocess
import sys

import numpy as np
import pytest

import cujit
from cujit import cuda
from test_runtime_nogpu import fake_driver, nvrtc_or_skip  # noqa: F401

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "unseen"))
import corpus  # noqa: E402
import numba_science  # noqa: E402

NAMES = [fn.__name__ for fn in numba_science.CASES]
results, test_case_on_host, test_module_has_enough_cases = corpus.host_tests(
    numba_science, "unseen_nb_scenarios.py")



# ---- regressions ----

WEIGHTS = (0.25, 0.5, 0.125)


def test_module_tuple_indexed_by_a_variable():
    """WEIGHTS[c] of a module's tuple of numbers, c a loop variable (Numba's
    UniTuple getitem): the items chosen by comparisons, as for a local
    tuple; a tuple written in the kernel of variables too"""
    nvrtc_or_skip()

    def k(x, out):
        i = cuda.grid(1)
        if i < x.shape[0]:
            acc = 0.0
            for c in range(3):
                acc += WEIGHTS[c] * x[i, c]
            a, b = x[i, 0], x[i, 1]
            out[i] = acc + (a, b)[i % 2]
    src = cuda.jit(k).inspect_cuda("void(float64[:, :], float64[:])")
    assert "c == 0 ? static_cast<double>(0.25)" in src, src
    assert "== 1 ? static_cast<double>(0.5) : static_cast<double>(0.125)" in src, src


def test_numba_device_attributes(fake_driver, tmp_path):  # noqa: F811
    """dev.WARP_SIZE, dev.MAX_THREADS_PER_BLOCK ... of cuda.get_current_device()
    (Numba's Device reads CU_DEVICE_ATTRIBUTE_<NAME>), which users size
    launches with; an unknown name stays an AttributeError"""
    code = """if True:
        from cujit import cuda
        d = cuda.get_current_device()
        assert (d.WARP_SIZE, d.MAX_THREADS_PER_BLOCK, d.MULTIPROCESSOR_COUNT) == (32, 1024, 132)
        assert (d.COMPUTE_CAPABILITY_MAJOR, d.COMPUTE_CAPABILITY_MINOR) == d.compute_capability
        assert d.MAX_SHARED_MEMORY_PER_BLOCK == 49152 and d.multiprocessor_count == 132
        try:
            d.WARPSIZE
        except AttributeError as e:
            assert "WARPSIZE" in str(e)
        else:
            raise AssertionError("no AttributeError")
        print("attributes ok")
    """
    env = dict(os.environ, CUJIT_CACHE_DIR=str(tmp_path),
               LD_LIBRARY_PATH=fake_driver + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and "attributes ok" in r.stdout, r.stderr


def test_array_T_in_kernels():
    """a.T in a kernel (Numba's ArrayAttribute.resolve_T): a view of the
    dimensions reversed, read and written through; a 1-d array's .T is
    itself; a shared array's too; a number has none"""
    nvrtc_or_skip()

    def k(a, v, out):
        sh = cuda.shared.array((4, 8), dtype=np.float32)
        i, j = cuda.grid(2)
        sh[i % 4, j % 8] = a.T[j, i]
        out.T[j, i] = a[i, j] + v.T[i] + sh.T[j % 8, i % 4]
    ker = cuda.jit(k)
    sig = "void(float32[:, ::1], float32[::1], float32[:, :])"
    src = ker.inspect_cuda(sig)
    assert "cj_np_transpose(" in src
    assert ".target" in ker.inspect_ptx(sig)

    def bad(x, out):
        out[0] = x.T
    with pytest.raises(cujit.CompileTypeError, match=r"only arrays have .*\.T"):
        cuda.jit(bad).inspect_cuda("void(float32, float32[:])")


@cuda.jit(device=True)
def _first_below(x, limit):
    for n in range(limit):
        if x > n:
            return n, x
    return limit, 0.5


@cuda.jit(device=True)
def _rebound(x):
    t = (1, 2.0)
    if x > 0:
        t = (int(x), x)
    p = (3, x)
    if x > 1:
        return p
    return t


def test_returned_tuples_meet_in_one_type():
    """a device function's tuple returns of other item types (a constant
    argument's weak int, a weak float) are converted item by item to the
    type they meet in, as scalars were (NVRTC refused the struct before);
    the smooth Mandelbrot case checks the values"""
    nvrtc_or_skip()

    def k(a, out):
        i = cuda.grid(1)
        n, v = _first_below(a[i], 10)
        m, w = _rebound(a[i])
        out[i] = n + v + m + w
    ker = cuda.jit(k)
    sig = "void(float64[::1], float64[::1])"
    src = ker.inspect_cuda(sig)
    assert "cj_T2_wi_wf_" not in src and "cj_T2_i8_f8_{" in src, src
    assert ".target" in ker.inspect_ptx(sig)


PAIRS = ((0, 1), (1, 0), (0, -1), (-1, 0))


def test_tuple_of_tuples_iterated_and_indexed():
    """for di, dj in PAIRS (a module's tuple of tuples of numbers), a
    literal one whose items meet in (int64, float64), and PAIRS[k] with k a
    variable (Numba's UniTuple of UniTuples): the items converted to the
    tuple they meet in; tuples of other lengths are refused"""
    nvrtc_or_skip()

    def k(a, out):
        i = cuda.grid(1)
        s = 0.0
        for di, dj in PAIRS:
            s += a[i + di + 1] * dj
        for n, w in ((1, 2.5), (3, 4.0)):
            s += n * w
        p = PAIRS[i % 4]
        out[i] = s + p[0] - p[1]
    ker = cuda.jit(k)
    sig = "void(float64[::1], float64[::1])"
    src = ker.inspect_cuda(sig)
    assert "cj_T2_i8_f8_{" in src and "cj_T2_i8_i8_{" in src, src
    assert ".target" in ker.inspect_ptx(sig)

    def bad(out):
        for t in ((1, 2), (3, 4, 5)):
            out[0] = t[0]
    with pytest.raises(cujit.CompileTypeError, match="tuples of numbers or arrays"):
        cuda.jit(bad).inspect_cuda("void(float64[::1])")
