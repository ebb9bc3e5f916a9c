"""Comparisons (chained ones too), and / or / not with short-circuit, the
ternary, truthiness of numbers, NaN, mixed signed / unsigned comparisons and
signed thread indices."""
import numpy as np

from cujit import jit

from ._common import poison, rand


@jit.rawkernel()
def compare_ops(a, b, out):
    i = jit.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[i, 0] = x < y
        out[i, 1] = x <= y
        out[i, 2] = x > y
        out[i, 3] = x >= y
        out[i, 4] = x == y
        out[i, 5] = x != y
        out[i, 6] = 0 < x < y                 # chained
        out[i, 7] = -3 <= x <= y <= 3
        out[i, 8] = x < y and y > 0
        out[i, 9] = x < 0 or y < 0
        out[i, 10] = not x < y
        out[i, 11] = not (x == 0 or y == 0) and x != y


def _compare_ref(a, b, out):
    cols = [a < b, a <= b, a > b, a >= b, a == b, a != b, (0 < a) & (a < b),
            (-3 <= a) & (a <= b) & (b <= 3), (a < b) & (b > 0), (a < 0) | (b < 0), ~(a < b),
            ~((a == 0) | (b == 0)) & (a != b)]
    return {2: np.stack(cols, axis=1)}


def _cmp_args(dt, lo=-6, hi=6):
    return lambda: (rand(100, dt, lo, hi), rand(100, dt, lo, hi), poison((100, 12), np.bool_))


def _nan_args():
    a = rand(64, np.float32, -2, 2)
    b = rand(64, np.float32, -2, 2)
    a[::5] = np.nan
    b[::7] = np.nan
    b[1::9] = a[1::9]
    return a, b, poison((64, 12), np.bool_)


@jit.rawkernel()
def ternary_and_truth(x, k, out):
    i = jit.grid(1)
    if i < x.size:
        out[i, 0] = x[i] if x[i] > 0 else -x[i]
        out[i, 1] = 1 if k[i] else 2          # truthiness of an int
        out[i, 2] = 3.5 if x[i] else 4.5      # truthiness of a float
        v = -1.0
        if k[i] and x[i]:
            v = 1.0
        elif not k[i]:
            v = 0.0
        out[i, 3] = v
        out[i, 4] = k[i] if k[i] > 1 else x[i]   # branches of two types meet


def _ternary_ref(x, k, out):
    c3 = np.where((k != 0) & (x != 0), 1.0, np.where(k == 0, 0.0, -1.0))
    cols = [np.abs(x), np.where(k != 0, 1, 2), np.where(x != 0, 3.5, 4.5), c3,
            np.where(k > 1, k, x)]
    return {2: np.stack([c.astype(np.float64) for c in cols], axis=1)}


def _ternary_args():
    x = rand(64, np.float32, -3, 3)
    x[::4] = 0
    k = rand(64, np.int32, 0, 3)
    return x, k, poison((64, 5), np.float64)


@jit.rawkernel(boundscheck=True)
def short_circuit(x, out):
    i = jit.grid(1)
    # with boundscheck on, evaluating x[i] for i >= x.size would fail the launch
    if i < x.size and x[i] > 0:
        out[i] = 1
    elif i >= out.size or x[i] <= 0:
        if i < out.size:
            out[i] = 0


@jit.rawkernel(boundscheck=True)
def out_of_range_read(x, out):
    i = jit.grid(1)
    if i < out.size:
        out[i] = x[i] > 0        # x is shorter than out: checked, never read past its end


@jit.rawkernel()
def signed_unsigned_compare(a, u, b, w, out):
    i = jit.grid(1)
    if i < a.size:
        out[i, 0] = a[i] < u[i]        # int64 vs uint64: exact in NumPy 2
        out[i, 1] = a[i] == u[i]
        out[i, 2] = b[i] < w[i]        # int32 vs uint32: compared as int64
        out[i, 3] = w[i] > b[i]


def _su_args():
    a = rand(64, np.int64, -5, 5)
    u = rand(64, np.uint64, 0, 5)
    b = rand(64, np.int32, -5, 5)
    w = rand(64, np.uint32, 0, 5)
    # beyond 2**53, where a comparison through double would round
    a[:4] = [2 ** 60 + 1, 2 ** 62, -1, 2 ** 53 + 1]
    u[:4] = [2 ** 60, 2 ** 62 + 1, 2 ** 64 - 1, 2 ** 53 + 1]
    return a, u, b, w, poison((64, 4), np.bool_)


def _su_ref(a, u, b, w, out):
    ai, ui = a.astype(object), u.astype(object)
    return {4: np.stack([ai < ui, ai == ui, b.astype(np.int64) < w.astype(np.int64),
                         w.astype(np.int64) > b.astype(np.int64)], axis=1).astype(bool)}


@jit.rawkernel()
def thread_index_signed(flags, vals):
    i = jit.threadIdx.x
    flags[i, 0] = i - 1 < 0                 # true for thread 0: no unsigned wrap-around
    flags[i, 1] = jit.blockIdx.x - 1 < 0
    flags[i, 2] = i - jit.blockDim.x < 0
    vals[i, 0] = i - 4
    vals[i, 1] = jit.blockIdx.x - 1
    vals[i, 2] = jit.threadIdx.x - jit.blockDim.x


def _thread_signed_ref(flags, vals):
    i = np.arange(8)
    f = np.stack([i - 1 < 0, np.ones(8, bool), np.ones(8, bool)], axis=1)
    v = np.stack([i - 4, np.full(8, -1), i - 8], axis=1)
    return {0: f, 1: v.astype(vals.dtype)}


@jit.rawkernel()
def bool_arrays(p, q, out):
    i = jit.grid(1)
    if i < p.size:
        out[i, 0] = p[i] & q[i]
        out[i, 1] = p[i] | q[i]
        out[i, 2] = p[i] ^ q[i]
        out[i, 3] = not p[i]
        out[i, 4] = p[i] and not q[i]
        out[i, 5] = p[i] == q[i]


def _bool_ref(p, q, out):
    return {2: np.stack([p & q, p | q, p ^ q, ~p, p & ~q, p == q], axis=1)}


WRAP = True     # a module flag, read as a constant: `is` of it folds


@jit.rawkernel()
def is_of_booleans(flags, x, out):
    """x is True / is not False of booleans (Numba's test_ssa spells them):
    the values' equality; of a constant flag, folded so the other branch is
    never compiled (x[i][0] would not type)"""
    i = jit.grid(1)
    if i < x.size:
        f = flags[i]
        out[i, 0] = f is True
        out[i, 1] = f is not False
        out[i, 2] = (f is False) == (not f)
        if WRAP is True:
            out[i, 3] = x[i] > 0
        if WRAP is not True:
            out[i, 3] = x[i][0]


def _is_ref(flags, x, out):
    want = np.stack([flags, flags, np.ones_like(flags), x > 0], axis=1)
    return {2: want}


CASES = [
    (compare_ops, _cmp_args(np.int32)()),
    (compare_ops, _cmp_args(np.uint8, 0, 6)()),
    (compare_ops, _cmp_args(np.float32)()),
    (compare_ops, _cmp_args(np.float64)()),
    (compare_ops, _cmp_args(np.float16)()),
    (compare_ops, _nan_args()),
    (ternary_and_truth, _ternary_args()),
    (short_circuit, (rand(20, np.float32), poison(20, np.int32))),
    (out_of_range_read, (rand(8, np.float32), poison(32, np.int32))),
    (signed_unsigned_compare, _su_args()),
    (thread_index_signed, (poison((8, 3), np.bool_), poison((8, 3), np.int64))),
    (bool_arrays, (rand(32, np.bool_), rand(32, np.bool_), poison((32, 6), np.bool_))),
]

RUN = [
    (compare_ops, 1, 128, _cmp_args(np.int32), _compare_ref),
    (compare_ops, 1, 128, _cmp_args(np.int64), _compare_ref),
    (compare_ops, 1, 128, _cmp_args(np.uint8, 0, 6), _compare_ref),
    (compare_ops, 1, 128, _cmp_args(np.float32), _compare_ref),
    (compare_ops, 1, 128, _cmp_args(np.float64), _compare_ref),
    (compare_ops, 1, 128, _nan_args, _compare_ref),
    (ternary_and_truth, 1, 64, _ternary_args, _ternary_ref),
    (short_circuit, 2, 32, lambda: (rand(20, np.float32), poison(20, np.int32)),
     lambda x, out: {1: (x > 0).astype(np.int32)}),
    (signed_unsigned_compare, 1, 64, _su_args, _su_ref),
    (thread_index_signed, 1, 8, lambda: (poison((8, 3), np.bool_), poison((8, 3), np.int64)),
     _thread_signed_ref),
    (bool_arrays, 1, 32, lambda: (rand(32, np.bool_), rand(32, np.bool_),
                                  poison((32, 6), np.bool_)), _bool_ref),
    (is_of_booleans, 1, 64, lambda: (rand(40, np.bool_), rand(40, np.float32),
                                     poison((40, 4), np.bool_)), _is_ref),
]
