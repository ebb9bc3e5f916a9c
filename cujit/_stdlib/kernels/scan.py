"""Scan kernels (cumsum) over a 3-d view (A, N, B) of the input whose
middle axis is the one scanned; the output is a view of the same shape.

Two ways: `rows`, one thread per row (a, b) adding sequentially (small N or
many rows), and a three-pass multi-block scan for long rows: `partials` sums
each chunk of a row, `carries` turns each row's chunk sums into exclusive
prefixes, `finish` scans each chunk again starting from its prefix.  Within a
block, values are scanned by warp shuffles and the warps' totals in shared
memory.  ACC, the accumulator type, is a compile-time name: cujit/_stdlib/scans.py
makes one copy of each kernel per accumulator type (`specialize`).
Loaded by path, not as a package."""
import types

import numpy as np

from cujit import jit

FULL = 0xffffffff
ACC = np.float64                # replaced in each specialised copy


@jit.rawkernel(device=True)
def warp_scan(v, lane):
    """The inclusive sum of v over lanes 0..lane of the warp (shuffles up)."""
    d = 1
    while d < 32:
        o = jit.shfl_up_sync(FULL, v, d)
        if lane >= d:
            v += o
        d *= 2
    return v


def rows(x, out):
    nb = x.shape[2]
    nrows = x.shape[0] * nb
    r = jit.grid(1)
    while r < nrows:
        a = r // nb
        b = r - a * nb
        acc = ACC(0)
        for j in range(x.shape[1]):
            acc += ACC(x[a, j, b])
            out[a, j, b] = acc
        r += jit.gridsize(1)


def partials(x, part, chunk):
    """part[row, s] = the sum of elements [s * chunk, (s + 1) * chunk) of the row;
    block (s, y) does rows y, y + gridDim.y, ..."""
    wsum = jit.shared_memory(ACC, 32)
    n = x.shape[1]
    nb = x.shape[2]
    nrows = x.shape[0] * nb
    t = jit.threadIdx.x
    nt = jit.blockDim.x
    lane = t % 32
    w = t // 32
    nw = (nt + 31) // 32
    lo = jit.blockIdx.x * chunk
    hi = min(lo + chunk, n)
    r = jit.blockIdx.y
    while r < nrows:
        a = r // nb
        b = r - a * nb
        acc = ACC(0)
        j = lo + t
        while j + 3 * nt < hi:              # four loads in flight
            v0 = ACC(x[a, j, b])
            v1 = ACC(x[a, j + nt, b])
            v2 = ACC(x[a, j + 2 * nt, b])
            v3 = ACC(x[a, j + 3 * nt, b])
            acc += (v0 + v1) + (v2 + v3)
            j += 4 * nt
        while j < hi:
            acc += ACC(x[a, j, b])
            j += nt
        off = 16
        while off > 0:
            acc += jit.shfl_down_sync(FULL, acc, off)
            off //= 2
        if lane == 0:
            wsum[w] = acc
        jit.syncthreads()
        if w == 0:
            acc = wsum[lane] if lane < nw else ACC(0)
            off = 16
            while off > 0:
                acc += jit.shfl_down_sync(FULL, acc, off)
                off //= 2
            if lane == 0:
                part[r, jit.blockIdx.x] = acc
        jit.syncthreads()
        r += jit.gridDim.y


def carries(part):
    """Each row of part (chunk sums) becomes its exclusive prefix sums, in
    place; block y does rows y, y + gridDim.x, ..., in tiles of blockDim."""
    wsum = jit.shared_memory(ACC, 32)
    ns = part.shape[1]
    t = jit.threadIdx.x
    nt = jit.blockDim.x
    lane = t % 32
    w = t // 32
    nw = (nt + 31) // 32
    r = jit.blockIdx.x
    while r < part.shape[0]:
        carry = ACC(0)
        base = 0
        while base < ns:
            j = base + t
            v = part[r, j] if j < ns else ACC(0)
            inc = v
            inc = warp_scan(inc, lane)
            if lane == 31:
                wsum[w] = inc
            jit.syncthreads()
            if w == 0:
                s = wsum[lane] if lane < nw else ACC(0)
                s = warp_scan(s, lane)
                wsum[lane] = s
            jit.syncthreads()
            exc = jit.shfl_up_sync(FULL, inc, 1)
            if lane == 0:
                exc = ACC(0)
            if w > 0:
                exc += wsum[w - 1]
            if j < ns:
                part[r, j] = carry + exc
            carry += wsum[nw - 1]
            jit.syncthreads()
            base += nt
        r += jit.gridDim.x


def finish(x, out, part, chunk):
    """Block (s, y): out[a, j, b] for j in chunk s = part[row, s] + the
    inclusive scan of the chunk, in tiles of 4 * blockDim: each thread adds
    its four neighbouring elements in order, the block scans the threads'
    totals, then each thread writes its four."""
    wsum = jit.shared_memory(ACC, 32)
    n = x.shape[1]
    nb = x.shape[2]
    nrows = x.shape[0] * nb
    t = jit.threadIdx.x
    nt = jit.blockDim.x
    lane = t % 32
    w = t // 32
    nw = (nt + 31) // 32
    lo = jit.blockIdx.x * chunk
    hi = min(lo + chunk, n)
    r = jit.blockIdx.y
    while r < nrows:
        a = r // nb
        b = r - a * nb
        carry = part[r, jit.blockIdx.x]
        base = lo
        while base < hi:
            j = base + 4 * t
            s0 = ACC(x[a, j, b]) if j < hi else ACC(0)
            s1 = s0 + (ACC(x[a, j + 1, b]) if j + 1 < hi else ACC(0))
            s2 = s1 + (ACC(x[a, j + 2, b]) if j + 2 < hi else ACC(0))
            s3 = s2 + (ACC(x[a, j + 3, b]) if j + 3 < hi else ACC(0))
            inc = s3
            inc = warp_scan(inc, lane)
            if lane == 31:
                wsum[w] = inc
            jit.syncthreads()
            if w == 0:
                sw = wsum[lane] if lane < nw else ACC(0)
                sw = warp_scan(sw, lane)
                wsum[lane] = sw
            jit.syncthreads()
            ex = jit.shfl_up_sync(FULL, inc, 1)
            if lane == 0:
                ex = ACC(0)
            if w > 0:
                ex += wsum[w - 1]
            exc = carry + ex
            if j < hi:
                out[a, j, b] = exc + s0
            if j + 1 < hi:
                out[a, j + 1, b] = exc + s1
            if j + 2 < hi:
                out[a, j + 2, b] = exc + s2
            if j + 3 < hi:
                out[a, j + 3, b] = exc + s3
            carry += wsum[nw - 1]
            jit.syncthreads()
            base += 4 * nt
        r += jit.gridDim.y


def specialize(func, **names):
    """A copy of func whose globals bind `names` (ACC), made a raw kernel."""
    g = dict(func.__globals__)
    g.update(names)
    return jit.rawkernel()(types.FunctionType(func.__code__, g, func.__name__))
