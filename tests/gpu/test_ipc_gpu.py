"""CUDA IPC between two processes (multiprocessing's spawn context), managed
and mapped memory written by kernels and read by NumPy, and a forked
child's error, on the GPU, against NumPy on fresh random data.  The child
functions are at module level: spawned processes import this module."""
import concurrent.futures
import multiprocessing as mp
import os
import pickle

import numpy as np
import pytest

import cujit
from cujit import cuda

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()
TIMEOUT = 120           # a spawned child imports cujit and starts CUDA


@cuda.jit
def affine(x, a, b):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = a * x[i] + b


@cuda.jit
def affine2d(x, a, b):
    i, j = cuda.grid(2)
    if i < x.shape[0] and j < x.shape[1]:
        x[i, j] = a * x[i, j] + b


def spawn_pool():
    return concurrent.futures.ProcessPoolExecutor(max_workers=1,
                                                  mp_context=mp.get_context("spawn"))


# ---- run in the spawned child ----

def child_read_and_write(h, a, b):
    """reads the shared array, then rewrites it in place with a kernel"""
    assert os.getpid() != h[1]
    with h[0] as d:
        before = d.copy_to_host()
        if d.ndim == 1:
            affine[(d.size + 127) // 128, 128](d, a, b)
        else:
            grid = ((d.shape[0] + 15) // 16, (d.shape[1] + 15) // 16)
            affine2d[grid, (16, 16)](d, a, b)
        cuda.synchronize()
        after = d.copy_to_host()
    return before, after


def child_open_bytes(reserved, n, dtype):
    with cuda.open_ipc_array(reserved, shape=n, dtype=dtype) as d:
        return d.copy_to_host()


def child_open_handle(ipch, dtype):
    dtype = np.dtype(dtype)
    d = ipch.open_array(cuda.current_context(), shape=ipch.size // dtype.itemsize,
                        dtype=dtype)
    out = d.copy_to_host()
    ipch.close()
    return out


# ---- tests ----

def test_ipc_array_is_shared_both_ways():
    x = rng.standard_normal(3000)
    d = cuda.to_device(x)
    h = d.get_ipc_handle()
    a, b = rng.standard_normal(), rng.standard_normal()
    with spawn_pool() as ex:
        before, after = ex.submit(child_read_and_write, (h, os.getpid()), a, b).result(
            timeout=TIMEOUT)
    np.testing.assert_array_equal(before, x)
    np.testing.assert_allclose(after, a * x + b, rtol=1e-12)
    # the child wrote this process's memory
    np.testing.assert_allclose(d.copy_to_host(), a * x + b, rtol=1e-12)


def test_ipc_views_bytes_and_pickles():
    x = rng.integers(-10**6, 10**6, 50).astype(np.int64)
    d = cuda.to_device(x)
    ctx = cuda.current_context()
    with spawn_pool() as ex:
        ipch = ctx.get_ipc_handle(d.gpu_data)
        back = pickle.loads(pickle.dumps(ipch))
        assert back.base is None and back.handle.reserved == ipch.handle.reserved
        got = ex.submit(child_open_bytes, ipch.handle.reserved, x.size, np.int64).result(
            timeout=TIMEOUT)
        np.testing.assert_array_equal(got, x)
        for index in (slice(7, None), slice(3, 41), slice(None, 13)):
            v = d[index]
            got = ex.submit(child_open_handle, ctx.get_ipc_handle(v.gpu_data),
                            np.int64).result(timeout=TIMEOUT)
            np.testing.assert_array_equal(got, x[index])
        # a 2-d strided view, through an array handle
        m = rng.standard_normal((20, 30)).astype(np.float32)
        dm = cuda.to_device(m)
        view = dm[2:17, ::3]
        before, after = ex.submit(child_read_and_write, (view.get_ipc_handle(), os.getpid()),
                                  2.0, 1.0).result(timeout=TIMEOUT)
        np.testing.assert_array_equal(before, m[2:17, ::3])
        m[2:17, ::3] = 2 * m[2:17, ::3] + 1
        np.testing.assert_allclose(dm.copy_to_host(), m, rtol=1e-6)


def test_ipc_open_in_same_process():
    x = rng.standard_normal(100)
    d = cuda.to_device(x)
    h = cuda.current_context().get_ipc_handle(d.gpu_data)
    with cuda.open_ipc_array(h.handle.reserved, 100, np.float64) as same:
        np.testing.assert_array_equal(same.copy_to_host(), x)


def test_managed_array_written_by_kernel_read_by_numpy():
    n = 5000
    x = rng.standard_normal(n).astype(np.float32)
    m = cuda.managed_array(n, dtype=np.float32)
    assert isinstance(m, np.ndarray)
    m[:] = x                                        # written by the host in place
    a, b = np.float32(rng.standard_normal()), np.float32(rng.standard_normal())
    affine[(n + 255) // 256, 256](m, a, b)
    cuda.synchronize()
    np.testing.assert_allclose(m, a * x + b, rtol=1e-5, atol=1e-6)
    # a view of it, a kernel on a stream, read through NumPy again
    s = cuda.stream()
    v = m[100:900]
    affine[4, 256, s](v, np.float32(2), np.float32(0))
    s.synchronize()
    expect = a * x + b
    expect[100:900] *= 2
    np.testing.assert_allclose(m, expect, rtol=1e-5, atol=1e-6)
    assert np.isclose(float(np.sum(m)), float(expect.sum()), rtol=1e-3)


def test_managed_array_2d_fortran_and_host_attach():
    # attach_global=False: attached to the host; an H100 (concurrent managed
    # access) lets kernels use it without cuStreamAttachMemAsync
    x = rng.standard_normal((40, 30))
    m = cuda.managed_array((40, 30), order="F", attach_global=False)
    assert m.flags.f_contiguous
    m[...] = x
    affine2d[(3, 2), (16, 16)](m, -2.0, 0.5)
    cuda.synchronize()
    np.testing.assert_allclose(m, -2 * x + 0.5, rtol=1e-12)


def test_mapped_array_written_by_kernel():
    n = 3000
    x = rng.standard_normal(n)
    m = cuda.mapped_array(n)
    m[:] = x
    affine[(n + 127) // 128, 128](m, 3.0, -1.0)
    cuda.synchronize()
    np.testing.assert_allclose(m, 3 * x - 1, rtol=1e-12)


def test_forked_child_gets_numbas_error():
    cuda.to_device(np.arange(3))        # the driver initialised here
    with concurrent.futures.ProcessPoolExecutor(mp_context=mp.get_context("fork")) as ex:
        fut = ex.submit(cuda.to_device, np.arange(1))
    with pytest.raises(cuda.CudaDriverError, match="CUDA initialized before forking"):
        fut.result(timeout=TIMEOUT)
    # the parent goes on
    x = rng.standard_normal(10)
    np.testing.assert_array_equal(cuda.to_device(x).copy_to_host(), x)
    assert isinstance(cujit.memory_info(), dict)
