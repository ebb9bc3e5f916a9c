"""0-d arrays where Numba reads them as their element (its arraydecl typing):
an integer 0-d array as an index (a[z], also beside other indices), a 0-d
array stored into an element (a[i] = z), and np.<dtype>(z) of a 0-d array of
that dtype.  Arithmetic on a 0-d array stays an error, as in numba.cuda
(tests/test_optional_nogpu.py)."""
import numpy as np

from cujit import cuda

from . import _common
from ._common import poison

_own = np.random.default_rng()


def rand(*args, **kwargs):
    """_common.rand from a stream of this module's own: its draws leave the
    data of the other modules' entries as they were (a float32 reduction of
    npfuncs compares at rtol 1e-12, which some data round past)"""
    saved, _common._rng = _common._rng, _own
    try:
        return _common.rand(*args, **kwargs)
    finally:
        _common._rng = saved

REC = np.dtype([("a", np.int8), ("b", np.float64)])


@cuda.jit
def index_by_0d(r, ary, i):
    """Numba's cache_usecases record_return: r[()] = ary[i], i 0-d (a
    signed value: counted from the end where negative, as Numba does)."""
    r[()] = ary[i]


def _index_by_0d_ref(r, ary, i):
    return {0: np.asarray(ary[i[()]], r.dtype)}


@cuda.jit
def index_2d_by_0d(out, a, row):
    j = cuda.grid(1)
    if j < a.shape[1]:
        out[j] = a[row, j] * 2.0


def _index_2d_by_0d_ref(out, a, row):
    return {0: a[row[()], :] * 2.0}


@cuda.jit
def record_by_0d(r, ary, i):
    r[()] = ary[i]


def _record_by_0d_ref(r, ary, i):
    e = np.empty((), REC)
    e[()] = ary[i[()]]
    return {0: e}


def _record_args():
    ary = np.empty(5, REC)
    ary["a"] = rand(5, np.int8)
    ary["b"] = rand(5, np.float64)
    r = np.empty((), REC)
    r["a"] = -77
    r["b"] = np.nan
    return r, ary, np.array(rand(1, np.int64, 0, 4)[0])


@cuda.jit
def store_and_cast_0d(out, z, k):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i, 0] = z                       # a[i] = z
        out[i, 1] = np.float64(z) * i       # np.float64 of a 0-d float64
        out[i, 2] = np.int64(k) + i         # np.int64 of a 0-d int64


def _store_and_cast_0d_ref(out, z, k):
    r = out.copy()
    idx = np.arange(out.shape[0])
    r[:, 0] = z[()]
    r[:, 1] = z[()] * idx
    r[:, 2] = k[()] + idx
    return {0: r}


N = 32

CASES = [
    (index_by_0d, (poison((), np.float64), rand(8, np.float64), np.array(3)),
     [("ary.data[cj_wrap((int)i.data[0], ary.shape[0])]", True)]),
    (record_by_0d, _record_args()),
    (store_and_cast_0d, (poison((N, 3), np.float64), np.array(1.5), np.array(4))),
]

RUN = [
    (index_by_0d, 1, 1, lambda: (poison((), np.float64), rand(8, np.float64),
                                 np.array(rand(1, np.int64, 0, 7)[0])), _index_by_0d_ref),
    (index_by_0d, 1, 1, lambda: (poison((), np.int32), rand(8, np.int32),
                                 np.array(rand(1, np.int32, 0, 7)[0])), _index_by_0d_ref),
    (index_2d_by_0d, 1, N, lambda: (poison(N, np.float64), rand((4, N), np.float64),
                                    np.array(rand(1, np.uint8, 0, 3)[0])), _index_2d_by_0d_ref),
    (record_by_0d, 1, 1, _record_args, _record_by_0d_ref),
    (store_and_cast_0d, 1, N, lambda: (poison((N, 3), np.float64),
                                       np.array(rand(1, np.float64)[0]),
                                       np.array(rand(1, np.int64)[0])), _store_and_cast_0d_ref),
]
