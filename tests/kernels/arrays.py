"""Arrays of any dimension and layout: C- and F-ordered, strided views
(x[::2], x.T, negative strides), 0-d arrays (a[()]), 3-, 4- and 5-d arrays,
.shape[k], .size, .ndim, .strides, len(a), indices of every integer dtype,
read-only inputs, and arrays too large for 32-bit indexing."""
import numpy as np

from cujit import jit

from ._common import huge, poison, rand


@jit.rawkernel()
def copy1d(x, out):
    i = jit.grid(1)
    if i < x.size:
        out[i] = x[i]


@jit.rawkernel()
def transpose2d(x, out):
    i, j = jit.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = x[j, i]


def _c(shape, dt=np.float32):
    return rand(shape, dt)


def _f(shape, dt=np.float32):
    return np.asfortranarray(rand(shape, dt))


@jit.rawkernel()
def row_sums3d(x, out):
    i, j = jit.grid(2)
    if i < x.shape[0] and j < x.shape[1]:
        s = 0.0
        for k in range(x.shape[2]):
            s += x[i, j, k]
        out[i, j] = s


@jit.rawkernel()
def pick4d5d(a, b, out):
    i = jit.grid(1)
    if i < out.size:
        out[i] = a[i % 2, i % 3, 1, i % 4] + b[1, i % 2, 0, i % 3, 2]


def _pick_ref(a, b, out):
    i = np.arange(out.size)
    return {2: (a[i % 2, i % 3, 1, i % 4] + b[1, i % 2, 0, i % 3, 2]).astype(out.dtype)}


@jit.rawkernel()
def zero_d(a, out):
    if jit.grid(1) == 0:
        out[()] = a[()] * 2 + a.ndim + out.ndim
        a[()] = -1.0


@jit.rawkernel()
def array_attrs(x, z, out):
    if jit.grid(1) == 0:
        out[0] = x.shape[0]
        out[1] = x.shape[1]
        out[2] = x.size
        out[3] = x.ndim
        out[4] = len(x)
        out[5] = x.strides[0]            # bytes, as in NumPy
        out[6] = x.strides[1]
        out[7] = z.ndim
        out[8] = z.size
        n, m = x.shape                   # .shape is a tuple
        out[9] = n * 100 + m


def _attrs_ref(x, z, out):
    return {2: np.array([x.shape[0], x.shape[1], x.size, 2, len(x), x.strides[0],
                         x.strides[1], 0, 1, x.shape[0] * 100 + x.shape[1]], np.int64)}


@jit.rawkernel()
def gather(x, idx, out):
    i = jit.grid(1)
    if i < idx.size:
        out[i] = x[idx[i]]               # indices of any integer dtype


@jit.rawkernel()
def index_arith(x, out):
    i = jit.grid(1)
    n = x.shape[0]
    if i < n:
        out[i] = x[n - 1 - i] + x[(i + 1) % n] * 2


@jit.rawkernel()
def mixed_layouts(a, b, out):
    i, j = jit.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        out[i, j] = a[i, j] * 10 + b[i, j]


@jit.rawkernel()
def scaled_copy(x, y):
    i = jit.grid(1)
    if i < x.size:
        y[i] = x[i] * 3


def _views():
    base = rand(40, np.float32)
    return [base, base[::2], base[1::3], base[::-1], base[::-2]]


CASES = (
    [(copy1d, (v, poison(v.shape, np.float32))) for v in _views()]
    + [
        (copy1d, (rand(15, np.float32), poison(30, np.float32)[::2])),
        (copy1d, (huge(np.float32), huge(np.float32))),       # 64-bit indexing
        (copy1d, ("(float32[:], float32[:])",)),
        (copy1d, ("void(float64[::1], float64[::1])",)),
        (copy1d, ("(int16[:], f8[:])",)),
        (transpose2d, (_c((6, 5)), poison((5, 6), np.float32))),
        (transpose2d, (_f((6, 5)), poison((5, 6), np.float32))),
        (transpose2d, (_c((5, 6)).T, np.asfortranarray(poison((5, 6), np.float32)))),
        (transpose2d, (_c((12, 10))[::2, ::2], poison((5, 6), np.float32))),
        (transpose2d, ("(float32[:, ::1], float32[::1, :])",)),
        (transpose2d, ("(float64[:, :], float64[:, :])",)),
        (row_sums3d, (rand((4, 5, 6), np.float64), poison((4, 5), np.float64))),
        (row_sums3d, (np.asfortranarray(rand((4, 5, 6), np.float32)), poison((4, 5), np.float32))),
        (row_sums3d, (rand((4, 6, 5), np.float32).transpose(0, 2, 1), poison((4, 5), np.float32))),
        (pick4d5d, (rand((2, 3, 2, 4), np.int32), rand((2, 2, 1, 3, 3), np.int32),
                    poison(24, np.int64))),
        (zero_d, (np.array(2.5), np.array(np.nan))),
        (zero_d, (np.array(7, np.int32), np.array(-77, np.int64))),
        (array_attrs, (rand((5, 7), np.float64), np.array(1.0, np.float32), poison(10, np.int64))),
        (array_attrs, (np.asfortranarray(rand((5, 7), np.int8)), np.array(1, np.int8),
                       poison(10, np.int64))),
        (index_arith, (rand(17, np.float64), poison(17, np.float64))),
        (mixed_layouts, (rand((4, 6), np.int32), _f((4, 6), np.int32), poison((4, 6), np.int64))),
        (scaled_copy, (np.broadcast_to(np.float32(2), (8,)), poison(8, np.float32))),  # read-only
    ]
    + [(gather, (rand(20, np.float32), rand(12, dt, 0, 19), poison(12, np.float32)))
       for dt in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
                  np.uint64)]
)


def _copy_view_args(k):
    return lambda: (_views()[k], poison(_views()[k].shape, np.float32))


RUN = (
    [(copy1d, 1, 64, _copy_view_args(k), lambda x, out: {1: x.copy()}) for k in range(5)]
    + [
        (copy1d, 1, 32, lambda: (rand(15, np.float32), poison(30, np.float32)[::2]),
         lambda x, out: {1: x.copy()}),
        (transpose2d, (2, 2), (4, 4), lambda: (_c((6, 5)), poison((5, 6), np.float32)),
         lambda x, out: {1: x.T.copy()}),
        (transpose2d, (2, 2), (4, 4), lambda: (_f((6, 5)), poison((5, 6), np.float32)),
         lambda x, out: {1: x.T.copy()}),
        (transpose2d, (2, 2), (4, 4),
         lambda: (_c((5, 6)).T, np.asfortranarray(poison((5, 6), np.float32))),
         lambda x, out: {1: x.T.copy()}),
        (transpose2d, (2, 2), (4, 4), lambda: (_c((12, 10))[::2, ::2], poison((5, 6), np.float32)),
         lambda x, out: {1: x.T.copy()}),
        (row_sums3d, 1, (4, 8), lambda: (rand((4, 5, 6), np.float64), poison((4, 5), np.float64)),
         lambda x, out: {1: x.sum(axis=2)}),
        (row_sums3d, 1, (4, 8),
         lambda: (np.asfortranarray(rand((4, 5, 6), np.float32)), poison((4, 5), np.float32)),
         lambda x, out: {1: x.sum(axis=2)}),
        (pick4d5d, 1, 32, lambda: (rand((2, 3, 2, 4), np.int32), rand((2, 2, 1, 3, 3), np.int32),
                                   poison(24, np.int64)), _pick_ref),
        (zero_d, 1, 1, lambda: (np.array(2.5), np.array(np.nan)),
         lambda a, out: {0: np.array(-1.0), 1: np.array(2.5 * 2 + 0 + 0)}),
        (zero_d, 1, 1, lambda: (np.array(7, np.int32), np.array(-77, np.int64)),
         lambda a, out: {0: np.array(-1, np.int32), 1: np.array(14, np.int64)}),
        (array_attrs, 1, 1,
         lambda: (rand((5, 7), np.float64), np.array(1.0, np.float32), poison(10, np.int64)),
         _attrs_ref),
        (index_arith, 1, 32, lambda: (rand(17, np.float64), poison(17, np.float64)),
         lambda x, out: {1: x[::-1] + np.roll(x, -1) * 2}),
        (mixed_layouts, 1, (4, 8),
         lambda: (rand((4, 6), np.int32), _f((4, 6), np.int32), poison((4, 6), np.int64)),
         lambda a, b, out: {2: a.astype(np.int64) * 10 + b}),
        (scaled_copy, 1, 8, lambda: (np.broadcast_to(np.float32(2), (8,)), poison(8, np.float32)),
         lambda x, y: {1: np.full(8, 6, np.float32)}),
    ]
    + [(gather, 1, 32,
        (lambda dt: lambda: (rand(20, np.float32), rand(12, dt, 0, 19), poison(12, np.float32)))(dt),
        lambda x, idx, out: {2: x[idx.astype(np.int64)]})
       for dt in (np.int8, np.uint16, np.int64, np.uint64)]
)
