"""The ported examples of Numba's CUDA documentation and cupyx.jit's user
guide (tests/ported_examples.py) on the GPU, against NumPy on fresh random
data, each through both spellings where both exist: ``nb`` launches Numba's
way (``k[grid, block]`` on cuda.to_device arrays, results by copy_to_host),
``cp`` cupyx.jit's way (``k(grid, block, args)`` on cujit arrays, or CuPy
arrays when CuPy imports).  tests/conftest.py skips this module, with the
reason, when cujit sees no GPU."""
import math
import os
import sys

import numpy as np
import pytest

import cujit
from cujit import cuda

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import ported_examples as pe  # noqa: E402  (tests/ported_examples.py)

pytestmark = pytest.mark.gpu

try:
    import cupy
    cupy.cuda.runtime.getDeviceCount()
except Exception:       # not installed, or no usable CUDA for it
    cupy = None

SPELLINGS = ["nb", "cp"] + (["cp-cupy"] if cupy is not None else [])
rng = np.random.default_rng()


def kernel(spelling, name):
    return getattr(pe, spelling[:2] + "_" + name)


def dev(spelling, a):
    """The array a kernel of this spelling is given: cuda.to_device's for
    Numba's, cujit's or CuPy's for cupyx.jit's."""
    a = np.ascontiguousarray(a)
    if spelling == "nb":
        return cuda.to_device(a)
    if spelling == "cp-cupy":
        return cupy.asarray(a)
    return cujit.to_device(a)


def host(a):
    if cupy is not None and isinstance(a, cupy.ndarray):
        cupy.cuda.runtime.deviceSynchronize()
        return cupy.asnumpy(a)
    return a.copy_to_host()


def launch(spelling, k, grid, block, args, shared=0):
    if spelling == "nb":
        k[grid, block, 0, shared](*args)
    else:
        tup = (lambda v: v if isinstance(v, tuple) else (v,))
        k(tup(grid), tup(block), tuple(args), shared_mem=shared)


def blocks(n, tpb):
    return (n + tpb - 1) // tpb


# ---- increment by one ----

@pytest.mark.parametrize("spelling", SPELLINGS)
def test_increment(spelling):
    n = 10007
    a = rng.uniform(-100, 100, n).astype(np.float32)
    d = dev(spelling, a)
    launch(spelling, kernel(spelling, "increment"), blocks(n, 256), 256, [d])
    np.testing.assert_array_equal(host(d), a + np.float32(1))


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_increment_2d(spelling):
    a = rng.standard_normal((70, 45))
    d = dev(spelling, a)
    launch(spelling, kernel(spelling, "increment_2d"), (blocks(70, 16), blocks(45, 16)),
           (16, 16), [d])
    np.testing.assert_array_equal(host(d), a + 1)


# ---- grid-stride loops ----

@pytest.mark.parametrize("spelling", SPELLINGS)
def test_scale_stride(spelling):
    n = 100003
    x = rng.standard_normal(n).astype(np.float32)
    factor = np.float32(rng.uniform(0.5, 3))
    dx, dout = dev(spelling, x), dev(spelling, np.full(n, np.nan, np.float32))
    launch(spelling, kernel(spelling, "scale_stride"), 20, 128, [dx, dout, factor])
    np.testing.assert_array_equal(host(dout), x * factor)


@pytest.mark.parametrize("spelling", [s for s in SPELLINGS if s != "nb"])
def test_elementwise_copy_both_launch_forms(spelling):
    size = 1 << 20
    x = rng.standard_normal(size).astype(np.float32)
    dx = dev(spelling, x)
    y1, y2 = dev(spelling, np.zeros(size, np.float32)), dev(spelling, np.zeros(size, np.float32))
    k = pe.cp_elementwise_copy
    k((128,), (1024,), (dx, y1, np.uint32(size)))
    k[128, 1024](dx, y2, np.uint32(size))
    np.testing.assert_array_equal(host(y1), x)
    np.testing.assert_array_equal(host(y2), x)


# ---- vector addition through the host API ----

def test_vecadd_numba_host_api():
    n = 50000
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    da, db = cuda.to_device(a), cuda.to_device(b)
    dc = cuda.device_array_like(da)
    pe.nb_vecadd.forall(n)(da, db, dc)
    np.testing.assert_array_equal(dc.copy_to_host(), a + b)
    out = np.empty_like(a)
    pe.nb_vecadd[blocks(n, 128), 128](a, b, out)        # host arrays, copied back
    np.testing.assert_array_equal(out, a + b)


@pytest.mark.parametrize("spelling", [s for s in SPELLINGS if s != "nb"])
def test_vecadd_cupyx(spelling):
    n = 50000
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    dc = dev(spelling, np.zeros(n, np.float32))
    launch(spelling, pe.cp_vecadd, blocks(n, 128), 128, [dev(spelling, a), dev(spelling, b), dc])
    np.testing.assert_array_equal(host(dc), a + b)


# ---- matrix multiplication ----

@pytest.mark.parametrize("tiled", [False, True])
@pytest.mark.parametrize("spelling", SPELLINGS)
def test_matmul(spelling, tiled):
    m, kk, n = 70, 53, 41                   # not multiples of the tile
    a = rng.uniform(-1, 1, (m, kk)).astype(np.float32)
    b = rng.uniform(-1, 1, (kk, n)).astype(np.float32)
    dc = dev(spelling, np.full((m, n), np.nan, np.float32))
    k = kernel(spelling, "matmul_tiled" if tiled else "matmul")
    launch(spelling, k, (blocks(m, pe.TPB), blocks(n, pe.TPB)), (pe.TPB, pe.TPB),
           [dev(spelling, a), dev(spelling, b), dc])
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(host(dc), ref, rtol=1e-4, atol=1e-4)


# ---- block sums in shared memory ----

@pytest.mark.parametrize("spelling", SPELLINGS)
def test_sum_shared(spelling):
    n = pe.BLOCK * 37 - 11
    x = rng.integers(-1000, 1000, n, dtype=np.int32)
    total = dev(spelling, np.zeros(1, np.int32))
    launch(spelling, kernel(spelling, "sum_shared"), blocks(n, pe.BLOCK), pe.BLOCK,
           [dev(spelling, x), total])
    assert host(total)[0] == x.sum()


# ---- atomics ----

@pytest.mark.parametrize("spelling", SPELLINGS)
def test_histogram(spelling):
    nbins = 12
    # bin centres only, so no value sits on an edge; some fall outside
    x = (np.floor(rng.uniform(-2, nbins + 2, 20000)) + 0.5).astype(np.float32)
    hist = dev(spelling, np.zeros(nbins, np.int32))
    launch(spelling, kernel(spelling, "histogram"), 16, 128,
           [dev(spelling, x), np.float32(0), np.float32(1), hist])
    b = x.astype(np.int64)              # truncates toward zero, as np.int32(v) does
    ref = np.bincount(b[(b >= 0) & (b < nbins)], minlength=nbins)
    np.testing.assert_array_equal(host(hist), ref)


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_atomic_max_tuple_index(spelling):
    values = rng.integers(-10**6, 10**6, (20, 300), dtype=np.int32)
    start = rng.integers(-10**6, 10**6, (20, 3), dtype=np.int32)
    res = dev(spelling, start)
    launch(spelling, kernel(spelling, "max_2d"), (blocks(20, 8), blocks(300, 32)), (8, 32),
           [dev(spelling, values), res])
    ref = start.copy()
    ref[:, 1] = np.maximum(start[:, 1], values.max(axis=1))
    np.testing.assert_array_equal(host(res), ref)


# ---- sessionization ----

@pytest.mark.parametrize("spelling", SPELLINGS)
def test_sessionize(spelling):
    n = 5000
    user = np.sort(rng.integers(0, 40, n)).astype(np.int32)
    t = np.empty(n)
    for u in np.unique(user):               # each user's events in time order
        sel = user == u
        t[sel] = np.cumsum(rng.exponential(15, sel.sum()))
    start = dev(spelling, np.full(n, 7, np.uint8))
    sid = dev(spelling, np.full(n, -1, np.int32))
    du, dt = dev(spelling, user), dev(spelling, t)
    launch(spelling, kernel(spelling, "session_starts"), blocks(n, 128), 128, [du, dt, start])
    launch(spelling, kernel(spelling, "session_ids"), blocks(n, 128), 128, [start, sid])
    new = np.ones(n, bool)
    new[1:] = (user[1:] != user[:-1]) | (np.diff(t) > pe.GAP)
    ref = np.maximum.accumulate(np.where(new, np.arange(n), 0))
    np.testing.assert_array_equal(host(start), new.astype(np.uint8))
    np.testing.assert_array_equal(host(sid), ref)


# ---- one function on the CPU and the GPU; device functions ----

@pytest.mark.parametrize("spelling", SPELLINGS)
def test_cpu_gpu_function(spelling):
    n = 3000
    x, y, z = (rng.standard_normal(n) for _ in range(3))
    out = dev(spelling, np.full(n, np.nan))
    launch(spelling, kernel(spelling, "apply_logic"), blocks(n, 128), 128,
           [dev(spelling, x), dev(spelling, y), dev(spelling, z), out])
    ref = np.array([pe.business_logic(a, b, c) for a, b, c in zip(x, y, z)])
    np.testing.assert_allclose(host(out), ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_device_function(spelling):
    n = 4000
    x = rng.uniform(-5, 5, n).astype(np.float32)
    lo, hi = np.float32(rng.uniform(-3, -1)), np.float32(rng.uniform(1, 3))
    out = dev(spelling, np.full(n, np.nan, np.float32))
    launch(spelling, kernel(spelling, "clamp_all"), blocks(n, 128), 128,
           [dev(spelling, x), lo, hi, out])
    np.testing.assert_array_equal(host(out), np.clip(x, lo, hi))


# ---- shared memory, static and dynamic ----

@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("spelling", SPELLINGS)
def test_reverse_blocks(spelling, dynamic):
    nb = 9
    x = rng.standard_normal(pe.BLOCK * nb).astype(np.float32)
    out = dev(spelling, np.full(x.size, np.nan, np.float32))
    k = kernel(spelling, "reverse_dynamic" if dynamic else "reverse_static")
    launch(spelling, k, nb, pe.BLOCK, [dev(spelling, x), out],
           shared=pe.BLOCK * 4 if dynamic else 0)
    np.testing.assert_array_equal(host(out), x.reshape(nb, pe.BLOCK)[:, ::-1].ravel())


# ---- warp shuffles ----

@pytest.mark.parametrize("spelling", SPELLINGS)
def test_warp_sum(spelling):
    x = rng.integers(-10**5, 10**5, 32 * 24, dtype=np.int32)
    out = dev(spelling, np.full(24, -7, np.int32))
    launch(spelling, kernel(spelling, "warp_sum"), 3, 256, [dev(spelling, x), out])
    np.testing.assert_array_equal(host(out), x.reshape(24, 32).sum(axis=1))


# ---- local arrays ----

@pytest.mark.parametrize("spelling", SPELLINGS)
def test_moving_sum(spelling):
    n = 2000
    x = rng.standard_normal(n)
    out = dev(spelling, np.full(n, np.nan))
    launch(spelling, kernel(spelling, "moving_sum"), blocks(n, 128), 128,
           [dev(spelling, x), out])
    pad = np.concatenate([np.zeros(3), x])
    ref = pad[3:] + pad[2:-1] + pad[1:-2] + pad[:-3]
    np.testing.assert_allclose(host(out), ref, rtol=1e-12, atol=1e-12)


# ---- forms: vectorize, guvectorize, reduce ----

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vectorize_target_cuda(dtype):
    a = rng.standard_normal(10000).astype(dtype)
    b = rng.standard_normal(10000).astype(dtype)
    r = pe.nb_rel_diff(cuda.to_device(a), cuda.to_device(b))
    r = r.copy_to_host() if hasattr(r, "copy_to_host") else np.asarray(r)
    ref = np.abs(a - b) / (np.abs(a) + np.abs(b) + 1)
    assert r.dtype == dtype
    np.testing.assert_allclose(r, ref, rtol=1e-6 if dtype == np.float32 else 1e-14)


def test_cuda_vectorize():
    x = rng.uniform(-4, 4, 5000)
    r = pe.nb_gauss(cuda.to_device(x)).copy_to_host()
    np.testing.assert_allclose(r, np.exp(-x * x / 2) / math.sqrt(2 * math.pi), rtol=1e-13)


def test_guvectorize_matmul():
    a = rng.uniform(-1, 1, (30, 5, 7)).astype(np.float32)
    b = rng.uniform(-1, 1, (30, 7, 4)).astype(np.float32)
    c = pe.nb_gu_matmul(cuda.to_device(a), cuda.to_device(b)).copy_to_host()
    assert c.shape == (30, 5, 4)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)


def test_cuda_guvectorize_norm():
    x = rng.standard_normal((1000, 33))
    r = pe.nb_gu_norm(cuda.to_device(x)).copy_to_host()
    np.testing.assert_allclose(r, np.linalg.norm(x, axis=1), rtol=1e-13)


def test_cuda_reduce():
    x = rng.integers(-1000, 1000, 100001).astype(np.int64)
    assert pe.nb_sum_reduce(cuda.to_device(x)) == x.sum()
    y = rng.uniform(-100, -1, 5000)                 # all negative: init decides
    assert pe.nb_max_reduce(cuda.to_device(y), init=-1e9) == y.max()
    assert pe.nb_max_reduce(cuda.to_device(y)) == 0  # Numba folds init=0 in
