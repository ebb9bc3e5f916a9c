"""Negative indices known only at run time on the GPU (tests/negidx_cases.py):
cuda.jit kernels count a negative signed index from the end, as Numba does
(u[i - 1] at i == 0 reads u[-1]), on global arrays, views, shared, local and
constant arrays, for reads, stores, augmented assignments and atomics, and
a slice's negative start counts from the end; each case on fresh random
data against NumPy, under cujit.cuda and under numba-cuda where it is
installed (a case numba-cuda fails shows the kernel or its reference is
wrong, not cujit).  Also: boundscheck=True checks after the wrap, and a
dynamic shared array wraps by the launch's size.  Without a GPU:
tests/test_negidx_nogpu.py (the host shim)."""
import os
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import negidx_cases  # noqa: E402

_KERNELS = {}


def _trivial(a):
    a[0] = 1.0


def _api(name):
    if name == "cujit":
        from cujit import cuda
        return cuda
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack    # numba-cuda 0.30 still names it (gone in NumPy 2.5)
    numba_cuda = pytest.importorskip("numba.cuda")
    if not numba_cuda.is_available():
        pytest.skip("numba-cuda finds no GPU")
    try:
        numba_cuda.compile_ptx(_trivial, "void(float32[:])")
    except Exception as e:
        pytest.skip("numba-cuda cannot compile here (%s: %s)" % (type(e).__name__, e))
    return numba_cuda


def _kernels(api):
    if api not in _KERNELS:
        mod = negidx_cases.load(_api(api), api)
        _KERNELS[api] = (mod.cuda, mod.kernels())
    return _KERNELS[api]


@pytest.mark.parametrize("api", ["cujit", "numba"])
@pytest.mark.parametrize("name", sorted(negidx_cases.CASES))
def test_counts_from_the_end(api, name):
    cuda, ks = _kernels(api)
    c = negidx_cases.CASES[name]
    seed = int(np.random.SeedSequence().entropy % (1 << 63))
    print("seed", seed)
    inputs = c.make(np.random.default_rng(seed))
    args = [cuda.to_device(a) for a in c.args(*inputs)]
    grid, block = c.config(inputs)
    ks[name][grid, block](*args)
    cuda.synchronize()
    for k, want in zip(c.outs, c.ref(*inputs)):
        np.testing.assert_allclose(args[k].copy_to_host(), want, rtol=1e-12, atol=1e-12)


def test_boundscheck_checks_after_the_wrap():
    """u[i - 1] at i == 0 is in range under boundscheck=True (Numba checks
    after its wrap); u[i - 2 * n] is out of range and raises IndexError"""
    from cujit import cuda

    @cuda.jit(boundscheck=True)
    def prev(u, out):
        i = cuda.grid(1)
        if i < u.shape[0]:
            out[i] = u[i - 1]

    @cuda.jit(boundscheck=True)
    def far(u, out):
        i = cuda.grid(1)
        if i < u.shape[0]:
            out[i] = u[i - 2 * u.shape[0]]
    u = np.random.default_rng().standard_normal(100)
    out = cuda.device_array(100)
    prev[2, 64](cuda.to_device(u), out)
    np.testing.assert_array_equal(out.copy_to_host(), np.roll(u, 1))
    with pytest.raises(Exception) as info:
        far[2, 64](cuda.to_device(u), out)
        cuda.synchronize()
    assert "index" in str(info.value).lower() or "bound" in str(info.value).lower()


def test_dynamic_shared_wraps_by_the_launch_size():
    """sh[t - 1] of a dynamic shared array at t == 0 is its last element,
    the array being the launch's bytes over the element size"""
    from cujit import cuda

    @cuda.jit
    def k(u, out):
        sh = cuda.shared.array(0, dtype=np.float32)
        t = cuda.threadIdx.x
        sh[t] = u[t]
        cuda.syncthreads()
        out[t] = sh[t - 1]
    n = 128
    u = np.random.default_rng().standard_normal(n).astype(np.float32)
    out = cuda.device_array(n, np.float32)
    k[1, n, 0, n * 4](cuda.to_device(u), out)
    np.testing.assert_array_equal(out.copy_to_host(), np.roll(u, 1))
