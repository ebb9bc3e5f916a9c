"""Elementwise rawkernels launched through their coarsened entry (several
elements per thread in aligned packs) give what one element per thread gives."""
import numpy as np
import pytest

import cujit
from cujit import cuda, jit

pytestmark = pytest.mark.gpu
rng = np.random.default_rng()


@jit.rawkernel()
def saxpy(a, x, y, out):
    i = jit.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@jit.rawkernel()
def masked(x, out, n):
    i = jit.grid(1)
    if i < n and x[i] > 0:
        out[i] += x[i] * 2


@jit.rawkernel()
def neighbours(x, out):
    i = jit.grid(1)
    if 0 < i < x.size - 1:
        out[i] = x[i - 1] + x[i + 1] - x[i]


def test_saxpy_sizes_and_views():
    for n in (1, 3, 4, 5, 1000, 4097, 1 << 20):
        x, y = rng.random(n + 3, dtype=np.float32), rng.random(n + 3, dtype=np.float32)
        dx, dy = cujit.to_device(x), cujit.to_device(y)
        out = cujit.to_device(np.full(n + 3, np.nan, np.float32))
        for off in (0, 1):                       # off 1: unaligned views, the plain entry
            o = out[off:off + n]
            saxpy[(n + 255) // 256, 256](np.float32(2.5), dx[off:off + n], dy[off:off + n], o)
            np.testing.assert_allclose(cujit.asnumpy(o), 2.5 * x[off:off + n] + y[off:off + n],
                                       rtol=1e-6)


def test_fewer_threads_than_elements():
    n = 10000
    x = rng.random(n, dtype=np.float32)
    out = cujit.to_device(np.full(n, -1.0, np.float32))
    saxpy[3, 128](np.float32(1), cujit.to_device(x), cujit.to_device(x), out)   # 384 threads
    got = cujit.asnumpy(out)
    np.testing.assert_allclose(got[:384], 2 * x[:384], rtol=1e-6)
    assert (got[384:] == -1).all()


def test_conditional_writes_keep_other_elements():
    n = 5003
    x = rng.standard_normal(n).astype(np.float32)
    o = rng.standard_normal(n).astype(np.float32)
    d = cujit.to_device(o)
    masked[(n + 127) // 128, 128](cujit.to_device(x), d, n - 7)
    ref = o.copy()
    sel = (np.arange(n) < n - 7) & (x > 0)
    ref[sel] += x[sel] * 2
    np.testing.assert_allclose(cujit.asnumpy(d), ref, rtol=1e-6)


def test_neighbour_reads_stay_scalar():
    n = 4099
    x = rng.random(n)
    out = cujit.to_device(np.full(n, np.nan))
    neighbours[(n + 255) // 256, 256](cujit.to_device(x), out)
    got = cujit.asnumpy(out)
    np.testing.assert_allclose(got[1:-1], x[:-2] + x[2:] - x[1:-1], rtol=1e-12)
    assert np.isnan(got[0]) and np.isnan(got[-1])


@jit.rawkernel()
def tuple_stores(a, b, c, d):
    i = jit.grid(1)
    if i < a.size:
        c[i], d[i] = a[i] * 2, b[i] + 1
        c[i] += d[i]


def test_tuple_targets_write_both_arrays():
    """issue 14: c[i], d[i] = ... in the coarsened entry"""
    for n in (5, 4097):
        a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
        c = cujit.to_device(np.full(n, np.nan, np.float32))
        d = cujit.to_device(np.full(n, np.nan, np.float32))
        tuple_stores[(n + 255) // 256, 256](cujit.to_device(a), cujit.to_device(b), c, d)
        np.testing.assert_allclose(cujit.asnumpy(d), b + 1, rtol=1e-6)
        np.testing.assert_allclose(cujit.asnumpy(c), a * 2 + (b + 1), rtol=1e-6)


# ---- the other spellings of the same kernel (issue 13): the index as
# blockIdx.x * blockDim.x + threadIdx.x, the bound as an integer parameter n,
# x.shape[0], len(x), or `if i >= n: return` before the body

@jit.rawkernel()
def bdt_n(a, x, y, out, n):
    i = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x
    if i < n:
        out[i] = a * x[i] + y[i]


@jit.rawkernel()
def tdb_shape(a, x, y, out):
    i = jit.threadIdx.x + jit.blockDim.x * jit.blockIdx.x
    if i < x.shape[0]:
        out[i] = a * x[i] + y[i]


@jit.rawkernel()
def grid_len(a, x, y, out):
    i = jit.grid(1)
    if i < len(x):
        out[i] = a * x[i] + y[i]


@jit.rawkernel()
def exit_n(a, x, y, out, n):
    i = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x
    if i >= n:
        return
    t = a * x[i]
    out[i] = t + y[i]


@cuda.jit
def numba_bdt(a, x, y, out, n):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if i < n:
        out[i] = a * x[i] + y[i]


@cuda.jit
def numba_exit(a, x, y, out, n):
    i = cuda.grid(1)
    if i >= n:
        return
    out[i] = a * x[i] + y[i]


@pytest.mark.parametrize("name", ["bdt_n", "exit_n", "numba_bdt", "numba_exit"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bound_n_smaller_than_arrays(name, dtype):
    """elements at and past n keep their values; sizes not a multiple of the
    pack, threads not a multiple of it either"""
    kernel = {"bdt_n": bdt_n, "exit_n": exit_n, "numba_bdt": numba_bdt,
              "numba_exit": numba_exit}[name]
    for size in (7, 1001, 4099, (1 << 20) + 3):
        for n in (size, size - 1, size - 6, size // 2 + 1):
            a = dtype(rng.standard_normal())
            x = rng.standard_normal(size).astype(dtype)
            y = rng.standard_normal(size).astype(dtype)
            init = rng.standard_normal(size).astype(dtype)
            out = cujit.to_device(init)
            threads = n + 13
            kernel[(threads + 127) // 128, 128](a, cujit.to_device(x), cujit.to_device(y),
                                                 out, n)
            ref = init.copy()
            ref[:n] = a * x[:n] + y[:n]
            np.testing.assert_allclose(cujit.asnumpy(out), ref, rtol=1e-6, atol=1e-5,
                                       err_msg="%s size %d n %d" % (name, size, n))


@pytest.mark.parametrize("kernel", [tdb_shape, grid_len], ids=["shape", "len"])
def test_bound_of_an_array(kernel):
    for size in (1, 5, 4097, 100003):
        a = np.float32(rng.standard_normal())
        x = rng.standard_normal(size).astype(np.float32)
        y = rng.standard_normal(size).astype(np.float32)
        out = cujit.to_device(np.full(size + 8, np.nan, np.float32))
        kernel[(size + 255) // 256, 256](a, cujit.to_device(x), cujit.to_device(y), out[:size])
        got = cujit.asnumpy(out)
        np.testing.assert_allclose(got[:size], a * x + y, rtol=1e-6, atol=1e-5)
        assert np.isnan(got[size:]).all()       # nothing written past the view


def test_unaligned_views_take_the_plain_entry():
    size = 5003
    a = np.float32(rng.standard_normal())
    x = rng.standard_normal(size + 1).astype(np.float32)
    y = rng.standard_normal(size + 1).astype(np.float32)
    init = rng.standard_normal(size + 1).astype(np.float32)
    out = cujit.to_device(init)
    n = size - 2
    bdt_n[(size + 127) // 128, 128](a, cujit.to_device(x)[1:], cujit.to_device(y)[1:],
                                    out[1:], n)
    ref = init.copy()
    ref[1:n + 1] = a * x[1:n + 1] + y[1:n + 1]
    np.testing.assert_allclose(cujit.asnumpy(out), ref, rtol=1e-6, atol=1e-5)
