"""Shared and local memory: static shapes (an int or a tuple, literal or a
global constant), 1-d and 2-d, several dtypes, dynamic shared memory sized at
launch (shape None), per-thread local arrays (1-d and 2-d)."""
import numpy
import numpy as np

from cujit import jit

from ._common import poison, rand

TPB = 128
TILE = 16


@jit.rawkernel()
def block_sum(x, out):
    buf = jit.shared_memory(np.float32, TPB)       # shape from a global constant
    t = jit.threadIdx.x
    i = jit.grid(1)
    buf[t] = x[i] if i < x.size else 0.0
    jit.syncthreads()
    step = TPB // 2
    while step > 0:
        if t < step:
            buf[t] += buf[t + step]
        jit.syncthreads()
        step //= 2
    if t == 0:
        out[jit.blockIdx.x] = buf[0]


def _block_sum_ref(x, out):
    pad = np.zeros(out.size * TPB, np.float64)
    pad[:x.size] = x
    return {1: pad.reshape(-1, TPB).sum(axis=1).astype(np.float32)}


@jit.rawkernel()
def tile_transpose(x, out):
    tile = jit.shared_memory(numpy.float64, (TILE, TILE + 1))   # 2-d, padded
    tx = jit.threadIdx.x
    ty = jit.threadIdx.y
    c = jit.blockIdx.x * TILE + tx
    r = jit.blockIdx.y * TILE + ty
    if r < x.shape[0] and c < x.shape[1]:
        tile[ty, tx] = x[r, c]
    jit.syncthreads()
    c2 = jit.blockIdx.y * TILE + tx
    r2 = jit.blockIdx.x * TILE + ty
    if r2 < out.shape[0] and c2 < out.shape[1]:
        out[r2, c2] = tile[tx, ty]


@jit.rawkernel()
def two_shared_arrays(x, out):
    a = jit.shared_memory(np.int32, 32)
    b = jit.shared_memory(np.int64, (2, 32))
    t = jit.threadIdx.x
    a[t] = x[t]
    b[0, t] = x[t] * 10
    b[1, t] = -x[t]
    jit.syncthreads()
    out[t] = a[31 - t] + b[0, (t + 1) % 32] + b[1, t]


def _two_shared_ref(x, out):
    x = x.astype(np.int64)
    return {1: x[::-1] + np.roll(x, -1) * 10 - x}


@jit.rawkernel()
def dynamic_shared(x, out):
    buf = jit.shared_memory(np.float32, None)      # sized at launch
    t = jit.threadIdx.x
    n = jit.blockDim.x
    i = jit.grid(1)
    buf[t] = x[i]
    jit.syncthreads()
    out[i] = buf[(t + 1) % n] - buf[t]


def _dynamic_ref(x, out):
    w = x.reshape(-1, 64)
    return {1: (np.roll(w, -1, axis=1) - w).reshape(-1)}


@jit.rawkernel()
def local_sort(x, out):
    i = jit.grid(1)
    if i < x.shape[0]:
        tmp = jit.local_memory(np.float32, 8)
        n = x.shape[1]
        for k in range(n):
            tmp[k] = x[i, k]
        for k in range(1, n):                       # insertion sort
            v = tmp[k]
            j = k - 1
            while j >= 0 and tmp[j] > v:
                tmp[j + 1] = tmp[j]
                j -= 1
            tmp[j + 1] = v
        for k in range(n):
            out[i, k] = tmp[k]


@jit.rawkernel()
def local_2d(x, out):
    i = jit.grid(1)
    if i < x.size:
        m = jit.local_memory(np.int64, (3, 4))
        for r in range(3):
            for c in range(4):
                m[r, c] = x[i] * r + c
        s = 0
        for r in range(3):
            for c in range(4):
                s += m[r, c] * (r + 1)
        out[i] = s


def _local_2d_ref(x, out):
    x = x.astype(np.int64)
    s = sum((x * r + c) * (r + 1) for r in range(3) for c in range(4))
    return {1: s}



@jit.rawkernel()
def shared_sized_by_a_local(x, out):
    """N = 64 assigned once: a constant where a shape needs one (Numba's
    test_sync simple_smem); the block reverses its slice through it"""
    N = 64
    sm = jit.shared_memory(np.float32, N)
    t = jit.threadIdx.x
    i = jit.blockIdx.x * N + t
    sm[t] = x[i]
    jit.syncthreads()
    out[i] = sm[N - 1 - t]


CASES = [
    (shared_sized_by_a_local, (rand(192, np.float32), poison(192, np.float32))),
    (block_sum, (rand(300, np.float32), poison(3, np.float32)), [("__shared__", True)]),
    (tile_transpose, (rand((40, 24), np.float64), poison((24, 40), np.float64))),
    (two_shared_arrays, (rand(32, np.int32), poison(32, np.int64))),
    (dynamic_shared, (rand(128, np.float32), poison(128, np.float32)),
     [("extern __shared__", True)]),
    (local_sort, (rand((20, 8), np.float32), poison((20, 8), np.float32))),
    (local_2d, (rand(10, np.int32), poison(10, np.int64))),
]

RUN = [
    (block_sum, 3, TPB, lambda: (rand(300, np.float32, -3, 3), poison(3, np.float32)),
     _block_sum_ref, {"rtol": 1e-5, "atol": 1e-4}),
    (tile_transpose, (2, 3), (TILE, TILE),
     lambda: (rand((40, 24), np.float64), poison((24, 40), np.float64)),
     lambda x, out: {1: x.T.copy()}),
    (two_shared_arrays, 1, 32, lambda: (rand(32, np.int32), poison(32, np.int64)),
     _two_shared_ref),
    (dynamic_shared, 2, 64, lambda: (rand(128, np.float32), poison(128, np.float32)),
     _dynamic_ref, {"shared_mem": 64 * 4}),
    (local_sort, 1, 32, lambda: (rand((20, 8), np.float32), poison((20, 8), np.float32)),
     lambda x, out: {1: np.sort(x, axis=1)}),
    (local_2d, 1, 16, lambda: (rand(10, np.int32), poison(10, np.int64)), _local_2d_ref),
    (shared_sized_by_a_local, 3, 64, lambda: (rand(192, np.float32), poison(192, np.float32)),
     lambda x, out: {1: x.reshape(3, 64)[:, ::-1].ravel()}),
]
