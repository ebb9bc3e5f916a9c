"""argmax's first pass written in cujit's kernel language, in a few shapes,
to find what keeps the stdlib's arg_blocks under CuPy's bandwidth (see
bench/arg_variants.py for the same in CUDA C++).  Each variant writes one
candidate per thread (no block combine): the loop alone is timed.
Run on the GPU machine: PYTHONPATH=. python3 bench/arg_cujit_variants.py"""
import cupy as cp
import numpy as np

from cupy_timing import copy_bandwidth, gpu_ms

import cujit
from cujit import jit

N = 1 << 28


@jit.rawkernel(device=True)
def later(v, w, mx):
    if v != v:
        return False
    if w != w:
        return True
    if mx != 0:
        return w > v
    return w < v


def flat_inline(x, part):
    """1-d, the comparison written inline (max only)"""
    nt = jit.blockDim.x
    step = jit.gridDim.x * nt
    t = jit.blockIdx.x * nt + jit.threadIdx.x
    j = t
    n = x.size
    bi = np.int64(-1)
    bv = x[0]
    if j < n:
        bv = x[j]
        bi = j
        j += step
    while j + 7 * step < n:
        v0 = x[j]
        v1 = x[j + step]
        v2 = x[j + 2 * step]
        v3 = x[j + 3 * step]
        v4 = x[j + 4 * step]
        v5 = x[j + 5 * step]
        v6 = x[j + 6 * step]
        v7 = x[j + 7 * step]
        if bv == bv and (v0 != v0 or v0 > bv):
            bv = v0
            bi = j
        if bv == bv and (v1 != v1 or v1 > bv):
            bv = v1
            bi = j + step
        if bv == bv and (v2 != v2 or v2 > bv):
            bv = v2
            bi = j + 2 * step
        if bv == bv and (v3 != v3 or v3 > bv):
            bv = v3
            bi = j + 3 * step
        if bv == bv and (v4 != v4 or v4 > bv):
            bv = v4
            bi = j + 4 * step
        if bv == bv and (v5 != v5 or v5 > bv):
            bv = v5
            bi = j + 5 * step
        if bv == bv and (v6 != v6 or v6 > bv):
            bv = v6
            bi = j + 6 * step
        if bv == bv and (v7 != v7 or v7 > bv):
            bv = v7
            bi = j + 7 * step
        j += 8 * step
    while j < n:
        v = x[j]
        if bv == bv and (v != v or v > bv):
            bv = v
            bi = j
        j += step
    part[t] = bi


def flat_devfn(x, part, mx):
    """1-d, the stdlib's later_better() with a run-time mx"""
    nt = jit.blockDim.x
    step = jit.gridDim.x * nt
    t = jit.blockIdx.x * nt + jit.threadIdx.x
    j = t
    n = x.size
    bi = np.int64(-1)
    bv = x[0]
    if j < n:
        bv = x[j]
        bi = j
        j += step
    while j + 7 * step < n:
        v0 = x[j]
        v1 = x[j + step]
        v2 = x[j + 2 * step]
        v3 = x[j + 3 * step]
        v4 = x[j + 4 * step]
        v5 = x[j + 5 * step]
        v6 = x[j + 6 * step]
        v7 = x[j + 7 * step]
        if later(bv, v0, mx):
            bv = v0
            bi = j
        if later(bv, v1, mx):
            bv = v1
            bi = j + step
        if later(bv, v2, mx):
            bv = v2
            bi = j + 2 * step
        if later(bv, v3, mx):
            bv = v3
            bi = j + 3 * step
        if later(bv, v4, mx):
            bv = v4
            bi = j + 4 * step
        if later(bv, v5, mx):
            bv = v5
            bi = j + 5 * step
        if later(bv, v6, mx):
            bv = v6
            bi = j + 6 * step
        if later(bv, v7, mx):
            bv = v7
            bi = j + 7 * step
        j += 8 * step
    while j < n:
        v = x[j]
        if later(bv, v, mx):
            bv = v
            bi = j
        j += step
    part[t] = bi


def three_d(x, part, mx):
    """the stdlib's indexing: x viewed as (1, N, 1), x[a, j, b]"""
    nt = jit.blockDim.x
    step = jit.gridDim.x * nt
    t = jit.blockIdx.x * nt + jit.threadIdx.x
    n = x.shape[1]
    a = 0
    b = 0
    j = t
    bi = np.int64(-1)
    bv = x[a, 0, b]
    if j < n:
        bv = x[a, j, b]
        bi = j
        j += step
    while j + 7 * step < n:
        v0 = x[a, j, b]
        v1 = x[a, j + step, b]
        v2 = x[a, j + 2 * step, b]
        v3 = x[a, j + 3 * step, b]
        v4 = x[a, j + 4 * step, b]
        v5 = x[a, j + 5 * step, b]
        v6 = x[a, j + 6 * step, b]
        v7 = x[a, j + 7 * step, b]
        if later(bv, v0, mx):
            bv = v0
            bi = j
        if later(bv, v1, mx):
            bv = v1
            bi = j + step
        if later(bv, v2, mx):
            bv = v2
            bi = j + 2 * step
        if later(bv, v3, mx):
            bv = v3
            bi = j + 3 * step
        if later(bv, v4, mx):
            bv = v4
            bi = j + 4 * step
        if later(bv, v5, mx):
            bv = v5
            bi = j + 5 * step
        if later(bv, v6, mx):
            bv = v6
            bi = j + 6 * step
        if later(bv, v7, mx):
            bv = v7
            bi = j + 7 * step
        j += 8 * step
    while j < n:
        v = x[a, j, b]
        if later(bv, v, mx):
            bv = v
            bi = j
        j += step
    part[t] = bi


copy_bw = copy_bandwidth(N)
sms = cp.cuda.Device().attributes["MultiProcessorCount"]
xc = cp.random.rand(N, dtype=cp.float32)
ref = int(cp.argmax(xc))
x3 = xc.reshape(1, N, 1)
print(f"copy {copy_bw:.1f} GB/s")
t = gpu_ms(lambda: cp.argmax(xc))
print(f"{'cupy.argmax (whole)':34s} {t:.4f} ms {100 * 4 * N / t / 1e6 / copy_bw:6.1f} %")
for fn, args in ((flat_inline, (xc,)), (flat_devfn, (xc,)), (three_d, (x3,))):
    k = jit.rawkernel()(fn)
    for per_sm in (4, 6, 8):
        grid = per_sm * sms
        part = cp.empty(grid * 256, dtype=cp.int64)
        extra = () if fn is flat_inline else (1,)
        run = lambda k=k, grid=grid, part=part, args=args, extra=extra: \
            k[grid, 256](*args, part, *extra)
        t = gpu_ms(run)
        cand = part.get()
        cand = cand[cand >= 0]
        best = int(cand[np.argmax(cp.asnumpy(xc[cp.asarray(cand)]))])
        print(f"{fn.__name__:12s} grid {grid:5d}: {t:.4f} ms {100 * 4 * N / t / 1e6 / copy_bw:6.1f} %"
              f"{'' if best == ref else '  WRONG'}")
