"""Numba's consumer rule on the GPU: a cuda.jit kernel, a cuda.vectorize
ufunc and a cuda.guvectorize gufunc given foreign arrays whose
__cuda_array_interface__ names the stream still writing them synchronize
that stream first (Stream.synchronize, counted), and read the finished data;
with CUDA_ARRAY_INTERFACE_SYNC off nothing is synchronized and the launch
stream's wait for the producer still orders the work.  Each result against
NumPy on fresh random data; the consumers run on a stream of their own, so
nothing but those rules orders them after the producers."""
import sys

import numpy as np
import pytest

from cujit import cuda, jit

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()
N = 1 << 16
SPINS = 4000        # keeps the producer's stream busy well past the consumer's launch


class Foreign:
    """Another library's array: only an instance __cuda_array_interface__."""

    def __init__(self, arr):
        self._arr = arr
        self.__cuda_array_interface__ = arr.__cuda_array_interface__


@cuda.jit
def slow_fill(x, v, spins):
    i = cuda.grid(1)
    if i < x.size:
        acc = v[i]
        for _ in range(spins):
            acc = acc * np.float32(0.5) + v[i] * np.float32(0.5)   # stays v[i]
        x[i] = acc


@cuda.jit
def combine(x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i] * 2 + y[i]


@cuda.vectorize(["float32(float32)"])
def triple(v):
    return v * 3


@cuda.guvectorize(["void(float32[:], float32[:])"], "(n)->()")
def row_sum(x, r):
    s = np.float32(0)
    for i in range(x.shape[0]):
        s += x[i]
    r[0] = s


@pytest.fixture
def spy(monkeypatch):
    calls = []
    real = cuda.Stream.synchronize

    def counting(self):
        calls.append(int(self.handle))
        return real(self)
    monkeypatch.setattr(cuda.Stream, "synchronize", counting)
    return calls


def produce(stream):
    """a device array still being written on `stream` when this returns, and
    the values it will hold"""
    h = rng.standard_normal(N).astype(np.float32)
    v = cuda.to_device(h)
    cuda.synchronize()
    x = cuda.device_array(N, np.float32, stream=stream)
    slow_fill[N // 256, 256, stream](x, v, SPINS)
    return x, h


@pytest.mark.parametrize("sync", ["1", "0"])
def test_kernel_reads_foreign_arrays_of_busy_streams(spy, monkeypatch, sync):
    monkeypatch.setenv("NUMBA_CUDA_ARRAY_INTERFACE_SYNC", sync)
    for name in ("numba.cuda.core.config", "numba.core.config"):    # numba's, if loaded
        mod = sys.modules.get(name)
        if mod is not None and hasattr(mod, "CUDA_ARRAY_INTERFACE_SYNC"):
            monkeypatch.setattr(mod, "CUDA_ARRAY_INTERFACE_SYNC", int(sync))
    s1, s2, s3 = cuda.stream(), cuda.stream(), cuda.stream()
    x, hx = produce(s1)
    y, hy = produce(s2)
    out = cuda.device_array(N, np.float32, stream=s3)
    combine[N // 256, 256, s3](Foreign(x), Foreign(y), out)
    synced = list(spy)
    got = out.copy_to_host(stream=s3)
    s3.synchronize()
    np.testing.assert_allclose(got, hx * 2 + hy, rtol=1e-6)
    assert synced == ([s1.handle, s2.handle] if sync == "1" else [])


def test_ufunc_and_gufunc_read_foreign_arrays_of_busy_streams(spy):
    s1, s2 = cuda.stream(), cuda.stream()
    x, hx = produce(s1)
    r = triple(Foreign(x))
    assert spy == [s1.handle]
    np.testing.assert_allclose(r.copy_to_host(), hx * 3, rtol=1e-6)
    del spy[:]
    m, hm = produce(s2)
    rows = row_sum(Foreign(m.reshape(256, N // 256)))
    assert spy == [s2.handle]
    np.testing.assert_allclose(rows.copy_to_host(), hm.reshape(256, -1).sum(axis=1),
                               rtol=1e-4, atol=1e-3)


@jit.rawkernel()
def double(a, o):
    i = jit.grid(1)
    if i < o.size:
        o[i] = a[i] * 2


def test_own_kernels_wait_without_synchronizing(spy):
    s1, s3 = cuda.stream(), cuda.stream()
    x, hx = produce(s1)
    out = cuda.device_array(N, np.float32, stream=s3)
    double[N // 256, 256, s3](Foreign(x), out)
    assert spy == []
    got = out.copy_to_host(stream=s3)
    s3.synchronize()
    np.testing.assert_allclose(got, hx * 2, rtol=1e-6)
