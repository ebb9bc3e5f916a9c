"""Elementwise rawkernels launched through their coarsened entry (several
elements per thread in aligned packs) give what one element per thread gives."""
import numpy as np
import pytest

import cujit
from cujit import jit

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
