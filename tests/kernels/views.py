"""Views inside kernels: a[i] of an N-d array is an (N-1)-d array, basic
slices (a[lo:hi], a[::2], a[:, j], a[i, 1:], negative steps, omitted and
out-of-range bounds clamped as Python does) give views of any array (an
argument, a view, local memory); views have .shape, .size, .strides and
len(), are indexed, written, passed to device functions and given to atomics,
in cujit's dialect and through cujit.cuda."""
import numpy as np

from cujit import cuda, jit

from ._common import poison, rand


@jit.rawkernel()
def row_sums(x, out):
    i = jit.grid(1)
    if i < x.shape[0]:
        row = x[i]
        s = 0.0
        for j in range(row.shape[0]):
            s += row[j]
        out[i] = s


@jit.rawkernel()
def col_copy(x, out):
    j = jit.grid(1)
    if j < x.shape[1]:
        col = x[:, j]
        dst = out[j]
        for i in range(col.size):
            dst[i] = col[i]


@jit.rawkernel()
def slice_any(x, lo, hi, st, out, n):
    """x[lo:hi:st] with bounds given at run time; out gets its elements
    and n its length"""
    if jit.grid(1) == 0:
        v = x[lo:hi:st]
        n[0] = len(v)
        for k in range(v.shape[0]):
            out[k] = v[k]


def _slice_ref(x, lo, hi, st, out, n):
    v = x[lo:hi:st]
    o = out.copy()
    o[:len(v)] = v
    return {4: o, 5: np.array([len(v)], n.dtype)}


def _slice_args(lo, hi, st):
    return lambda: (rand(13, np.float64), np.int64(lo), np.int64(hi), np.int64(st),
                    poison(13, np.float64), poison(1, np.int64))


@jit.rawkernel()
def slice_forms(x, out):
    """constant and omitted bounds, negative steps, a single index and a
    slice together, a view of a view, .strides of a view"""
    if jit.grid(1) == 0:
        a = x[1, 2:]
        b = x[::-1, 1]
        c = x[-1, ::-2]
        d = x[1:3][1]
        e = x[:, 1:4][::2, ::-1]
        out[0] = a[0] + a.size * 100
        out[1] = b[0] + b.shape[0] * 100
        out[2] = c[1] + len(c) * 100
        out[3] = d[3]
        out[4] = e[1, 0] + e.shape[0] * 100 + e.shape[1] * 1000
        out[5] = x[2:][0, 1]
        out[6] = c.strides[0] // x.strides[1]
        out[7] = x[100:].size + x[:, 7:2].size + x[-100:1].shape[0]


def _forms_ref(x, out):
    a, b, c, d = x[1, 2:], x[::-1, 1], x[-1, ::-2], x[1:3][1]
    e = x[:, 1:4][::2, ::-1]
    r = [a[0] + a.size * 100, b[0] + b.shape[0] * 100, c[1] + len(c) * 100, d[3],
         e[1, 0] + e.shape[0] * 100 + e.shape[1] * 1000, x[2:][0, 1], c.strides[0] // x.strides[1],
         x[100:].size + x[:, 7:2].size + x[-100:1].shape[0]]
    return {1: np.array(r, out.dtype)}


@jit.rawkernel(device=True)
def dev_sum(v):
    s = 0
    for k in range(v.shape[0]):
        s += v[k]
    return s


@jit.rawkernel(device=True)
def dev_fill(v, val):
    for k in range(v.size):
        v[k] = val + k


@jit.rawkernel()
def views_to_devfuncs(x, out):
    """a row and a column passed to device functions, which read and write
    them; an atomic on a view"""
    i = jit.grid(1)
    if i < x.shape[0]:
        dev_fill(out[i, 1:], dev_sum(x[i]))
        jit.atomic_add(out[:, 0], i, x[i, 0])


def _devfuncs_ref(x, out):
    o = out.copy()
    s = x.sum(axis=1)
    o[:, 1:] = s[:, None] + np.arange(o.shape[1] - 1)
    o[:, 0] = out[:, 0] + x[:, 0]
    return {1: o}


@jit.rawkernel()
def local_views(x, out):
    i = jit.grid(1)
    if i < x.shape[0]:
        m = jit.local_memory(np.float32, (3, 4))
        for r in range(3):
            for c in range(4):
                m[r, c] = x[i] * (r * 4 + c)
        row = m[2]
        col = m[:, 3]
        out[i] = row[1] + col[0] + m[1, ::-1][0] + m[::2, 1:][1, 2]


def _local_ref(x, out):
    m = x[:, None, None] * np.arange(12, dtype=np.float32).reshape(3, 4)
    return {1: (m[:, 2, 1] + m[:, 0, 3] + m[:, 1, 3] + m[:, 2, 3]).astype(out.dtype)}


@cuda.jit
def numba_rows(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        src = x[i, :]
        dst = out[i]
        for j in range(src.shape[0]):
            dst[j] = src[src.shape[0] - 1 - j] * 2
        cuda.atomic.add(out[i, 1:], 0, 1)


def _numba_rows_ref(x, out):
    o = x[:, ::-1] * 2
    o[:, 1] += 1
    return {1: o.astype(out.dtype)}


@jit.rawkernel()
def shared_views(x, out):
    """views of static and dynamic shared memory (one block of 32)"""
    s = jit.shared_memory(np.float32, (4, 8))
    d = jit.shared_memory(np.float32, None)
    t = jit.threadIdx.x
    s[t // 8, t % 8] = x[t]
    d[t] = x[t] * 2
    jit.syncthreads()
    row = s[t // 8]
    tail = d[1:]
    out[t] = row[::-1][t % 8] + tail[t % 31] + len(tail)


def _shared_ref(x, out):
    t = np.arange(32)
    s = x.reshape(4, 8)
    return {1: (s[t // 8, 7 - t % 8] + 2 * x[1 + t % 31] + 31).astype(out.dtype)}


@cuda.jit
def fills(x, y):
    """a number assigned to a slice or a partial index fills the view (Numba's
    a[:] = 0), also in a chained assignment; local memory too"""
    if cuda.grid(1) == 0:
        loc = cuda.local.array((2, 3), np.float64)
        loc[:] = 0
        loc[1, ::2] = 4
        x[1:3] = 7
        x[0, ::-2] = y[0] = 1.5
        x[-1] = loc[1, 0] + loc[1, 1] + loc[0, 2]


def _fills_ref(x, y):
    x2, y2 = x.copy(), y.copy()
    x2[1:3] = 7
    x2[0, ::-2] = y2[0] = 1.5
    x2[-1] = 4
    return {0: x2, 1: y2}


@jit.rawkernel()
def row_or_col(x, out, cols):
    """one variable holding a row (contiguous) or a column (strided): its
    type is the strided view both meet as"""
    i = jit.grid(1)
    if i < x.shape[0]:
        v = x[i]
        if cols:
            v = x[:, i]
        out[i] = v[0] * 10 + v[v.shape[0] - 1]


def _row_or_col_ref(x, out, cols):
    v = x.T if cols else x
    return {1: (v[:, 0] * 10 + v[:, -1]).astype(out.dtype)}


def _c(shape, dt=np.float32):
    return rand(shape, dt)


def _f(shape, dt=np.float32):
    return np.asfortranarray(rand(shape, dt))


SLICES = [(2, 9, 1), (2, 9, 3), (-3, 100, 1), (-100, 5, 2), (9, 2, -1), (100, -100, -3),
          (-1, -14, -1), (5, 5, 1), (7, 2, 1), (0, 13, -1), (12, 0, -4), (-2, -1, 1),
          (-2**40, 2**40, 2), (2**40, -2**40, -1)]

RUN = (
    [(row_sums, 1, 32, (lambda mk: lambda: (mk((9, 7)), poison(9, np.float32)))(mk),
      lambda x, out: {1: x.sum(axis=1)}) for mk in (_c, _f)]
    + [(row_sums, 1, 32, lambda: (_c((12, 14))[::2, 1::3], poison(6, np.float32)),
        lambda x, out: {1: x.sum(axis=1)})]
    + [(col_copy, 1, 32, (lambda mk: lambda: (mk((5, 8), np.int32), poison((8, 5), np.int32)))(mk),
        lambda x, out: {1: x.T.copy()}) for mk in (_c, _f)]
    + [(slice_any, 1, 1, _slice_args(*s), _slice_ref) for s in SLICES]
    + [(slice_forms, 1, 1, lambda: (_c((4, 6), np.float64), poison(8, np.float64)), _forms_ref),
       (slice_forms, 1, 1, lambda: (_f((4, 6), np.float64), poison(8, np.float64)), _forms_ref),
       (views_to_devfuncs, 1, 32, lambda: (rand((7, 5), np.int64), rand((7, 4), np.int64)),
        _devfuncs_ref),
       (local_views, 1, 32, lambda: (rand(10, np.float32), poison(10, np.float32)), _local_ref),
       (numba_rows, 1, 32, lambda: (rand((6, 5), np.float32), poison((6, 5), np.float32)),
        _numba_rows_ref),
       (row_or_col, 1, 8, lambda: (rand((6, 6), np.float32), poison(6, np.float32), np.int32(0)),
        _row_or_col_ref),
       (row_or_col, 1, 8, lambda: (rand((6, 6), np.float32), poison(6, np.float32), np.int32(1)),
        _row_or_col_ref),
       (fills, 1, 1, lambda: (rand((5, 5), np.float64), rand(3, np.float64)), _fills_ref),
       (fills, 1, 1, lambda: (np.asfortranarray(rand((5, 5), np.float64)), rand(3, np.float64)),
        _fills_ref),
       (shared_views, 1, 32, lambda: (rand(32, np.float32), poison(32, np.float32)),
        _shared_ref, {"shared_mem": 128})]
)

CASES = [
    (row_sums, (_c((9, 7)), poison(9, np.float32)), [("cj_vi<0>(x, i)", True)]),
    (row_sums, (_f((9, 7)), poison(9, np.float32)), [("cj_vi<0>(x, i)", True)]),
    (col_copy, (_c((5, 8), np.int32), poison((8, 5), np.int32)), [("cj_vi<1>(x, j)", True)]),
    (slice_any, _slice_args(2, 9, 3)(), [("cj_vs<0>(x, lo, hi, st, 3)", True)]),
    (slice_forms, (_c((4, 6), np.float64), poison(8, np.float64)), [("cj_vs<1>", True)]),
    (views_to_devfuncs, (rand((7, 5), np.int64), rand((7, 4), np.int64)), [("dev_fill", True)]),
    (local_views, (rand(10, np.float32), poison(10, np.float32)), [("cj_array<float, 2,", True)]),
    (numba_rows, (rand((6, 5), np.float32), poison((6, 5), np.float32)), [("cj_vi<0>", True)]),
    (shared_views, (rand(32, np.float32), poison(32, np.float32)), [("cj_dyn_smem_size()", True)]),
    (fills, (rand((5, 5), np.float64), rand(3, np.float64)), [("cj_fill(", True)]),
]
