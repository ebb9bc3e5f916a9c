"""Kernels written in Numba's spelling (``from cujit import cuda``), as a
Numba user would write them: increment, a strided loop, matrix multiply
(plain and with shared-memory tiles), a histogram with atomics, a block
reduction with syncthreads, dynamic shared memory, warp reductions and votes,
the syncthreads predicates, local arrays, device functions, atomics on 2-d
arrays with tuple indices, compare_and_swap, cuda.fma / cbrt / selp,
atomic.nanmax / nanmin, max / min with NaNs (stored or given) and a
const.array_like table.
Each has a NumPy reference; those needing threads that run together are run
on the GPU only (tests/gpu), the rest on the CPU host shim as well."""
import math

import numpy as np

from cujit import cuda

from ._common import poison, rand

TPB = 16            # tile side of the shared-memory matrix multiply
BLOCK = 128         # threads per block of the block reduction


@cuda.jit
def increment(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


@cuda.jit("void(float32[::1], float32[::1], float32)")
def scale_strided(x, out, factor):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        out[i] = x[i] * factor


@cuda.jit
def matmul(a, b, c):
    i, j = cuda.grid(2)
    if i < c.shape[0] and j < c.shape[1]:
        tmp = 0.
        for k in range(a.shape[1]):
            tmp += a[i, k] * b[k, j]
        c[i, j] = tmp


@cuda.jit
def matmul_shared(a, b, c):
    sa = cuda.shared.array(shape=(TPB, TPB), dtype=np.float32)
    sb = cuda.shared.array((TPB, TPB), np.float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x
    tmp = np.float32(0.)
    for t in range(bpg):
        sa[tx, ty] = 0
        sb[tx, ty] = 0
        if x < a.shape[0] and ty + t * TPB < a.shape[1]:
            sa[tx, ty] = a[x, ty + t * TPB]
        if y < b.shape[1] and tx + t * TPB < b.shape[0]:
            sb[tx, ty] = b[tx + t * TPB, y]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sa[tx, j] * sb[j, ty]
        cuda.syncthreads()
    if x < c.shape[0] and y < c.shape[1]:
        c[x, y] = tmp


def _matmul_args():
    n = TPB * 3
    return rand((n, n), np.float32, -1, 1), rand((n, n), np.float32, -1, 1), \
        poison((n, n), np.float32)


def _matmul_ref(a, b, c):
    return {2: (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)}


@cuda.jit
def histogram(x, xmin, xmax, hist):
    nbins = hist.shape[0]
    width = (xmax - xmin) / nbins
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        b = np.int32((x[i] - xmin) / width)
        if b >= 0 and b < nbins:
            cuda.atomic.add(hist, b, 1)


def _histogram_args():
    # bin centres only (k + 0.5), so no value sits on an edge where the
    # rounding of the division would decide its bin; some fall outside
    x = np.floor(rand(1000, np.float32, -2, 12)) + np.float32(0.5)
    return x, np.float32(0), np.float32(10), np.zeros(10, np.int32)


def _histogram_ref(x, xmin, xmax, hist):
    b = (x - xmin).astype(np.int64)             # truncates, as np.int32(v) does
    b = b[(b >= 0) & (b < 10)]
    return {3: np.bincount(b, minlength=10).astype(np.int32)}


@cuda.jit
def block_sum(x, out):
    buf = cuda.shared.array(BLOCK, np.float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[t] = x[i] if i < x.size else 0
    cuda.syncthreads()
    s = BLOCK // 2
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        out[cuda.blockIdx.x] = buf[0]


def _block_sum_args():
    return rand(BLOCK * 4 - 5, np.float32, -1, 1), poison(4, np.float32)


def _block_sum_ref(x, out):
    pad = np.zeros(BLOCK * 4, np.float64)
    pad[:x.size] = x
    return {1: pad.reshape(4, BLOCK).sum(axis=1).astype(np.float32)}


@cuda.jit
def dynamic_reverse(x, out):
    buf = cuda.shared.array(0, dtype=np.float64)
    t = cuda.threadIdx.x
    n = cuda.blockDim.x
    buf[t] = x[t]
    cuda.syncthreads()
    out[t] = buf[n - 1 - t]


@cuda.jit
def warp_sums(x, out, votes):
    i = cuda.grid(1)
    v = x[i]
    off = 16
    while off > 0:
        v += cuda.shfl_down_sync(0xffffffff, v, off)
        off //= 2
    lane = cuda.laneid
    mask = cuda.ballot_sync(0xffffffff, x[i] > 0)
    below = cuda.popc(mask & cuda.lanemask_lt())
    if lane == 0:
        out[i // cuda.warpsize] = v
    votes[i, 0] = below
    votes[i, 1] = cuda.all_sync(0xffffffff, x[i] > -100)
    votes[i, 2] = cuda.any_sync(0xffffffff, x[i] > 100)
    votes[i, 3] = cuda.eq_sync(0xffffffff, i >= 0)
    votes[i, 4] = cuda.shfl_xor_sync(0xffffffff, lane, 1)
    votes[i, 5] = cuda.shfl_sync(0xffffffff, lane, 3)
    votes[i, 6] = cuda.shfl_up_sync(0xffffffff, lane, 1)


def _warp_args():
    return rand(64, np.int32, -50, 50), poison(2, np.int32), poison((64, 7), np.int32)


def _warp_ref(x, out, votes):
    res = np.zeros((64, 7), np.int32)
    lane = np.arange(64) % 32
    pos = (x > 0).reshape(2, 32)
    for i in range(64):
        w, l = divmod(i, 32)
        res[i, 0] = pos[w, :l].sum()
    res[:, 1] = 1
    res[:, 2] = 0
    res[:, 3] = 1
    res[:, 4] = lane ^ 1
    res[:, 5] = 3
    res[:, 6] = np.where(lane == 0, 0, lane - 1)
    return {1: x.reshape(2, 32).sum(axis=1).astype(np.int32), 2: res}


@cuda.jit
def sync_predicates(x, out):
    t = cuda.threadIdx.x
    p = x[t] > 0
    c = cuda.syncthreads_count(p)
    a = cuda.syncthreads_and(p)
    o = cuda.syncthreads_or(p)
    if t == 0:
        out[0] = c
        out[1] = a != 0
        out[2] = o != 0


def _sync_args():
    x = rand(64, np.int32, -5, 5)
    x[0] = 1
    x[1] = -1
    return x, poison(3, np.int32)


def _sync_ref(x, out):
    p = x > 0
    return {1: np.array([p.sum(), p.all(), p.any()], np.int32)}


@cuda.jit(device=True)
def clamp(v, lo, hi):
    return min(max(v, lo), hi)


@cuda.jit
def local_window(x, out):
    i = cuda.grid(1)
    if i < out.size:
        w = cuda.local.array(3, np.float64)
        for k in range(3):
            j = clamp(i + k - 1, 0, x.size - 1)
            w[k] = x[j]
        out[i] = (w[0] + w[1] + w[2]) / 3


def _window_ref(x, out):
    p = np.concatenate([x[:1], x, x[-1:]])
    return {1: (p[:-2] + p[1:-1] + p[2:]) / 3}


@cuda.jit
def atomics_2d(vals, grid2, first, olds):
    i = cuda.grid(1)
    if i < vals.size:
        cuda.atomic.add(grid2, (vals[i] % 3, i % 2), 1)
        cuda.atomic.max(grid2, (3, 0), vals[i])
        cuda.atomic.min(grid2, (3, 1), vals[i])
        olds[i] = cuda.atomic.compare_and_swap(first, -1, i)


def _atomics_args():
    g = np.zeros((4, 2), np.int32)
    g[3, 0] = -1000
    g[3, 1] = 1000
    return rand(50, np.int32, 0, 40), g, np.full(1, -1, np.int32), poison(50, np.int32)


def _atomics_ref(vals, grid2, first, olds):
    res = grid2.copy()
    for i, v in enumerate(vals.tolist()):
        res[v % 3, i % 2] += 1
    res[3, 0] = vals.max()
    res[3, 1] = vals.min()

    def one_winner(actual):
        assert (actual == -1).sum() == 1, actual      # exactly one thread swapped

    def winner(actual):
        assert 0 <= actual[0] < vals.size
    return {1: res, 2: winner, 3: one_winner}


@cuda.jit
def fused_math(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        f = cuda.fma(x[i], y[i], np.float32(1))
        r = cuda.cbrt(x[i])
        s = cuda.selp(x[i] > y[i], x[i], y[i])
        out[i] = f + r + s + math.sqrt(abs(y[i]))


def _fused_ref(x, y, out):
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    return {2: (x64 * y64 + 1 + np.cbrt(x64) + np.maximum(x64, y64)
                + np.sqrt(np.abs(y64))).astype(np.float32)}


@cuda.jit
def bit_ops(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = cuda.popc(x[i])
        out[i, 1] = cuda.clz(x[i])
        out[i, 2] = cuda.ffs(x[i])


def _bits_ref(x, out):
    res = np.zeros((x.size, 3), np.int32)
    for i, v in enumerate(x.tolist()):
        u = v & 0xffffffff
        res[i] = [bin(u).count("1"), 32 - u.bit_length(),
                  (u & -u).bit_length() if u else 0]
    return {1: res}


@cuda.jit
def nan_extrema(x, r, olds):
    i = cuda.grid(1)
    if i < x.size:
        olds[i] = cuda.atomic.nanmax(r, 0, x[i])
        cuda.atomic.nanmin(r, 1, x[i])


def _nan_args():
    x = rand(60, np.float64)
    x[::7] = np.nan
    return x, np.array([np.nan, np.nan]), poison(60, np.float64)


def _nan_ref(x, r, olds):
    def olds_ok(actual):
        # what each thread found: NaN (the start) for the first, then values of x
        seen = actual[~np.isnan(actual)]
        assert np.isnan(actual).sum() >= 1 and np.isin(seen, x).all(), actual
        assert (seen <= np.nanmax(x)).all()
    return {1: np.array([np.nanmax(x), np.nanmin(x)]), 2: olds_ok}


@cuda.jit
def nan_in_max_min(x, r):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.max(r, 0, x[i])     # r[0], r[1]: NaN stored: it stays (Numba's rule)
        cuda.atomic.min(r, 1, x[i])
        cuda.atomic.max(r, 2, x[i])     # r[2], r[3]: numbers; the NaNs of x change nothing
        cuda.atomic.min(r, 3, x[i])


def _nan_mm_args():
    x = rand(60, np.float64)
    x[::9] = np.nan
    return x, np.array([np.nan, np.nan, -1e300, 1e300])


def _nan_mm_ref(x, r):
    return {1: np.array([np.nan, np.nan, np.nanmax(x), np.nanmin(x)])}


@cuda.jit(cuda.float32(cuda.float32, cuda.float32), device=True)
def add_f32(a, b):
    return a + b


@cuda.jit
def declared_calls(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = add_f32(x[i], x[i] * 0.1)     # float64 in: converted, as in Numba


def _declared_ref(x, out):
    return {1: (x.astype(np.float32) + (x * 0.1).astype(np.float32)).astype(np.float64)}


POLY = rand((3, 5), np.float32)     # read into the kernel when it compiles


@cuda.jit
def const_table(x, out):
    c = cuda.const.array_like(POLY)
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * c[i % 3, i % 5] + c.shape[1]


def _const_ref(x, out):
    i = np.arange(x.size)
    return {1: x * POLY[i % 3, i % 5] + np.float32(5)}


CASES = [
    # Numba's typing: float32 + an int literal (int64) computes in float64
    (increment, (np.zeros(8, np.float32),), [("(float)((double)cj_r + 1.0)", True)]),
    (matmul_shared, _matmul_args(), [("__shared__ float sa[256]", True),
                                      ("__syncthreads()", True)]),
    (dynamic_reverse, (np.zeros(8), np.zeros(8)), [("cj_dyn_smem", True)]),
    (sync_predicates, _sync_args(), [("__syncthreads_count(", True),
                                     ("__syncthreads_and(", True),
                                     ("__syncthreads_or(", True)]),
    (warp_sums, _warp_args(), [("__uni_sync(", True), ("cj_lanemask_lt()", True),
                               ("cj_laneid()", True)]),
    (block_sum, _block_sum_args(), [("__shared__ float buf[128]", True)]),
    (fused_math, (np.zeros(4, np.float32),) * 3, [("fmaf(", True), ("cbrtf(", True)]),
    (atomics_2d, _atomics_args(), [("cj_atomic_cas(&", True)]),
    (nan_extrema, _nan_args(), [("cj_atomic_nanmax(&", True), ("cj_atomic_nanmin(&", True)]),
    (const_table, (np.zeros(4, np.float32),) * 2, [("__constant__", True)]),
]

RUN = [
    (increment, 4, 32, lambda: (rand(100, np.float32),),
     lambda a: {0: a + np.float32(1)}),
    (increment, 2, 64, lambda: (rand(100, np.int64),), lambda a: {0: a + 1}),
    (scale_strided, 2, 32, lambda: (rand(300, np.float32), poison(300, np.float32),
                                    np.float32(1.5)),
     lambda x, out, f: {1: x * f}),
    (matmul, (3, 3), (TPB, TPB), _matmul_args, _matmul_ref, {"rtol": 1e-4, "atol": 1e-4}),
    (matmul_shared, (3, 3), (TPB, TPB), _matmul_args, _matmul_ref,
     {"rtol": 1e-4, "atol": 1e-4}),
    (histogram, 4, 64, _histogram_args, _histogram_ref),
    (block_sum, 4, BLOCK, _block_sum_args, _block_sum_ref, {"rtol": 1e-4, "atol": 1e-4}),
    (dynamic_reverse, 1, 64, lambda: (rand(64, np.float64), poison(64, np.float64)),
     lambda x, out: {1: x[::-1].copy()}, {"shared_mem": 64 * 8}),
    (warp_sums, 1, 64, _warp_args, _warp_ref),
    (sync_predicates, 1, 64, _sync_args, _sync_ref),
    (local_window, 2, 32, lambda: (rand(50, np.float64), poison(50, np.float64)),
     _window_ref),
    (atomics_2d, 2, 32, _atomics_args, _atomics_ref),
    (fused_math, 1, 64, lambda: (rand(64, np.float32, 0.5, 4), rand(64, np.float32, -4, 4),
                                 poison(64, np.float32)), _fused_ref),
    (bit_ops, 1, 64, lambda: (rand(64, np.int32, -2 ** 31, 2 ** 31 - 1),
                              poison((64, 3), np.int32)), _bits_ref),
    (nan_extrema, 2, 32, _nan_args, _nan_ref),
    (nan_in_max_min, 2, 32, _nan_mm_args, _nan_mm_ref),
    (const_table, 2, 32, lambda: (rand(50, np.float32), poison(50, np.float32)), _const_ref,
     {"rtol": 1e-6, "atol": 1e-6}),
    (declared_calls, 2, 32, lambda: (rand(50, np.float64), poison(50, np.float64)),
     _declared_ref, {"rtol": 0, "atol": 0}),
]
