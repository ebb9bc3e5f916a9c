"""CUDA IPC, managed and mapped memory and fork safety against the fake
libcuda (fakecuda.c), each scenario in a fresh process started by
tests/test_ipc_nogpu.py:

    python ipc_scenarios.py NAME

The fake's pools export a snapshot of an allocation (its bytes are written
to the pool's memfd when the pointer is exported), so what is checked is
the path: the handle's bytes, pickling, the pool's fd sent to a spawned
process over the exporter's socket, the import there, offsets of views,
closing, and the errors; the GPU tests (tests/gpu/test_ipc_gpu.py) check
that the memory is shared."""
import concurrent.futures
import ctypes
import gc
import multiprocessing as mp
import os
import pickle
import sys

import numpy as np

import cujit
from cujit import _cujit as C
from cujit import cuda

FAKE = ctypes.CDLL("libcuda.so.1")
RNG = np.random.default_rng()
SCALE2 = ('extern "C" __global__ void scale2(float *x, long long n)'
          '{ long long i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2; }')


def counter(name):
    return ctypes.c_longlong.in_dll(FAKE, name).value


def expect(exc, fn, *text):
    try:
        fn()
    except exc as e:
        for t in text:
            assert t in str(e), (t, str(e))
        return e
    raise AssertionError(f"no {exc.__name__}")


class Foreign:
    """another library's array: only an instance __cuda_array_interface__"""

    def __init__(self, arr):
        self._arr = arr
        self.__cuda_array_interface__ = arr.__cuda_array_interface__


# ---- run in the spawned children ----

def open_bytes(reserved, n, dtype):
    with cuda.open_ipc_array(reserved, shape=n, dtype=dtype) as d:
        return d.copy_to_host()


def open_handle(ipch, dtype):
    dtype = np.dtype(dtype)
    d = ipch.open_array(cuda.current_context(), shape=ipch.size // dtype.itemsize, dtype=dtype)
    out = d.copy_to_host()
    ipch.close()
    return out


def open_array_handle(h):
    with h as d:
        out = d.copy_to_host()
        again = expect(ValueError, lambda: h.__enter__(), "IpcHandle is already opened")
    return out, str(again), counter("fake_frees")


def open_staged(ipch, n):
    host = np.zeros(n, np.float64)
    ptr = ipch.open_staged(cuda.devices.get_context())
    cuda.driver.device_to_host(host, ptr, size=ipch.size)
    ipch.close()
    return host


def ipc():
    ex = concurrent.futures.ProcessPoolExecutor(max_workers=1,
                                                mp_context=mp.get_context("spawn"))
    with ex:
        arr = RNG.integers(-1000, 1000, 10).astype(np.intp)
        d = cuda.to_device(arr)
        ipch = cuda.current_context().get_ipc_handle(d.gpu_data)
        assert ipch.base == d.gpu_data and ipch.size == arr.nbytes and ipch.offset == 0, ipch
        back = pickle.loads(pickle.dumps(ipch))
        assert back.base is None and back.size == ipch.size and back.offset == 0
        assert back.handle.reserved == ipch.handle.reserved
        got = ex.submit(open_bytes, ipch.handle.reserved, 10, np.intp).result(timeout=60)
        assert (got == arr).all(), (got, arr)
        # views and foreign views: the handle's offset and size are the view's
        for index in (slice(None), slice(3, None), slice(3, 8), slice(None, 8)):
            for foreign in (False, True):
                v = d[index]
                if foreign:
                    v = cuda.as_cuda_array(Foreign(v))
                expect_ = v.copy_to_host()
                h = cuda.current_context().get_ipc_handle(v.gpu_data)
                assert h.size == expect_.nbytes and h.offset == (index.start or 0) * 8
                got = ex.submit(open_handle, h, np.intp).result(timeout=60)
                assert (got == expect_).all(), (index, foreign, got)
                ah = v.get_ipc_handle()
                got, again, _ = ex.submit(open_array_handle, ah).result(timeout=60)
                assert (got == expect_).all() and "already opened" in again
        # a 2-d strided view keeps its strides
        m = cuda.to_device(RNG.random((4, 6)))
        view = m[1:, ::2]
        got, _, _ = ex.submit(open_array_handle, view.get_ipc_handle()).result(timeout=60)
        assert np.array_equal(got, view.copy_to_host())
        # open_staged and cuda.driver.device_to_host
        f = cuda.to_device(RNG.random(7))
        h = cuda.current_context().get_ipc_handle(f.gpu_data)
        got = ex.submit(open_staged, h, 7).result(timeout=60)
        assert np.array_equal(got, f.copy_to_host())
        # an array of the second device, exported while the first is current
        with cuda.gpus[1]:
            x1 = RNG.random(6)
            d1 = cuda.to_device(x1)
        h1 = d1.get_ipc_handle()
        got, _, _ = ex.submit(open_array_handle, h1).result(timeout=60)
        assert np.array_equal(got, x1) and cujit.get_device().id == 0
    # in the process that made it: the same memory, nothing imported
    frees = counter("fake_frees")
    with cuda.open_ipc_array(ipch.handle.reserved, 10, np.intp) as same:
        assert same.__cuda_array_interface__["data"][0] == int(d.gpu_data)
        assert (same.copy_to_host() == arr).all()
    assert counter("fake_frees") == frees
    print("ipc ok")


def ipc_errors():
    d = cuda.to_device(RNG.random(4))
    expect(ValueError, lambda: cuda.open_ipc_array(b"x" * 64, 4, np.float64).__enter__(),
           "not a cujit IPC handle")
    expect(TypeError, lambda: cuda.open_ipc_array(3.5, 4, np.float64).__enter__(),
           "must be bytes")
    expect(ValueError, lambda: cuda.current_context().get_ipc_handle(12345),
           "not an address of device memory")
    expect(TypeError, lambda: cuda.current_context().get_ipc_handle("x"), "gpu_data")
    expect(NotImplementedError, lambda: d[::-1].get_ipc_handle(), "negative strides")
    h = d.get_ipc_handle()._ipc_handle
    expect(ValueError, lambda: h.open_array(None, 5, np.float64), "needs 40 bytes")
    # a handle whose exporter is gone
    reserved = bytearray(h.handle.reserved)
    reserved[8:16] = (1).to_bytes(8, "little")           # another pid
    reserved[-4:] = b"gone"                              # another socket
    expect(ValueError, lambda: cuda.open_ipc_array(bytes(reserved), 4, np.float64).__enter__(),
           "cannot reach the process that made the handle")
    # memory cujit's pool did not allocate
    m = cuda.managed_array(4)
    expect(ValueError, lambda: cuda.current_context().get_ipc_handle(
        m.__cuda_array_interface__["data"][0]), "not an address of device memory")
    print("ipc_errors ok")


def ipc_off():
    """CUJIT_IPC=0 or a device without POSIX fd pools: a plain pool"""
    d = cuda.to_device(RNG.random(4))
    expect(NotImplementedError, d.get_ipc_handle, "not exportable", os.environ["WHY"])
    assert (d.copy_to_host() == d.copy_to_host()).all()
    print("ipc_off ok")


def managed():
    x = RNG.random(16).astype(np.float32)
    m = cuda.managed_array(16, dtype=np.float32)
    assert isinstance(m, np.ndarray) and m.dtype == np.float32 and m.shape == (16,)
    m[:] = x
    cai = m.__cuda_array_interface__
    assert cai["data"][0] == m.ctypes.data and cai["stream"] is None and cai["strides"] is None
    htod = counter("fake_htod")
    C._launch_raw(SCALE2, "scale2", 1, 32, (m, 16))     # in place, no copy
    assert counter("fake_htod") == htod
    cuda.synchronize()
    assert np.array_equal(m, 2 * x) and np.array_equal(m.copy_to_host(), 2 * x)
    # views keep the memory; copies and ufunc results are plain host arrays
    v = m[4:12]
    assert type(v).__name__ == "HostDeviceArray"
    assert v.__cuda_array_interface__["data"][0] == m.ctypes.data + 16
    assert type(m + 1) is np.ndarray and type(m.copy()) is np.ndarray
    assert type(np.sum(m)) is np.float32
    m += 1
    assert type(m).__name__ == "HostDeviceArray" and np.allclose(m, 2 * x + 1)
    p = pickle.loads(pickle.dumps(m))               # the values, as a plain array
    assert type(p) is np.ndarray and np.array_equal(p, m)
    # a stream's handle in the interface; Fortran order; strides; attach_global
    s = cuda.stream()
    assert cuda.managed_array(3, stream=s).__cuda_array_interface__["stream"] == s.handle
    f = cuda.managed_array((3, 4), np.int32, order="F", attach_global=False)
    assert f.flags.f_contiguous and f.__cuda_array_interface__["strides"] == (4, 12)
    st = cuda.managed_array((2, 3), np.float64, strides=(32, 8))
    assert st.strides == (32, 8)
    z = cuda.managed_array(0)
    assert z.size == 0
    # a Numba-style kernel takes it (the fake launches nothing)
    @cuda.jit
    def add1(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 1
    add1[1, 16](m)
    # errors
    expect(ValueError, lambda: cuda.managed_array((2, -1)), "negative dimensions")
    expect(ValueError, lambda: cuda.managed_array(3, order="K"), "order=")
    expect(ValueError, lambda: cuda.managed_array((2, 2), strides=(8,)), "do not match")
    # freed with the last view
    frees = counter("fake_frees")
    del m, v, cai
    gc.collect()
    assert counter("fake_frees") == frees + 1
    print("managed ok")


def mapped():
    x = RNG.random(8).astype(np.float32)
    m = cuda.mapped_array(8, dtype=np.float32)
    m[:] = x
    assert m.__cuda_array_interface__["stream"] is None
    htod = counter("fake_htod")
    C._launch_raw(SCALE2, "scale2", 1, 32, (m, 8))
    assert counter("fake_htod") == htod
    cuda.synchronize()
    assert np.array_equal(m, 2 * x)
    s = cuda.stream()
    w = cuda.mapped_array(4, stream=s, wg=True)
    assert w.__cuda_array_interface__["stream"] == s.handle
    like = cuda.mapped_array_like(np.zeros((2, 3), np.int16))
    assert like.shape == (2, 3) and like.dtype == np.int16
    print("mapped ok")


def fork():
    """A child forked after CUDA was initialised cannot use it: Numba's
    error, and the parent's arrays dropped there free nothing."""
    d = cuda.to_device(RNG.random(8))
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        frees = counter("fake_frees")
        msg = b""
        try:
            cuda.to_device(np.arange(3))
        except cujit.CudaError as e:
            msg = str(e).encode()
        del d                   # the parent's allocation: not freed here
        gc.collect()
        ok = counter("fake_frees") == frees
        try:
            cujit.synchronize()
        except cujit.CudaError as e:
            ok = ok and "CUDA initialized before forking" in str(e)
        os.write(w, (b"1" if ok else b"0") + msg)
        os._exit(0)
    os.close(w)
    out = b""
    while chunk := os.read(r, 4096):
        out += chunk
    os.waitpid(pid, 0)
    assert out[:1] == b"1", out
    assert b"CUDA initialized before forking" in out and b"spawn" in out, out
    # the parent is unaffected
    assert d.copy_to_host().shape == (8,)
    # Numba's test: ProcessPoolExecutor with fork, the error is a CudaDriverError
    with concurrent.futures.ProcessPoolExecutor(mp_context=mp.get_context("fork")) as exe:
        fut = exe.submit(cuda.to_device, np.arange(1))
    expect(cuda.cudadrv.driver.CudaDriverError, fut.result, "CUDA initialized before forking")
    print("fork ok")


def fork_before_init():
    """a child forked before the parent used the driver starts its own"""
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            x = RNG.random(4)
            code = 0 if np.array_equal(cuda.to_device(x).copy_to_host(), x) else 3
        except BaseException:
            code = 4
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    print("fork_before_init ok")


def cai_streams():
    """Numba's producer and consumer rules of the interface's stream"""
    from unittest.mock import patch
    assert cuda.device_array(10).__cuda_array_interface__["stream"] is None
    s = cuda.stream()
    assert cuda.device_array(10, stream=s).__cuda_array_interface__["stream"] == s.handle
    f = Foreign(cuda.device_array(10, stream=s))
    with patch.object(cuda.cudadrv.driver.Stream, "synchronize", return_value=None) as mock:
        c = cuda.as_cuda_array(f)
    mock.assert_called_once_with()
    assert c.stream.external and int(c.stream.handle) == int(s.handle)
    with patch.object(cuda.cudadrv.driver.Stream, "synchronize", return_value=None) as mock:
        cuda.as_cuda_array(f, sync=False)
        cuda.as_cuda_array(Foreign(cuda.device_array(10)))
        cuda.from_cuda_array_interface(f.__cuda_array_interface__, sync=False)
    mock.assert_not_called()
    with patch.object(cuda.cudadrv.driver.Stream, "synchronize", return_value=None) as mock:
        cuda.from_cuda_array_interface(f.__cuda_array_interface__)
    mock.assert_called_once_with()
    os.environ["NUMBA_CUDA_ARRAY_INTERFACE_SYNC"] = "0"
    with patch.object(cuda.cudadrv.driver.Stream, "synchronize", return_value=None) as mock:
        cuda.as_cuda_array(f)
    mock.assert_not_called()
    del os.environ["NUMBA_CUDA_ARRAY_INTERFACE_SYNC"]
    # cuda.stream()'s streams are driver.Stream, and still synchronize
    assert isinstance(s, cuda.cudadrv.driver.Stream) and cuda.cudadrv.driver.Stream is cuda.Stream
    s.synchronize()
    cuda.default_stream().synchronize()
    cuda.external_stream(s.handle).synchronize()
    print("cai_streams ok")


if __name__ == "__main__":
    globals()[sys.argv[1]]()
