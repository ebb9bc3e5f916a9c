"""jit.cg's cooperative groups, Numba's cuda.cg, cuda.atomic.nanmax /
nanmin and match_any_sync / match_all_sync on the GPU, against NumPy on
fresh random data.  (Their CUDA C++, PTX and errors: tests/test_cg.py.)"""
import numpy as np
import pytest

import cujit
from cujit import cuda, jit
from cujit.jit import cg

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()


def ints(n, lo=-1000, hi=1000, dtype=np.int32):
    return rng.integers(lo, hi, n).astype(dtype)


# ---- thread blocks ----

@jit.rawkernel()
def block_ids(rank, idx, gidx, dims):
    g = cg.this_thread_block()
    gi = g.group_index()
    b = gi.y * jit.gridDim.x + gi.x
    r = g.thread_rank()
    k = b * g.size() + r
    rank[k] = r
    t = g.thread_index()
    idx[k, 0] = t.x
    idx[k, 1] = t.y
    idx[k, 2] = t.z
    gidx[k, 0] = gi.x
    gidx[k, 1] = gi.y
    d = g.dim_threads()
    e = g.group_dim()
    dims[k] = d.x * 10000 + d.y * 100 + d.z + (e.x - d.x) + g.num_threads() - g.size()


def test_thread_block_indices_2d():
    grid, block = (3, 2), (16, 8, 2)
    nthr = 16 * 8 * 2
    n = 6 * nthr
    rank, idx = cujit.zeros(n, np.uint32), cujit.zeros((n, 3), np.uint32)
    gidx, dims = cujit.zeros((n, 2), np.uint32), cujit.zeros(n, np.uint32)
    block_ids[grid, block](rank, idx, gidx, dims)
    z, y, x = np.meshgrid(np.arange(2), np.arange(8), np.arange(16), indexing="ij")
    lin = ((z * 8 + y) * 16 + x).ravel()
    order = np.argsort(lin)
    want_idx = np.stack([x.ravel(), y.ravel(), z.ravel()], 1)[order]
    r = rank.copy_to_host().reshape(6, nthr)
    np.testing.assert_array_equal(r, np.tile(np.arange(nthr), (6, 1)))
    np.testing.assert_array_equal(idx.copy_to_host().reshape(6, nthr, 3),
                                  np.tile(want_idx, (6, 1, 1)))
    gy, gx = np.meshgrid(np.arange(2), np.arange(3), indexing="ij")
    want_g = np.repeat(np.stack([gx.ravel(), gy.ravel()], 1), nthr, axis=0)
    np.testing.assert_array_equal(gidx.copy_to_host(), want_g)
    np.testing.assert_array_equal(dims.copy_to_host(), np.full(n, 16 * 10000 + 8 * 100 + 2))


@jit.rawkernel()
def block_sums(x, out):
    g = cg.this_thread_block()
    s = jit.shared_memory(np.int64, 256)
    i = jit.grid(1)
    r = g.thread_rank()
    s[r] = x[i]
    g.sync()
    step = 128
    while step > 0:
        if r < step:
            s[r] += s[r + step]
        cg.sync(g)
        step //= 2
    if r == 0:
        out[g.group_index().x] = s[0]


def test_block_sync_reduction():
    x = ints(256 * 40)
    out = cujit.zeros(40, np.int64)
    block_sums[40, 256](cujit.to_device(x), out)
    np.testing.assert_array_equal(out.copy_to_host(), x.reshape(40, 256).sum(1, dtype=np.int64))


# ---- tiles ----

def make_tile_kernel(n):
    @jit.rawkernel()
    def tile_ops(x, sums, xsums, ballots, anys, alls, ranks, metas, matches):
        t = cg.tiled_partition(cg.this_thread_block(), n)
        i = jit.grid(1)
        v = x[i]
        s = v
        d = n // 2
        while d > 0:
            s += t.shfl_down(s, d)
            d //= 2
        if t.thread_rank() == 0:
            sums[i // n] = s
        a = v
        m = 1
        while m < n:
            a += t.shfl_xor(a, m)
            m *= 2
        xsums[i] = a + t.shfl(v, n - 1) - t.shfl(v, n - 1)
        ballots[i] = t.ballot(v > 0)
        anys[i] = t.any(v > 900)
        alls[i] = t.all(v > -900)
        ranks[i] = t.thread_rank() + 1000 * t.size() + 100000 * t.num_threads()
        metas[i] = t.meta_group_rank() * 1000 + t.meta_group_size()
        matches[i] = t.match_any(v % 3)
        t.sync()
    return tile_ops


@pytest.mark.parametrize("n", [2, 4, 8, 16, 32])
def test_tiles(n):
    block, blocks = 128, 12
    total = block * blocks
    x = ints(total)
    outs = [cujit.zeros(total // n, np.int32), cujit.zeros(total, np.int32)] + \
        [cujit.zeros(total, dt) for dt in (np.uint32, np.bool_, np.bool_, np.uint32,
                                          np.uint32, np.uint32)]
    make_tile_kernel(n)[blocks, block](cujit.to_device(x), *outs)
    sums, xsums, ballots, anys, alls, ranks, metas, matches = [o.copy_to_host() for o in outs]
    tiles = x.reshape(-1, n)
    np.testing.assert_array_equal(sums, tiles.sum(1))
    np.testing.assert_array_equal(xsums, np.repeat(tiles.sum(1), n))
    bits = (tiles > 0).astype(np.uint64) << np.arange(n, dtype=np.uint64)
    np.testing.assert_array_equal(ballots, np.repeat(bits.sum(1), n).astype(np.uint32))
    np.testing.assert_array_equal(anys, np.repeat((tiles > 900).any(1), n))
    np.testing.assert_array_equal(alls, np.repeat((tiles > -900).all(1), n))
    lane = np.tile(np.arange(n), total // n)
    np.testing.assert_array_equal(ranks, lane + 1000 * n + 100000 * n)
    brank = np.arange(total) % block
    np.testing.assert_array_equal(metas, (brank // n) * 1000 + block // n)
    key = tiles % 3
    eq = (key[:, :, None] == key[:, None, :]).astype(np.uint64)
    masks = (eq << np.arange(n, dtype=np.uint64)[None, None, :]).sum(2)
    np.testing.assert_array_equal(matches, masks.ravel().astype(np.uint32))


@jit.rawkernel()
def tile_of_tile(x, out, metas):
    t = cg.tiled_partition(cg.this_thread_block(), 16)
    q = cg.tiled_partition(t, 4)
    i = jit.grid(1)
    v = x[i]
    v += q.shfl_down(v, 2)
    v += q.shfl_down(v, 1)
    if q.thread_rank() == 0:
        out[i // 4] = v
    metas[i] = q.meta_group_rank() * 100 + q.meta_group_size()


def test_tile_of_a_tile():
    x = ints(64 * 8)
    out, metas = cujit.zeros(128, np.int32), cujit.zeros(512, np.int32)
    tile_of_tile[8, 64](cujit.to_device(x), out, metas)
    np.testing.assert_array_equal(out.copy_to_host(), x.reshape(-1, 4).sum(1))
    np.testing.assert_array_equal(metas.copy_to_host(), ((np.arange(512) % 16) // 4) * 100 + 4)


@jit.rawkernel(device=True)
def tile_total(t, v):
    v += t.shfl_xor(v, 4)
    v += t.shfl_xor(v, 2)
    v += t.shfl_xor(v, 1)
    return v


@jit.rawkernel()
def tile_via_device_function(x, out):
    t = cg.tiled_partition(cg.this_thread_block(), 8)
    i = jit.grid(1)
    out[i] = tile_total(t, x[i])


def test_tile_passed_to_a_device_function():
    x = rng.standard_normal(256).astype(np.float64)
    out = cujit.zeros(256, np.float64)
    tile_via_device_function[2, 128](cujit.to_device(x), out)
    np.testing.assert_allclose(out.copy_to_host(), np.repeat(x.reshape(-1, 8).sum(1), 8),
                               rtol=1e-12)


# ---- coalesced groups ----

@jit.rawkernel()
def aggregated_append(x, counter, out, full):
    i = jit.grid(1)
    if i < x.size:
        if x[i] > 0.5:
            c = cg.coalesced_threads()
            prev = np.uint32(0)
            if c.thread_rank() == 0:
                prev = jit.atomic_add(counter, 0, np.uint32(c.size()))
            prev = c.shfl(prev, 0)
            out[prev + c.thread_rank()] = i
            b = c.ballot(True)      # rank bits: the c.size() lowest
            full[i] = jit.popc(b) == c.size() and (b & (b + 1)) == 0 and c.all(True) \
                and c.any(True)


def test_coalesced_aggregated_append():
    n = 5000
    x = rng.random(n).astype(np.float32)
    counter = cujit.zeros(1, np.uint32)
    out = cujit.to_device(np.full(n, -1, np.int32))
    full = cujit.zeros(n, np.bool_)
    aggregated_append[(n + 127) // 128, 128](cujit.to_device(x), counter, out, full)
    want = np.nonzero(x > 0.5)[0]
    assert counter.copy_to_host()[0] == want.size
    got = out.copy_to_host()
    np.testing.assert_array_equal(np.sort(got[:want.size]), want)
    assert (got[want.size:] == -1).all()
    np.testing.assert_array_equal(full.copy_to_host(), x > 0.5)


# ---- memcpy_async ----

@jit.rawkernel()
def reverse_blocks(x, out):
    g = cg.this_thread_block()
    s = jit.shared_memory(np.float32, 256)
    b = g.group_index().x
    cg.memcpy_async(g, s, 0, x, b * 256, 256 * 4)
    cg.wait(g)
    r = g.thread_rank()
    out[b * 256 + r] = s[255 - r]


def test_memcpy_async():
    x = rng.standard_normal(256 * 7).astype(np.float32)
    out = cujit.zeros_like(cujit.to_device(x))
    reverse_blocks[7, 256](cujit.to_device(x), out)
    np.testing.assert_array_equal(out.copy_to_host(), x.reshape(7, 256)[:, ::-1].ravel())


# ---- grids: cooperative launches ----

@jit.rawkernel()
def rotate_steps(a, b, steps, info):
    g = cg.this_grid()
    i = g.thread_rank()
    n = a.size
    for s in range(steps):
        b[i] = a[(i + 1) % n] * 2 + 1
        g.sync()
        a[i] = b[(i + n - 3) % n] - 1
        g.sync()
    if i == 0:
        info[0] = g.is_valid()
        info[1] = g.size()
        info[2] = g.num_blocks()
        info[3] = g.block_rank() + g.dim_blocks().x + g.block_index().y


def test_grid_sync_across_blocks():
    blocks, threads, steps = 64, 128, 5
    n = blocks * threads
    x = ints(n, -100, 100, np.int64)
    a, b = cujit.to_device(x), cujit.zeros(n, np.int64)
    info = cujit.zeros(4, np.int64)
    rotate_steps[blocks, threads](a, b, steps, info)
    want = x.copy()
    for _ in range(steps):
        wb = np.roll(want, -1) * 2 + 1
        want = np.roll(wb, 3) - 1
    np.testing.assert_array_equal(a.copy_to_host(), want)
    np.testing.assert_array_equal(info.copy_to_host(), [1, n, blocks, blocks])


def test_grid_too_large_is_an_error_not_a_hang():
    a, b = cujit.zeros(1 << 20, np.int64), cujit.zeros(1 << 20, np.int64)
    info = cujit.zeros(4, np.int64)
    with pytest.raises(ValueError, match=r"rotate_steps.*at most \d+ fit"):
        rotate_steps[(1 << 20) // 1024, 1024](a, b, 1, info)
    with pytest.raises(ValueError, match="grid-stride"):
        rotate_steps[100000, 32](a, b, 1, info)
    cujit.synchronize()


@cuda.jit
def numba_grid_sync(x, out):
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    x[i] += 1
    g.sync()
    out[i] = x[(i + 37) % x.size]


def test_numba_cg_this_grid():
    x = ints(32 * 96)
    dx, out = cuda.to_device(x), cuda.device_array(x.size, np.int32)
    numba_grid_sync[32, 96](dx, out)
    np.testing.assert_array_equal(out.copy_to_host(), np.roll(x + 1, -37))


# ---- atomics nanmax / nanmin ----

@cuda.jit
def nan_extrema(r, x):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.nanmax(r, 0, x[i])
        cuda.atomic.nanmin(r, 1, x[i])


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_atomic_nanmax_nanmin_floats(dt):
    x = rng.standard_normal(3000).astype(dt)
    x[rng.choice(3000, 300, replace=False)] = np.nan
    r = cuda.to_device(np.array([np.nan, np.nan], dt))     # NaN stored: a missing value too
    nan_extrema[(3000 + 255) // 256, 256](r, cuda.to_device(x))
    np.testing.assert_array_equal(r.copy_to_host(), [np.nanmax(x), np.nanmin(x)])
    r2 = cuda.to_device(np.array([np.nanmax(x) + 1, np.nanmin(x) - 1], dt))
    nan_extrema[(3000 + 255) // 256, 256](r2, cuda.to_device(x))
    np.testing.assert_array_equal(r2.copy_to_host(), [np.nanmax(x) + 1, np.nanmin(x) - 1])


@pytest.mark.parametrize("dt", [np.int32, np.uint32, np.int64, np.uint64])
def test_atomic_nanmax_nanmin_integers(dt):
    x = rng.integers(0, 10**6, 3000).astype(dt)
    r = cuda.to_device(np.array([x[0], x[0]], dt))
    nan_extrema[(3000 + 255) // 256, 256](r, cuda.to_device(x))
    np.testing.assert_array_equal(r.copy_to_host(), [x.max(), x.min()])


@cuda.jit
def nanmax_old(r, x, old):
    i = cuda.grid(1)
    if i < x.size:
        old[i] = cuda.atomic.nanmax(r, (i % 2, 0), x[i])


def test_atomic_nanmax_old_values_and_2d_index():
    x = rng.standard_normal(64).astype(np.float32)
    r = cuda.to_device(np.full((2, 1), -np.inf, np.float32))
    old = cuda.device_array(64, np.float32)
    nanmax_old[1, 64](r, cuda.to_device(x), old)
    np.testing.assert_array_equal(r.copy_to_host()[:, 0], [x[0::2].max(), x[1::2].max()])
    o = old.copy_to_host()
    # each old value is what the slot held before: -inf or an earlier value below the max
    for k in range(2):
        part, seen = x[k::2], o[k::2]
        assert (np.isin(seen[seen != -np.inf], part)).all()
        assert (seen <= part.max()).all() and (seen == -np.inf).sum() == 1


# ---- match_any_sync / match_all_sync ----

@cuda.jit
def matches(x, anym, allm, allp):
    i = cuda.grid(1)
    anym[i] = cuda.match_any_sync(0xffffffff, x[i])
    m, p = cuda.match_all_sync(0xffffffff, x[i])
    allm[i] = m
    allp[i] = p


@pytest.mark.parametrize("dt", [np.int32, np.uint32, np.int64, np.float32, np.float64])
def test_match_sync(dt):
    warps = 16
    x = rng.integers(0, 4, warps * 32).astype(dt)
    x[:32] = x[0]                               # one warp all equal
    x[64:96] = rng.integers(5, 9)
    anym, allm = cuda.device_array(warps * 32, np.uint32), cuda.device_array(warps * 32,
                                                                              np.uint32)
    allp = cuda.device_array(warps * 32, np.bool_)
    matches[warps, 32](cuda.to_device(x), anym, allm, allp)
    w = x.reshape(warps, 32)
    eq = (w[:, :, None] == w[:, None, :]).astype(np.uint64)
    want_any = (eq << np.arange(32, dtype=np.uint64)).sum(2).astype(np.uint32).ravel()
    np.testing.assert_array_equal(anym.copy_to_host(), want_any)
    same = (w == w[:, :1]).all(1)
    np.testing.assert_array_equal(allp.copy_to_host(), np.repeat(same, 32))
    np.testing.assert_array_equal(allm.copy_to_host(),
                                  np.repeat(np.where(same, 0xffffffff, 0), 32).astype(np.uint32))
    assert same[0] and same[2]
