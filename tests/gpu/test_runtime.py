"""The runtime on a real GPU: DeviceArray round trips and views, creation,
exports to and imports from CuPy, PyTorch and Numba (CUDA Array Interface,
DLPack, the fast attribute paths), streams and events, kernel loading and
the disk cache across processes, error records, sticky errors, memory.
tests/conftest.py skips this module, with the reason, without a GPU."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import cujit
from cujit import _cujit as C
from cujit import jit

pytestmark = pytest.mark.gpu

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RNG = np.random.default_rng()

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]

SCALE2 = r'''
extern "C" __global__ void scale2(float *x, long long n)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] *= 2.0f;
    }
}
'''

SPIN = r'''
extern "C" __global__ void spin(long long cycles)
{
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}
'''

# the layout of CjErrorRecord in rt.h
CHECK = r'''
struct CjErrorRecord {
    int flag, kind, line, msg_id;
    unsigned block[3], thread[3];
    long long index, extent;
    int dim, pad;
};
__device__ CjErrorRecord cj_error;

extern "C" __global__ void check(const int *x, long long n)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n && x[i] < 0 && atomicCAS(&cj_error.flag, 0, 1) == 0) {
        cj_error.kind = 2;
        cj_error.line = 77;
        cj_error.msg_id = -1;
        cj_error.block[0] = blockIdx.x;
        cj_error.thread[0] = threadIdx.x;
        cj_error.index = i;
        cj_error.extent = n;
        cj_error.dim = 0;
    }
}
'''


def rand(shape, dtype=np.float32):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return RNG.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return RNG.integers(max(info.min, -1000), min(info.max, 1000), shape, dtype=dtype,
                            endpoint=True)
    if dtype.kind == "c":
        return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def scale2(x, n, **kw):
    return C._launch_raw(SCALE2, "scale2", (int(n) + 255) // 256 or 1, 256, (x, int(n)), **kw)


@jit.rawkernel()
def scale2_view(x):
    i = jit.grid(1)
    if i < x.size:
        x[i] = x[i] * 2




@pytest.fixture(scope="module")
def cupy():
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
    except Exception as e:
        pytest.skip("CuPy not usable: %s" % e)
    return cupy


@pytest.fixture(scope="module")
def torch():
    try:
        import torch
    except Exception as e:
        pytest.skip("PyTorch not importable: %s" % e)
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no GPU")
    return torch


@pytest.fixture(scope="module")
def numba_cuda():
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack        # numba-cuda still names it (removed in NumPy 2.5)
    try:
        from numba import cuda
        cuda.current_context()
    except Exception as e:
        pytest.skip("numba-cuda not usable: %s" % e)
    return cuda


# ---- devices ----

def test_devices():
    n = cujit.device_count()
    assert n >= 1
    d = cujit.get_device()
    assert isinstance(d, cujit.Device) and 0 <= d.id < n
    major, minor = d.compute_capability
    assert major >= 5 and d.arch == "sm_%d%d" % (major, minor)
    assert d.name and d.total_memory > 1 << 28 and d.multiprocessor_count > 0
    with cujit.Device(n - 1) as dv:
        assert cujit.get_device() == dv
        a = cujit.ones(3)
        assert a.device == dv
    assert cujit.get_device() == d
    assert (a.copy_to_host() == 1).all()
    cujit.synchronize()
    d.synchronize()


def test_other_thread():
    """A thread with no current context gets device 0's primary context."""
    out = {}

    def work():
        try:
            x = cujit.to_device(np.arange(1000, dtype=np.float32))
            scale2(x, 1000)
            out["r"] = x.copy_to_host()
        except Exception as e:      # pragma: no cover - reported below
            out["e"] = e

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert "e" not in out, out.get("e")
    assert (out["r"] == 2 * np.arange(1000)).all()


@pytest.mark.skipif("cujit.is_available() and cujit.device_count() < 2")
def test_two_devices():
    with cujit.Device(1):
        x = cujit.to_device(np.arange(100, dtype=np.float32))
        scale2(x, 100)
    assert x.device.id == 1
    assert (x.copy_to_host() == 2 * np.arange(100)).all()
    del x                           # freed in device 1's context from device 0


# ---- arrays ----

@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
def test_roundtrip(dtype):
    h = rand((7, 33), dtype)
    d = cujit.to_device(h)
    assert d.dtype == h.dtype and d.shape == h.shape and d.strides == h.strides
    assert d.size == h.size and d.nbytes == h.nbytes and d.itemsize == h.itemsize
    back = d.copy_to_host()
    assert back.dtype == h.dtype and (back == h).all()
    assert (cujit.asnumpy(d) == h).all()
    assert (cujit.to_device(h[::-2, 3::5]).copy_to_host() == h[::-2, 3::5]).all()
    assert (cujit.to_device(np.asfortranarray(h)).copy_to_host() == h).all()


def test_views():
    h = rand((6, 9, 4))
    d = cujit.to_device(h)
    keys = [np.s_[1], np.s_[2:5], np.s_[::2], np.s_[::-1], np.s_[1, 2:], np.s_[..., 1],
            np.s_[:, ::3, 1:3], np.s_[None, 2], np.s_[-1, -1, -1], np.s_[4:1:-2, ::-4],
            np.s_[3:3]]
    for k in keys:
        v = d[k]
        assert v.shape == h[k].shape and v.strides == h[k].strides, k
        assert (v.copy_to_host() == h[k]).all(), k
        assert v.base is d
    v = d[1:5, ::2]
    scale2(d, h.size)               # views see the owner's memory
    assert (v.copy_to_host() == 2 * h[1:5, ::2]).all()
    del d
    assert (v.copy_to_host() == 2 * h[1:5, ::2]).all()    # the view keeps the owner alive


def test_setitem():
    h = rand((5, 8))
    d = cujit.to_device(h)
    d[1] = 3.5
    h[1] = 3.5
    d[2:4, ::3] = np.arange(3)
    h[2:4, ::3] = np.arange(3)
    d[::-1, 7] = rand(5)
    h[::-1, 7] = d[::-1, 7].copy_to_host()
    d[0].copy_to_device(np.full(8, -1.0))
    h[0] = -1
    assert (d.copy_to_host() == h).all()
    e = cujit.empty_like(d)
    e.copy_to_device(d)
    assert (e.copy_to_host() == h).all()
    assert (d[:, ::2].copy().copy_to_host() == h[:, ::2]).all()


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
def test_creation(dtype):
    for fn, ref in ((cujit.zeros, np.zeros), (cujit.ones, np.ones)):
        a = fn((3, 5), dtype=dtype)
        assert a.dtype == np.dtype(dtype) and (a.copy_to_host() == ref((3, 5), dtype)).all()
    v = rand((1,), dtype)[0]
    f = cujit.full((4, 3), v, dtype=dtype)
    assert (f.copy_to_host() == np.full((4, 3), v, dtype)).all()
    h = rand((2, 7), dtype)
    assert (cujit.full_like(h, v).copy_to_host() == np.full_like(h, v)).all()
    assert cujit.empty_like(h).shape == (2, 7) and cujit.zeros_like(h).dtype == h.dtype
    assert (cujit.ones_like(cujit.to_device(h)).copy_to_host() == 1).all()


def test_creation_misc():
    assert cujit.full(3, 7).dtype == np.int64 and cujit.full(3, 7.0).dtype == np.float64
    assert cujit.full(3, np.float32(2)).dtype == np.float32
    assert cujit.empty((4, 5), order="F").f_contiguous
    big = cujit.full(3_000_000, 1.5 + 2j, dtype=np.complex128)    # host-filled chunks
    assert (big.copy_to_host() == 1.5 + 2j).all()
    assert (cujit.full(1_000_001, 0.1).copy_to_host() == 0.1).all()
    assert repr(cujit.to_device(np.array([1.5, 2], np.float32))) == \
        "DeviceArray([1.5, 2. ], dtype=float32)"


# ---- interop ----

def test_cupy_interop(cupy):
    h = rand((64, 48))
    d = cujit.to_device(h)
    c = cupy.asarray(d)                               # CAI: shares memory
    assert c.data.ptr == d.ptr and (cupy.asnumpy(c) == h).all()
    c *= 2
    assert (d.copy_to_host() == 2 * h).all()
    v = cupy.asarray(d[::2, 1::3])
    assert (cupy.asnumpy(v) == 2 * h[::2, 1::3]).all()
    dl = cupy.from_dlpack(d)
    assert dl.data.ptr == d.ptr and (cupy.asnumpy(dl) == 2 * h).all()
    # CuPy arrays in: the attribute fast path, views included
    x = cupy.asarray(h)
    scale2(x, h.size)
    assert (cupy.asnumpy(x) == 2 * h).all()
    y = cupy.asarray(rand((100,)))
    y0 = cupy.asnumpy(y)
    scale2_view[1, 64](y[::2])   # a raw pointer kernel cannot see strides
    assert (cupy.asnumpy(y)[::2] == 2 * y0[::2]).all() and (cupy.asnumpy(y)[1::2] == y0[1::2]).all()
    assert (cujit.asnumpy(y[::-3]) == y0[::-3] * np.where(np.arange(100)[::-3] % 2, 1, 2)).all()
    t = cujit.to_device(x[5:9])
    assert (t.copy_to_host() == 2 * h[5:9]).all()
    assert cujit.zeros_like(x).shape == x.shape
    # CuPy streams as launch streams
    s = cupy.cuda.Stream(non_blocking=True)
    z = cupy.ones(1000, dtype=cupy.float32)
    scale2(z, 1000, stream=s)
    s.synchronize()
    assert (cupy.asnumpy(z) == 2).all()


@jit.rawkernel()
def add_index_2d(x, y):
    i, j = jit.grid(2)
    if i < x.shape[0] and j < x.shape[1]:
        y[i, j] = x[i, j] + i * 100 + j


def test_cupy_fields_in_place(cupy):
    """CuPy arrays are read through their fields once cujit has learnt and
    verified the offsets (runtime/args.c): every read matches CuPy's
    attributes, for views, 0-d, empty and reshaped-in-place arrays of every
    layout, and kernels compute on them what NumPy does."""
    def attrs(a):
        return (a.data.ptr, a.shape, a.strides, a.dtype.name)
    seen = set()
    keys = [np.s_[:, :], np.s_[::2, 1:], np.s_[::-1, ::-3], np.s_[3], np.s_[:, 7], np.s_[2, 5],
            np.s_[4:4], np.s_[:, None, ::2], np.s_[10:, 3:-2]]
    for dt in (np.float32, np.float64, np.int8, np.uint16, np.int64, np.complex64, np.bool_):
        h = rand((24, 18), dt)
        c = cupy.asarray(h)
        for key in keys:
            v = c[key]
            assert C._array_info(v) == attrs(v), (dt, key)
            seen.add(C._cupy_fields(v))
            assert (cujit.asnumpy(v) == h[key]).all(), (dt, key)
    assert C._cupy_fields(c) == "on", seen
    for view in (lambda c: c, lambda c: c[::2, 1:], lambda c: c[::-1, ::-3],
                 lambda c: c[1:, :].T):
        h = rand((24, 18), np.float32)
        x, hv = view(cupy.asarray(h)), view(h)
        y = cupy.zeros(x.shape, dtype=cupy.float64)[:, ::-1]
        add_index_2d[(3, 3), (16, 16)](x, y)
        want = hv + np.arange(x.shape[0])[:, None] * 100 + np.arange(x.shape[1])[None, :]
        assert np.allclose(cupy.asnumpy(y), want)
    a = cupy.asarray(rand((6, 5), np.float32))
    h = cupy.asnumpy(a)
    a.shape = (5, 6)                                  # in place: the fields change
    assert C._array_info(a) == attrs(a) and a.shape == (5, 6)
    y = cupy.zeros((5, 6), dtype=cupy.float64)
    add_index_2d[(1, 1), (8, 8)](a, y)
    assert np.allclose(cupy.asnumpy(y), h.reshape(5, 6) + np.arange(5)[:, None] * 100
                       + np.arange(6)[None, :])
    z = cupy.asarray(np.float32(3.5))                 # 0-d
    assert C._array_info(z) == attrs(z) and cujit.asnumpy(z) == 3.5


@jit.rawkernel()
def axpy_i(a, x, y):
    i = jit.grid(1)
    if i < y.size:
        y[i] = a * x[i] + y[i]


@cujit.vectorize
def plus_one(v):
    return v + 1.0


class LaunchesWhenRead:
    """An array whose __cuda_array_interface__ launches other kernels first:
    a launch that starts while another reads its arguments"""

    def __init__(self, d, side):
        self.d, self.side = d, side

    @property
    def __cuda_array_interface__(self):
        s = self.side
        axpy_i[(s.size + 127) // 128, 128](3.0, s, s)          # s *= 4
        plus_one(s, out=s)
        return self.d.__cuda_array_interface__


def test_launch_inside_a_launch():
    """The outer launch's arguments survive a launch (and a vectorize) made
    while it reads them (launch() keeps them in memory a nested launch must
    not share)."""
    x, y, s = rand((1000,), np.float64), rand((1000,), np.float64), rand((777,), np.float64)
    dx, dy, ds = cujit.to_device(x), cujit.to_device(y), cujit.to_device(s)
    axpy_i[8, 128](2.0, dx, LaunchesWhenRead(dy, ds))
    np.testing.assert_allclose(dy.copy_to_host(), 2.0 * x + y, rtol=1e-14)
    np.testing.assert_allclose(ds.copy_to_host(), 4 * s + 1, rtol=1e-14)
    y2 = rand((1000,), np.float64)
    dy2 = cujit.to_device(y2)
    got = plus_one(LaunchesWhenRead(dy2, ds))
    np.testing.assert_allclose(got.copy_to_host(), y2 + 1, rtol=1e-14)
    np.testing.assert_allclose(ds.copy_to_host(), 4 * (4 * s + 1) + 1, rtol=1e-14)


@jit.rawkernel()
def fill_index(out):
    i = jit.grid(1)
    if i < out.size:
        out[i] = i + 1


def test_cupy_style_calls():
    """k(grid, block, args): the same grid and block objects reuse their
    configuration, other ones are read anew, and keywords, shared_mem and
    stream take the general path."""
    def covered(n):
        want = np.zeros(200, np.int64)
        want[:n] = np.arange(1, n + 1)
        return want

    g, b = (2,), (16,)
    for grid, block, n in (((1,), (32,), 32), ((2,), (32,), 64), (3, 32, 96), ((1,), 64, 64),
                           (g, b, 32), (g, b, 32), ((1, 1), (8, 1), 8), ((1,), (32,), 32)):
        out = cujit.zeros(200, dtype=np.int64)
        fill_index(grid, block, (out,))
        np.testing.assert_array_equal(out.copy_to_host(), covered(n), err_msg=str((grid, block)))
    s = cujit.Stream()
    for kw, n in (({"stream": s}, 8), ({"shared_mem": 0}, 8), ({"shared_mem": 64, "stream": s}, 8)):
        out = cujit.zeros(200, dtype=np.int64)
        fill_index((1,), (8,), (out,), **kw)
        s.synchronize()
        np.testing.assert_array_equal(out.copy_to_host(), covered(n), err_msg=str(kw))
    out = cujit.zeros(200, dtype=np.int64)
    fill_index(grid=(1,), block=(4,), args=(out,))
    np.testing.assert_array_equal(out.copy_to_host(), covered(4))
    out = cujit.zeros(200, dtype=np.int64)
    fill_index((1,), (8,), [out])                   # args as a list, as cupyx.jit takes them
    np.testing.assert_array_equal(out.copy_to_host(), covered(8))
    with pytest.raises(ValueError):
        fill_index((1,), (2048,), (out,))
    with pytest.raises(TypeError):
        fill_index((1,), (8,))
    out = cujit.zeros(200, dtype=np.int64)
    fill_index((1,), (32,), (out,))                 # the kept configuration still serves
    np.testing.assert_array_equal(out.copy_to_host(), covered(32))


def test_torch_interop(torch):
    h = rand((32, 16))
    d = cujit.to_device(h)
    t = torch.as_tensor(d, device="cuda")             # CAI
    assert t.data_ptr() == d.ptr and (t.cpu().numpy() == h).all()
    t.mul_(2)
    assert (d.copy_to_host() == 2 * h).all()
    t2 = torch.from_dlpack(d)
    assert t2.data_ptr() == d.ptr and (t2.cpu().numpy() == 2 * h).all()
    t3 = torch.from_dlpack(d[:, ::2])
    assert t3.stride() == (16, 2) and (t3.cpu().numpy() == 2 * h[:, ::2]).all()
    # tensors in: data_ptr(), .shape, .stride()
    x = torch.tensor(h, device="cuda")
    scale2(x, h.size)
    assert (x.cpu().numpy() == 2 * h).all()
    y = torch.tensor(rand((100,)), device="cuda")
    y0 = y.cpu().numpy()
    scale2_view[1, 64](y[::2])   # a raw pointer kernel cannot see strides
    assert (y.cpu().numpy()[::2] == 2 * y0[::2]).all()
    assert (cujit.asnumpy(y[10:20]) == y.cpu().numpy()[10:20]).all()
    cpu = torch.tensor(rand((10,)))                   # host tensor: copied in and back
    c0 = cpu.numpy().copy()
    scale2(cpu, 10)
    assert (cpu.numpy() == 2 * c0).all()
    s = torch.cuda.Stream()
    scale2(x, h.size, stream=s)
    s.synchronize()
    assert (x.cpu().numpy() == 4 * h).all()


def test_numba_interop(numba_cuda):
    h = rand((40,))
    d = cujit.to_device(h)
    nd = numba_cuda.as_cuda_array(d)
    assert (nd.copy_to_host() == h).all()
    x = numba_cuda.to_device(h)
    scale2(x, 40)
    assert (x.copy_to_host() == 2 * h).all()
    assert (cujit.asnumpy(x) == 2 * h).all()


def test_dlpack_keeps_memory_alive(cupy):
    h = rand((1000,))
    d = cujit.to_device(h)
    c = cupy.from_dlpack(d)
    del d
    cujit.zeros(1000, dtype=np.float32)               # would reuse freed memory
    assert (cupy.asnumpy(c) == h).all()


# ---- streams and events ----

def test_streams_and_events():
    s = cujit.Stream(non_blocking=True)
    assert s.handle and s.__cuda_stream__() == (0, s.handle)
    h = rand((1 << 20,))
    x = cujit.to_device(h, stream=s)
    start, end = cujit.Event(), cujit.Event()
    start.record(s)
    C._launch_raw(SPIN, "spin", 1, 1, (10_000_000,), stream=s, check=False)
    scale2(x, h.size, stream=s, check=False)
    end.record(s)
    end.synchronize()
    assert end.query() and s.query()
    assert start.elapsed_time(end) > 0.5              # 10M cycles at <= 3 GHz
    assert (x.copy_to_host(stream=s) == 2 * h).all()
    # ordering through events between streams
    s2 = cujit.Stream(non_blocking=True)
    ev = cujit.Event(timing=False)
    C._launch_raw(SPIN, "spin", 1, 1, (2_000_000,), stream=s, check=False)
    scale2(x, h.size, stream=s, check=False)
    ev.record(s)
    s2.wait_event(ev)
    y = cujit.empty_like(x, stream=s2)
    y.copy_to_device(x, stream=s2)
    s2.synchronize()
    assert (y.copy_to_host() == 4 * h).all()
    del s                                             # x was made on s: kept alive by x
    x = None
    cujit.synchronize()


# ---- kernels ----

def test_launch_raw_host_and_device():
    h = rand((5000,))
    h0 = h.copy()
    hit, rec = scale2(h, h.size)                      # host array: copied in and back
    assert rec is None and (h == 2 * h0).all()
    r = h0.copy()
    r.flags.writeable = False
    scale2(r, r.size)                                 # read-only: not copied back
    assert (r == h0).all()
    d = cujit.to_device(h0)
    assert scale2(d, d.size)[0] == 2                  # in-process cache
    assert (d.copy_to_host() == 2 * h0).all()


def test_error_record():
    x = np.arange(1000, dtype=np.int32)
    x[517] = -5
    hit, rec = C._launch_raw(CHECK, "check", 4, 256, (cujit.to_device(x), 1000))
    kind, line, msg_id, dim, block, thread, index, extent, flag = rec
    assert (kind, line, msg_id, dim, index, extent, flag) == (2, 77, -1, 0, 517, 1000, 1)
    assert block == (2, 0, 0) and thread == (5, 0, 0)
    x[517] = 5
    assert C._launch_raw(CHECK, "check", 4, 256, (cujit.to_device(x), 1000))[1] is None


def run_py(code, cache_dir, **env):
    e = dict(os.environ, CUJIT_CACHE_DIR=str(cache_dir))
    e.pop("CUJIT_CACHE", None)
    e.update(env)
    return subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True,
                          timeout=300)


def test_sticky_error_names_kernel(tmp_path):
    code = ("import cujit\nfrom cujit import _cujit as C\n"
            "src = 'extern \"C\" __global__ void bad(long long p) { *(float *)p = 1.0f; }'\n"
            "try:\n    C._launch_raw(src, 'bad', 1, 1, (8,))\n"
            "except cujit.CudaError as e:\n    print('ERR', e)\n")
    r = run_py(code, tmp_path)
    assert "ERR kernel 'bad' failed: CUDA_ERROR_ILLEGAL_ADDRESS" in r.stdout, r.stdout + r.stderr


CACHE_SCRIPT = r'''
import time, numpy as np, cujit
from cujit import _cujit as C
from cujit import jit
SRC = %r
cujit.zeros(1)                            # driver and context up
x = cujit.to_device(np.arange(4096, dtype=np.float32))
t = time.perf_counter()
hit, rec = C._launch_raw(SRC, "scale2", 16, 256, (x, 4096))
ms = (time.perf_counter() - t) * 1e3
assert (x.copy_to_host() == 2 * np.arange(4096)).all()
print("HIT", hit, "MS %%.3f" %% ms, cujit.cache_info())
''' % SCALE2.replace("2.0f", "2.0f /* cache test */")


def test_disk_cache_across_processes(tmp_path):
    r1 = run_py(CACHE_SCRIPT, tmp_path, CUJIT_LOG="1")
    assert "HIT 0" in r1.stdout, r1.stdout + r1.stderr
    assert "cujit: kernel scale2" in r1.stderr and "disk cache miss" in r1.stderr
    entries = [f for f in os.listdir(tmp_path) if f.endswith(".cjc")]
    assert len(entries) == 1
    r2 = run_py(CACHE_SCRIPT, tmp_path, CUJIT_LOG="1")
    assert "HIT 1" in r2.stdout and "disk cache hit" in r2.stderr, r2.stdout + r2.stderr
    warm_ms = float(r2.stdout.split("MS ")[1].split()[0])
    print("warm-cache first launch: %.3f ms" % warm_ms)
    assert warm_ms < 20
    # a corrupted entry is not loaded: recompiled and replaced
    p = tmp_path / entries[0]
    data = bytearray(p.read_bytes())
    data[len(data) // 2] ^= 0xff
    p.write_bytes(bytes(data))
    r3 = run_py(CACHE_SCRIPT, tmp_path)
    assert "HIT 0" in r3.stdout and "'rejected': 1" in r3.stdout, r3.stdout + r3.stderr
    r4 = run_py(CACHE_SCRIPT, tmp_path)
    assert "HIT 1" in r4.stdout, r4.stdout + r4.stderr
    # concurrent first compiles of one kernel all succeed
    procs = [subprocess.Popen([sys.executable, "-c", CACHE_SCRIPT], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True,
                              env=dict(os.environ,
                                       CUJIT_CACHE_DIR=str(tmp_path / "concurrent")))
             for _ in range(4)]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0 and "HIT" in out, out + err
    assert len([f for f in os.listdir(tmp_path / "concurrent")]) == 1


def test_cache_disabled(tmp_path):
    r = run_py(CACHE_SCRIPT, tmp_path, CUJIT_CACHE="0", CUJIT_LOG="1")
    assert "HIT 0" in r.stdout and "disk cache off" in r.stderr, r.stdout + r.stderr
    assert not os.listdir(tmp_path)


FIRST_CALL = r'''
import numpy as np, cujit
from cujit import jit


@jit.rawkernel()
def axpb(a, x, out, n):
    i = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x
    if i < n:
        out[i] = a * x[i] + 1


x = np.random.default_rng().random(1000).astype(np.float32)
d, o = cujit.to_device(x), cujit.to_device(np.zeros(1000, np.float32))
axpb[4, 256](np.float32(3), d, o, 1000)
assert np.allclose(o.copy_to_host(), 3 * x + 1)
print("OK")
'''


def test_first_call_log(tmp_path):
    """CUJIT_LOG=1: a first call's line names every part, and the parts add
    up to its total; a second process finds the binary and the transpile on
    disk"""
    import re
    (tmp_path / "first_call.py").write_text(FIRST_CALL)
    for disk in ("miss (stored)", "hit"):
        r = subprocess.run([sys.executable, str(tmp_path / "first_call.py")], timeout=300,
                           env=dict(os.environ, CUJIT_CACHE_DIR=str(tmp_path / "cache"),
                                    CUJIT_LOG="1"), capture_output=True, text=True)
        assert r.returncode == 0 and "OK" in r.stdout, r.stdout + r.stderr
        lines = [ln for ln in r.stderr.splitlines() if ln.startswith("cujit: kernel cj_axpb")]
        assert len(lines) == 1 and lines[0].endswith("disk cache " + disk), r.stderr
        ms = {w: float(v) for w, v in re.findall(r"(?:: |, )([a-z ]+?) (\d+\.\d+) ms", lines[0])}
        for part in ("import", "source", "parse", "frontend", "typeinfer", "codegen", "key",
                     "disk", "nvrtc", "module", "launch", "total"):
            assert part in ms, (part, lines[0])
        assert ms["import"] > 0 and ms["module"] > 0 and ms["launch"] > 0, lines[0]
        assert (ms["nvrtc"] > 0) == (disk != "hit"), lines[0]
        parts = sum(v for k, v in ms.items() if k not in ("import", "total"))
        assert abs(ms["total"] - parts) < 0.1 + 1e-3 * ms["total"], lines[0]


# ---- memory ----

def test_memory_pool():
    cujit.synchronize()
    before = cujit.memory_info()
    a = cujit.empty(1 << 26, dtype=np.uint8)
    mid = cujit.memory_info()
    if mid["pool"]:
        assert mid["used"] >= before["used"] + (1 << 26)
    del a
    cujit.synchronize()
    after = cujit.memory_info()
    assert after["used"] <= mid["used"] - (1 << 26) or not mid["pool"]
    cujit.release_memory()
    assert cujit.memory_info()["reserved"] <= after["reserved"]


def test_out_of_memory():
    with pytest.raises(cujit.CudaError) as e:
        cujit.empty(1 << 50, dtype=np.uint8)
    assert "cannot allocate 1125899906842624 bytes" in str(e.value)
    if "OUT_OF_MEMORY" in str(e.value):
        assert isinstance(e.value, cujit.OutOfMemoryError) and isinstance(e.value, MemoryError)
    x = cujit.ones(10)                                # still usable
    assert (x.copy_to_host() == 1).all()
