"""Reduction kernels: sum, prod, min, max, any and all as @reduce combiners
(two-pass, deterministic, any axes), and argmin / argmax as raw kernels over
a 3-d view (A, N, B) of the input whose middle axis is the one reduced.

cujit/_stdlib/reductions.py picks the dtypes (NumPy's: sums of small integers in int64,
float16 accumulated in float32, ...) and the kernel shapes.  Loaded by path,
not as a package."""
import math
import types

import numpy as np

from cujit import jit, reduce

FULL = 0xffffffff


@reduce(identity=0)
def add(a, b):
    return a + b


@reduce(identity=1)
def multiply(a, b):
    return a * b


# min / max: a NaN wins.  One @reduce per dtype, with the dtype's extreme
# as identity (cujit/_stdlib/reductions.py raises NumPy's error for empty reductions
# itself: the identity-less form does not compile for every dtype yet).
def minimum(a, b):
    return a if (a <= b or a != a) else b


def maximum(a, b):
    return a if (a >= b or a != a) else b


# complex numbers in NumPy's lexicographic order (a NaN in either part wins)
def minimum_c(a, b):
    if a.real != a.real or a.imag != a.imag:
        return a
    if (a.real < b.real and a.imag == a.imag and b.imag == b.imag) or \
            (a.real == b.real and a.imag <= b.imag):
        return a
    return b


def maximum_c(a, b):
    if a.real != a.real or a.imag != a.imag:
        return a
    if (a.real > b.real and a.imag == a.imag and b.imag == b.imag) or \
            (a.real == b.real and a.imag >= b.imag):
        return a
    return b


def extreme(func, dtype):
    """A @reduce of func (minimum or maximum) for dtype: its identity is the
    dtype's largest (minimum) or smallest (maximum) value."""
    dt = np.dtype(dtype)
    low = func is maximum
    if dt.kind == "c":
        func = maximum_c if low else minimum_c
        ident = complex(-math.inf, -math.inf) if low else complex(math.inf, math.inf)
    elif dt.kind == "b":
        ident = not low
    elif dt.kind == "f":
        ident = -math.inf if low else math.inf
    elif dt == np.uint64 and not low:
        ident = -1                              # all ones
    else:
        info = np.iinfo(dt)
        ident = int(info.min if low else info.max)
    copy = types.FunctionType(func.__code__, func.__globals__, func.__name__)
    return reduce(identity=ident)(copy)


# float16 elements read as a wider accumulator (the map= form: dtype= does
# not declare float16 in the kernel yet)
def to_float32(x):
    return np.float32(x)


def to_float64(x):
    return np.float64(x)


def to_int64(x):
    return np.int64(x)


def to_uint64(x):
    return np.uint64(x)


def to_complex64(x):
    return np.complex64(x)


def to_complex128(x):
    return np.complex128(x)


def truth(x):
    return x != 0               # the map of any / all (NaN is true)


@reduce(identity=False)
def logical_or(a, b):
    return a | b


@reduce(identity=True)
def logical_and(a, b):
    return a & b


# ---- argmin / argmax ----


@jit.rawkernel(device=True)
def better(v, i, w, j, mx):
    """Whether candidate (w, j) beats the best so far (v, i): j < 0 is no
    candidate, i < 0 no best yet.  NumPy's order: the first NaN wins, then
    the first minimum (mx == 0) or maximum."""
    if j < 0:
        return False
    if i < 0:
        return True
    if v != v:
        return w != w and j < i
    if w != w:
        return True
    if w == v:
        return j < i
    if mx != 0:
        return w > v
    return w < v


@jit.rawkernel(device=True)
def later_better(v, w, mx):
    """better() for a candidate w met after the best so far v (a larger
    index, v valid): a NaN best stays, a NaN candidate wins, else only a
    strictly better value."""
    if v != v:
        return False
    if w != w:
        return True
    if mx != 0:
        return w > v
    return w < v


@jit.rawkernel(device=True)
def later_better_c(v, w, mx):
    """later_better() for complex numbers (NumPy's lexicographic order)."""
    if v.real != v.real or v.imag != v.imag:
        return False
    if w.real != w.real or w.imag != w.imag:
        return True
    if mx != 0:
        return w.real > v.real or (w.real == v.real and w.imag > v.imag)
    return w.real < v.real or (w.real == v.real and w.imag < v.imag)


@jit.rawkernel(device=True)
def better_c(v, i, w, j, mx):
    """better() for complex numbers: NumPy's lexicographic order, a NaN in
    either part winning first."""
    if j < 0:
        return False
    if i < 0:
        return True
    if v.real != v.real or v.imag != v.imag:
        return (w.real != w.real or w.imag != w.imag) and j < i
    if w.real != w.real or w.imag != w.imag:
        return True
    if w == v:
        return j < i
    if mx != 0:
        return w.real > v.real or (w.real == v.real and w.imag > v.imag)
    return w.real < v.real or (w.real == v.real and w.imag < v.imag)


def arg_rows(x, out, mx):
    """One thread per row (a, b) of x (A, N, B): out[a * B + b] = the index
    along N of the row's extreme."""
    nb = x.shape[2]
    rows = x.shape[0] * nb
    r = jit.grid(1)
    while r < rows:
        a = r // nb
        b = r - a * nb
        bi = np.int64(-1)
        bv = x[a, 0, b]
        for j in range(x.shape[1]):
            v = x[a, j, b]
            if better(bv, bi, v, j, mx):
                bv = v
                bi = j
        out[r] = bi
        r += jit.gridsize(1)


def arg_blocks(x, part, mx):
    """Block (s, y) finds, for rows y, y + gridDim.y, ..., the extreme of the
    elements j = s * blockDim + t + k * gridDim.x * blockDim along N (the
    blocks of a row interleave, so together they read neighbouring memory):
    part[row, s] = its index.  Warps combine indices by shuffles and re-read
    the values (any dtype, no typed shared memory)."""
    best = jit.shared_memory(np.int64, 32)
    n = x.shape[1]
    nb = x.shape[2]
    rows = x.shape[0] * nb
    t = jit.threadIdx.x
    nt = jit.blockDim.x
    step = jit.gridDim.x * nt
    r = jit.blockIdx.y
    while r < rows:
        a = r // nb
        b = r - a * nb
        j = jit.blockIdx.x * nt + t
        bi = np.int64(-1)
        bv = x[a, 0, b]
        if j < n:
            bv = x[a, j, b]
            bi = j
            j += step
        # a thread meets its candidates in increasing index order: a later
        # one wins only when strictly better (or the first NaN)
        while j + 7 * step < n:             # eight loads in flight, compared in order
            v0 = x[a, j, b]
            v1 = x[a, j + step, b]
            v2 = x[a, j + 2 * step, b]
            v3 = x[a, j + 3 * step, b]
            v4 = x[a, j + 4 * step, b]
            v5 = x[a, j + 5 * step, b]
            v6 = x[a, j + 6 * step, b]
            v7 = x[a, j + 7 * step, b]
            if later_better(bv, v0, mx):
                bv = v0
                bi = j
            if later_better(bv, v1, mx):
                bv = v1
                bi = j + step
            if later_better(bv, v2, mx):
                bv = v2
                bi = j + 2 * step
            if later_better(bv, v3, mx):
                bv = v3
                bi = j + 3 * step
            if later_better(bv, v4, mx):
                bv = v4
                bi = j + 4 * step
            if later_better(bv, v5, mx):
                bv = v5
                bi = j + 5 * step
            if later_better(bv, v6, mx):
                bv = v6
                bi = j + 6 * step
            if later_better(bv, v7, mx):
                bv = v7
                bi = j + 7 * step
            j += 8 * step
        while j < n:
            v = x[a, j, b]
            if later_better(bv, v, mx):
                bv = v
                bi = j
            j += step
        bi = block_best(x, a, b, bv, bi, mx, best)
        if t == 0:
            part[r, jit.blockIdx.x] = bi
        r += jit.gridDim.y


def warp_best(x, a, b, bv, bi, mx):
    """The index of the warp's best candidate (value bv at index bi in each
    lane; bi < 0: none), in lane 0: indices travel by shuffles, values are
    read again from x."""
    off = 16
    while off > 0:
        oj = jit.shfl_down_sync(FULL, bi, off)
        ov = x[a, oj if oj >= 0 else 0, b]
        if better(bv, bi, ov, oj, mx):
            bv = ov
            bi = oj
        off //= 2
    return bi


def block_best(x, a, b, bv, bi, mx, best):
    """The index of the block's best candidate (value bv at index bi in each
    thread; bi < 0: none), in thread 0: warp_best within each warp, then
    over the warps' winners, passed through `best` (32 int64 of shared
    memory, free again on return)."""
    lane = jit.threadIdx.x % 32
    w = jit.threadIdx.x // 32
    bi = warp_best(x, a, b, bv, bi, mx)
    if lane == 0:
        best[w] = bi
    jit.syncthreads()
    if w == 0:
        bi = best[lane] if lane < (jit.blockDim.x + 31) // 32 else np.int64(-1)
        bi = warp_best(x, a, b, x[a, bi if bi >= 0 else 0, b], bi, mx)
    jit.syncthreads()
    return bi


def arg_final_blocks(x, part, out, mx):
    """Block y, for rows y, y + gridDim.x, ...: the extreme among the row's
    block winners, the threads sharing them out (few rows with many
    winners: one thread would wait on each winner's loads in turn)."""
    best = jit.shared_memory(np.int64, 32)
    nb = x.shape[2]
    rows = x.shape[0] * nb
    ns = part.shape[1]
    t = jit.threadIdx.x
    nt = jit.blockDim.x
    r = jit.blockIdx.x
    while r < rows:
        a = r // nb
        b = r - a * nb
        bi = np.int64(-1)
        bv = x[a, 0, b]
        s = t
        while s < ns:
            j = part[r, s]
            v = x[a, j, b]
            if better(bv, bi, v, j, mx):
                bv = v
                bi = j
            s += nt
        bi = block_best(x, a, b, bv, bi, mx, best)
        if t == 0:
            out[r] = bi
        r += jit.gridDim.x


def arg_final(x, part, out, mx):
    """One thread per row: the extreme among the row's chunk winners."""
    nb = x.shape[2]
    rows = x.shape[0] * nb
    r = jit.grid(1)
    while r < rows:
        a = r // nb
        b = r - a * nb
        bi = np.int64(-1)
        bv = x[a, 0, b]
        for s in range(part.shape[1]):
            j = part[r, s]
            v = x[a, j, b]
            if better(bv, bi, v, j, mx):
                bv = v
                bi = j
        out[r] = bi
        r += jit.gridsize(1)


def _kernels(better_fn, later_fn):
    """(rows, blocks, final, final_blocks) over better_fn / later_fn"""
    g = dict(globals())
    g["better"] = better_fn
    g["later_better"] = later_fn
    for f in (warp_best, block_best):
        g[f.__name__] = jit.rawkernel(device=True)(types.FunctionType(f.__code__, g, f.__name__))
    # the last passes read a few block winners per row: their run time is
    # microseconds, their full optimisation 60-70 ms of NVRTC (bench/NOTES.md)
    return tuple(jit.rawkernel(fast_compile=f in (arg_final, arg_final_blocks))(
        types.FunctionType(f.__code__, g, f.__name__))
        for f in (arg_rows, arg_blocks, arg_final, arg_final_blocks))


# (rows, blocks, final, final_blocks) for real and for complex elements
arg_kernels = _kernels(better, later_better)
arg_kernels_c = _kernels(better_c, later_better_c)
