"""Reduction kernels: sum, prod, min, max, any and all as @reduce combiners
(two-pass, deterministic, any axes), and argmin / argmax as raw kernels over
a 3-d view (A, N, B) of the input whose middle axis is the one reduced.

cujit/_stdlib.py picks the dtypes (NumPy's: sums of small integers in int64,
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
# as identity (cujit/_stdlib.py raises NumPy's error for empty reductions
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


def arg_blocks(x, part, chunk, mx):
    """Block (s, y) finds, for rows y, y + gridDim.y, ..., the extreme of
    elements [s * chunk, (s + 1) * chunk) along N: part[row, s] = its index.
    Threads stride through the chunk; warps combine indices by shuffles and
    re-read the values (any dtype, no typed shared memory)."""
    best = jit.shared_memory(np.int64, 32)
    n = x.shape[1]
    nb = x.shape[2]
    rows = x.shape[0] * nb
    t = jit.threadIdx.x
    nt = jit.blockDim.x
    lane = t % 32
    w = t // 32
    nw = (nt + 31) // 32
    lo = jit.blockIdx.x * chunk
    hi = min(lo + chunk, n)
    r = jit.blockIdx.y
    while r < rows:
        a = r // nb
        b = r - a * nb
        bi = np.int64(-1)
        bv = x[a, lo, b]
        j = lo + t
        while j + 3 * nt < hi:              # four loads in flight, compared in order
            v0 = x[a, j, b]
            v1 = x[a, j + nt, b]
            v2 = x[a, j + 2 * nt, b]
            v3 = x[a, j + 3 * nt, b]
            if better(bv, bi, v0, j, mx):
                bv = v0
                bi = j
            if better(bv, bi, v1, j + nt, mx):
                bv = v1
                bi = j + nt
            if better(bv, bi, v2, j + 2 * nt, mx):
                bv = v2
                bi = j + 2 * nt
            if better(bv, bi, v3, j + 3 * nt, mx):
                bv = v3
                bi = j + 3 * nt
            j += 4 * nt
        while j < hi:
            v = x[a, j, b]
            if better(bv, bi, v, j, mx):
                bv = v
                bi = j
            j += nt
        off = 16
        while off > 0:
            oj = jit.shfl_down_sync(FULL, bi, off)
            ov = x[a, oj if oj >= 0 else lo, b]
            if better(bv, bi, ov, oj, mx):
                bv = ov
                bi = oj
            off //= 2
        if lane == 0:
            best[w] = bi
        jit.syncthreads()
        if w == 0:
            bi = best[lane] if lane < nw else np.int64(-1)
            bv = x[a, bi if bi >= 0 else lo, b]
            off = 16
            while off > 0:
                oj = jit.shfl_down_sync(FULL, bi, off)
                ov = x[a, oj if oj >= 0 else lo, b]
                if better(bv, bi, ov, oj, mx):
                    bv = ov
                    bi = oj
                off //= 2
            if lane == 0:
                part[r, jit.blockIdx.x] = bi
        jit.syncthreads()
        r += jit.gridDim.y


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


def _kernels(better_fn):
    g = dict(globals())
    g["better"] = better_fn
    return tuple(jit.rawkernel()(types.FunctionType(f.__code__, g, f.__name__))
                 for f in (arg_rows, arg_blocks, arg_final))


# (rows, blocks, final) for real and for complex elements
arg_kernels = _kernels(better)
arg_kernels_c = _kernels(better_c)
