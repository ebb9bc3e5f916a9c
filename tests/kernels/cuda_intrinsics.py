"""CUDA intrinsics: threadIdx / blockIdx / blockDim / gridDim in x, y, z,
jit.grid(n) and jit.gridsize(n) for n = 1..3, jit.laneid(), jit.warpsize,
jit.syncthreads(), jit.syncwarp(), jit.threadfence()."""
import numpy as np

from cujit import jit

from ._common import poison, rand

GRID = (2, 3, 2)
BLOCK = (4, 2, 3)


@jit.rawkernel()
def thread_ids(out):
    nthreads = jit.blockDim.x * jit.blockDim.y * jit.blockDim.z
    block = (jit.blockIdx.z * jit.gridDim.y + jit.blockIdx.y) * jit.gridDim.x + jit.blockIdx.x
    local = (jit.threadIdx.z * jit.blockDim.y + jit.threadIdx.y) * jit.blockDim.x + jit.threadIdx.x
    g = block * nthreads + local
    out[g, 0] = jit.threadIdx.x
    out[g, 1] = jit.threadIdx.y
    out[g, 2] = jit.threadIdx.z
    out[g, 3] = jit.blockIdx.x
    out[g, 4] = jit.blockIdx.y
    out[g, 5] = jit.blockIdx.z
    out[g, 6] = jit.blockDim.x
    out[g, 7] = jit.blockDim.y
    out[g, 8] = jit.blockDim.z
    out[g, 9] = jit.gridDim.x
    out[g, 10] = jit.gridDim.y
    out[g, 11] = jit.gridDim.z


def _launch_threads(grid, block):
    """(blockIdx, threadIdx) of every thread of a launch, in linear order."""
    for bz in range(grid[2]):
        for by in range(grid[1]):
            for bx in range(grid[0]):
                for tz in range(block[2]):
                    for ty in range(block[1]):
                        for tx in range(block[0]):
                            yield (bx, by, bz), (tx, ty, tz)


def _thread_ids_ref(out):
    rows = [t + b + BLOCK + GRID for b, t in _launch_threads(GRID, BLOCK)]
    return {0: np.array(rows, out.dtype)}


def _nthreads():
    return int(np.prod(GRID) * np.prod(BLOCK))


@jit.rawkernel()
def grid_fns(out):
    i = jit.grid(1)
    n = jit.gridsize(1)
    x, y = jit.grid(2)
    w, h = jit.gridsize(2)
    a, b, c = jit.grid(3)
    p, q, r = jit.gridsize(3)
    vals = (i, n, x, y, w, h, a, b, c, p, q, r)
    out[c, b, a, 0] = vals[0]
    out[c, b, a, 1] = vals[1]
    out[c, b, a, 2] = x
    out[c, b, a, 3] = y
    out[c, b, a, 4] = w
    out[c, b, a, 5] = h
    out[c, b, a, 6] = a
    out[c, b, a, 7] = b
    out[c, b, a, 8] = c
    out[c, b, a, 9] = p
    out[c, b, a, 10] = q
    out[c, b, a, 11] = r


def _grid_fns_ref(out):
    res = np.empty(out.shape, out.dtype)
    gx, gy, gz = (GRID[k] * BLOCK[k] for k in range(3))
    for (bx, by, bz), (tx, ty, tz) in _launch_threads(GRID, BLOCK):
        a, b, c = bx * BLOCK[0] + tx, by * BLOCK[1] + ty, bz * BLOCK[2] + tz
        res[c, b, a] = [a, gx, a, b, gx, gy, a, b, c, gx, gy, gz]
    return {0: res}


def _grid_shape():
    return tuple(GRID[k] * BLOCK[k] for k in (2, 1, 0)) + (12,)


@jit.rawkernel()
def lanes(out):
    i = jit.grid(1)
    out[i, 0] = jit.laneid()
    out[i, 1] = jit.warpsize
    out[i, 2] = i // jit.warpsize
    out[i, 3] = jit.threadIdx.x % jit.warpsize == jit.laneid()


def _lanes_ref(out):
    i = np.arange(out.shape[0])
    t = i % 96
    return {0: np.stack([t % 32, np.full_like(i, 32), i // 32, np.ones_like(i)], 1)
            .astype(out.dtype)}


@jit.rawkernel()
def block_reverse(x, out):
    buf = jit.shared_memory(np.float32, 64)
    t = jit.threadIdx.x
    i = jit.grid(1)
    buf[t] = x[i]
    jit.syncthreads()
    out[i] = buf[jit.blockDim.x - 1 - t]


def _block_reverse_ref(x, out):
    return {1: x.reshape(-1, 64)[:, ::-1].reshape(-1).copy()}


@jit.rawkernel()
def warp_rotate(x, out):
    buf = jit.shared_memory(np.int32, 64)
    t = jit.threadIdx.x
    lane = jit.laneid()
    buf[t] = x[t]
    jit.syncwarp()
    v = buf[t - lane + (lane + 1) % 32]
    jit.syncwarp(0xffffffff)
    buf[t] = v * 2
    jit.syncwarp(mask=0xffffffff)
    out[t] = buf[t]


def _warp_rotate_ref(x, out):
    w = x.reshape(-1, 32)
    return {1: (np.roll(w, -1, axis=1) * 2).reshape(-1).astype(out.dtype)}


@jit.rawkernel()
def fence_and_flag(data, flag):
    i = jit.grid(1)
    if i < data.size:
        data[i] = i * 2
        jit.threadfence()
        if i == 0:
            flag[0] = 1


CASES = [
    (thread_ids, (poison((_nthreads(), 12), np.int32),)),
    (grid_fns, (poison(_grid_shape(), np.int64),)),
    (lanes, (poison((192, 4), np.int32),)),
    (block_reverse, (rand(128, np.float32), poison(128, np.float32)), [("__syncthreads", True),
                                                                      ("__shared__", True)]),
    (warp_rotate, (rand(64, np.int32), poison(64, np.int32)), [("__syncwarp", True)]),
    (fence_and_flag, (poison(16, np.int64), poison(1, np.int32)), [("__threadfence", True)]),
]

RUN = [
    (thread_ids, GRID, BLOCK, lambda: (poison((_nthreads(), 12), np.int32),), _thread_ids_ref),
    (grid_fns, GRID, BLOCK, lambda: (poison(_grid_shape(), np.int64),), _grid_fns_ref),
    (lanes, 2, 96, lambda: (poison((192, 4), np.int32),), _lanes_ref),
    (block_reverse, 2, 64, lambda: (rand(128, np.float32), poison(128, np.float32)),
     _block_reverse_ref),
    (warp_rotate, 1, 64, lambda: (rand(64, np.int32), poison(64, np.int32)), _warp_rotate_ref),
    (fence_and_flag, 1, 16, lambda: (poison(16, np.int64), poison(1, np.int32)),
     lambda data, flag: {0: np.arange(16) * 2, 1: np.ones(1, np.int32)}),
]
