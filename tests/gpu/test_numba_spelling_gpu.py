"""cujit.cuda's host side and launches on the GPU, as a Numba user writes
them, against NumPy on fresh random data.  (The Numba-spelled kernels of
tests/kernels/numba_spelling.py run through test_kernels_gpu.py.)"""
import numpy as np
import pytest

import cujit
from cujit import cuda, vectorize

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()


@cuda.jit
def axpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@cuda.jit
def reverse_dyn(x, out):
    buf = cuda.shared.array(0, np.float32)
    t = cuda.threadIdx.x
    buf[t] = x[t]
    cuda.syncthreads()
    out[t] = buf[cuda.blockDim.x - 1 - t]


def test_device_arrays_and_copy_to_host():
    x = rng.standard_normal(1000).astype(np.float32)
    y = rng.standard_normal(1000).astype(np.float32)
    dx, dy = cuda.to_device(x), cuda.to_device(y)
    out = cuda.device_array(1000, np.float32)
    like = cuda.device_array_like(dx)
    assert out.shape == (1000,) and out.dtype == np.float32
    assert like.shape == dx.shape and like.dtype == dx.dtype
    assert "data" in out.__cuda_array_interface__
    axpy[(1000 + 127) // 128, 128](np.float32(2), dx, dy, out)
    np.testing.assert_allclose(out.copy_to_host(), 2 * x + y, rtol=1e-6)
    host = np.empty(1000, np.float32)
    out.copy_to_host(host)
    np.testing.assert_allclose(host, 2 * x + y, rtol=1e-6)
    cuda.to_device(y, to=out)
    np.testing.assert_array_equal(out.copy_to_host(), y)


def test_stream_events_dynshared_launch():
    s = cuda.stream()
    start, end = cuda.event(), cuda.event()
    x = rng.standard_normal(64).astype(np.float32)
    dx = cuda.to_device(x, stream=s)
    out = cuda.device_array(64, np.float32, stream=s)
    start.record(s)
    reverse_dyn[1, 64, s, 64 * 4](dx, out)
    end.record(s)
    end.synchronize()
    assert cuda.event_elapsed_time(start, end) >= 0
    np.testing.assert_array_equal(out.copy_to_host(stream=s), x[::-1])
    s.synchronize()
    cuda.synchronize()


def test_forall_and_default_stream():
    n = 3000
    x = rng.standard_normal(n)
    y = rng.standard_normal(n)
    out = np.empty(n)
    axpy.forall(n)(1.5, x, y, out)
    np.testing.assert_allclose(out, 1.5 * x + y)
    axpy[4, 32, 0](0.5, x[:128], y[:128], out[:128])
    np.testing.assert_allclose(out[:128], 0.5 * x[:128] + y[:128])


def test_pinned_and_mapped_arrays_in_kernels():
    p = cuda.pinned_array(256, np.float32)
    p[:] = rng.standard_normal(256)
    m = cuda.mapped_array(256, np.float32)
    axpy[2, 128](np.float32(3), p, p, m)
    cuda.synchronize()
    np.testing.assert_allclose(m, 4 * p, rtol=1e-6)


def test_devices():
    assert cuda.is_available()
    assert cuda.detect()
    d = cuda.get_current_device()
    assert d.id == 0 or d.id >= 0
    assert cuda.select_device(d.id).id == d.id
    assert len(d.compute_capability) == 2


def test_cuda_reduce_matches_numpy():
    @cuda.reduce
    def sum_reduce(a, b):
        return a + b
    a = rng.standard_normal(12345)
    np.testing.assert_allclose(sum_reduce(a), a.sum(), rtol=1e-9)
    np.testing.assert_allclose(sum_reduce(a, size=100), a[:100].sum(), rtol=1e-9)
    np.testing.assert_allclose(sum_reduce(a, init=10), a.sum() + 10, rtol=1e-9)
    max_reduce = cuda.reduce(lambda p, q: max(p, q))
    ints = rng.integers(1, 1000, 5000).astype(np.int64)
    assert max_reduce(cuda.to_device(ints)) == ints.max()
    res = cuda.device_array(1, np.int64)
    assert max_reduce(ints, res=res) is None
    assert res.copy_to_host()[0] == ints.max()


def test_vectorize_target_cuda():
    @vectorize(["float32(float32, float32)", "float64(float64, float64)"], target="cuda")
    def hyp(a, b):
        return (a * a + b * b) ** 0.5
    a = rng.standard_normal(1000).astype(np.float32)
    b = rng.standard_normal(1000).astype(np.float32)
    np.testing.assert_allclose(cujit.asnumpy(hyp(a, b)), np.hypot(a, b), rtol=1e-5)


def test_eager_signature_launch():
    @cuda.jit("void(int32[::1], int32)")
    def fill(x, v):
        i = cuda.grid(1)
        if i < x.size:
            x[i] = v + i
    x = np.zeros(300, np.int32)
    fill[3, 128](x, np.int32(7))
    np.testing.assert_array_equal(x, 7 + np.arange(300, dtype=np.int32))


# ---- constant arrays and Numba's type objects ----

COEFFS = rng.standard_normal((4, 8))
OFFSETS = rng.integers(-50, 50, 8).astype(np.int32)


@cuda.jit
def const_poly(x, out):
    c = cuda.const.array_like(COEFFS)
    i = cuda.grid(1)
    if i < x.size:
        k = i % 8
        acc = 0.0
        for p in range(4):
            acc = acc * x[i] + c[p, k]
        out[i] = acc + cuda.const.array_like(OFFSETS)[k]


def test_const_array_like():
    x = rng.standard_normal(1000)
    out = cuda.device_array(1000, np.float64)
    const_poly[(1000 + 127) // 128, 128](cuda.to_device(x), out)
    k = np.arange(1000) % 8
    want = np.zeros(1000)
    for p in range(4):
        want = want * x + COEFFS[p, k]
    np.testing.assert_allclose(out.copy_to_host(), want + OFFSETS[k], rtol=1e-12, atol=1e-12)


def test_type_objects_signature_and_dtypes():
    from cujit.cuda import float32, int32, types, void

    @cuda.jit(void(float32[::1], float32[::1], int32))
    def window_sum(x, out, w):
        buf = cuda.local.array(4, float32)
        i = cuda.grid(1)
        if i < out.size:
            for k in range(4):
                buf[k] = x[i + k] if k < w else float32(0)
            out[i] = buf[0] + buf[1] + buf[2] + buf[3]

    @cuda.jit(void(types.float64[:, ::1], types.float64[::1]))
    def row_sums(m, out):
        s = cuda.shared.array(64, dtype=types.float64)
        t = cuda.threadIdx.x
        r = cuda.blockIdx.x
        s[t] = m[r, t]
        cuda.syncthreads()
        if t == 0:
            acc = 0.0
            for k in range(m.shape[1]):
                acc += s[k]
            out[r] = acc
    assert window_sum.signatures == ["(float32[::1], float32[::1], int32)"]
    x = rng.standard_normal(200).astype(np.float32)
    out = cuda.device_array(197, np.float32)
    window_sum[2, 128](cuda.to_device(x), out, np.int32(3))
    want = x[:-3] + x[1:-2] + x[2:-1]
    np.testing.assert_allclose(out.copy_to_host(), want, rtol=1e-5, atol=1e-6)
    m = rng.standard_normal((10, 64))
    sums = cuda.device_array(10, np.float64)
    row_sums[10, 64](cuda.to_device(m), sums)
    np.testing.assert_allclose(sums.copy_to_host(), m.sum(1), rtol=1e-12)
