"""Numba's host-side rules (cujit/_numba_forms.py) and the lifetime of
streams, without a GPU, run by tests/test_numba_forms_nogpu.py in a fresh
process against the fake libcuda:

    python hostsem_scenarios.py NAME

`cases` runs the CASES of tests/gpu/test_numba_forms_gpu.py with every
launched kernel compiled for the host and run on the parameters cujit packed
(as gufunc_scenarios.py does, finding the kernels among that file's forms
and kernels, each entry of a source built for itself), so results are
checked against NumPy on the CPU.  The fake driver aborts on any use of a
destroyed stream, as the real one crashes."""
import ctypes
import gc
import os
import re
import shutil
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import gufunc_scenarios as gs  # noqa: E402
import test_numba_forms_gpu as forms  # noqa: E402
from test_kernels_host import (ENTRY, host_library, host_source,  # noqa: E402
                               split_params)

import cujit  # noqa: E402
from cujit import cuda  # noqa: E402


def _sources():
    for v in vars(forms).values():
        f = getattr(v, "form", v)
        if isinstance(f, (cujit.Vectorize, cujit.GUFunc)):
            yield from f.inspect_cuda()
        elif isinstance(f, cujit.Kernel):
            yield from f.inspect_cuda().values()


def source_of(name):
    """the CUDA of the kernel `name` among the test file's forms and kernels
    (the entries of a vectorize's source kept whole: the host build picks
    one)"""
    for src in _sources():
        if "void %s(" % name in src:
            return src
    raise AssertionError("no form compiled kernel " + name)


_BUILT = {}


def ctype_of(param):
    """a parameter's type: the declaration without its name (`double *out0`
    is a `double *`)"""
    return re.match(r"(.*?)\w+\s*$", param).group(1).strip()


def build_entry(src, name):
    """the entry `name` of src (one of several) built for the host with the
    shim of tests/test_kernels_host.py"""
    if (src, name) in _BUILT:
        return _BUILT[src, name]
    m = [e for e in ENTRY.finditer(src) if e.group(1) == name][0]
    types = [ctype_of(p) for p in split_params(m.group(2))]
    key = "%s_%d" % (name, len(_BUILT))
    lib = host_library(src, name, types, os.path.join(gs.TMP, key))
    _BUILT[src, name] = lib
    return lib


failures = []


@gs.HOOK
def on_launch(name, params, grid, block):
    """runs the launched kernel on the CPU; a failure is recorded (an
    exception cannot cross the driver) and fails the scenario"""
    try:
        name = name.decode()
        src = host_source(source_of(name))
        args = ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p))
        if name.endswith("_st"):
            shmem = ctypes.c_uint.in_dll(gs.FAKE, "fake_last_shmem").value
            gs.build_threaded(src, name).cj_host_launch(args, grid, block, shmem)
            return
        build_entry(src.split("\n/* staged:")[0], name).cj_host_launch(args, grid, block)
    except BaseException as e:  # noqa: B036
        failures.append("%s: %s: %s" % (name, type(e).__name__, e))


def cases():
    ctypes.c_void_p.in_dll(gs.FAKE, "fake_launch_hook").value = \
        ctypes.cast(on_launch, ctypes.c_void_p).value
    try:
        for case in forms.CASES:
            if case in forms.NOT_ON_HOST:
                continue
            try:
                case()
            finally:
                assert not failures, failures
            print(case.__name__, "passed")
    finally:
        shutil.rmtree(gs.TMP, ignore_errors=True)


def streams_outlived():
    """Outputs of vectorize, guvectorize and reduce made on a cujit.Stream
    keep it alive (they free their memory on it); the fake driver aborts on
    a free on a destroyed stream"""
    x = np.arange(64, dtype=np.float32)
    made = []
    for run in (lambda s: forms.add_cujit(x, x, stream=s),
                lambda s: forms.dot_nb(cuda.to_device(x.reshape(8, 8).astype(np.float64)),
                                       x.reshape(8, 8).astype(np.float64), stream=s),
                lambda s: cujit.reduce(lambda a, b: a + b)(cuda.to_device(x), stream=s),
                lambda s: cuda.to_device(x, stream=s)):
        s = cujit.Stream()
        r = run(s)
        assert r.stream is s, (r.stream, s)
        made.append(r)
        del s, r
        gc.collect()
    del made
    gc.collect()
    # a handle given as an int is not kept (nothing to keep)
    r = forms.add_cujit(x, x, stream=0)
    assert r.stream == 0


def numba_streams():
    """cuda.stream() is a cujit.Stream subclass that launches and copies take
    as the C type; auto_synchronize synchronizes on exit; an output given as
    another library's device array comes back as a DeviceArray over it"""
    s = cuda.stream()
    assert isinstance(s, cujit.Stream) and type(s) is cuda.Stream
    x = np.arange(16, dtype=np.float32)
    with s.auto_synchronize() as t:
        assert t is s
        d = cuda.to_device(x, s)
        forms.add_cujit(d, d, stream=s)
        d.copy_to_host(stream=s)
    assert d.stream is s

    class Foreign:
        def __init__(self, arr):
            self._arr = arr
            self.__cuda_array_interface__ = arr.__cuda_array_interface__
    out = Foreign(cuda.device_array(16, np.float32))
    r = forms.add_nb(x, x, out=out)
    assert isinstance(r, cujit.DeviceArray) and r.base is out, (type(r), r.base)
    # an imported array takes the stream its interface names as its own
    # (Numba's consumer: an external stream), none for the default streams
    s2 = cuda.stream()
    f = Foreign(cuda.to_device(x, stream=s2))
    v = cuda.as_cuda_array(f)
    assert v.stream.external and v.stream.handle == s2.handle, v.stream
    np.testing.assert_array_equal(v.copy_to_host(), x)
    w = cuda.from_cuda_array_interface(f.__cuda_array_interface__, owner=f)
    assert w.stream.handle == s2.handle
    assert cuda.as_cuda_array(Foreign(cuda.to_device(x))).stream == 0
    d = cuda.to_device(x)
    assert cuda.as_cuda_array(d) is d


def dtype_views():
    """DeviceArray.view(dtype) (Numba's device arrays have it): NumPy's
    results for the same itemsize, a smaller and a larger one, its errors;
    datetime64 arrays reach the device as their int64 counts"""
    rng = np.random.default_rng()
    a = rng.standard_normal((3, 8)).astype(np.float32)
    d = cuda.to_device(a)
    for dt in (np.int32, np.uint8, np.float64, np.complex128):
        v = d.view(dt)
        assert v.base is d and v.dtype == np.dtype(dt) and v.shape == a.view(dt).shape
        assert v.gpu_data == d.gpu_data == d[1:].gpu_data == d.ptr
        np.testing.assert_array_equal(v.copy_to_host(), a.view(dt))
    for bad in (d.T, d[:, ::2]):
        try:
            bad.view(np.float64)
        except ValueError as e:
            assert "contiguous last axis" in str(e), e
        else:
            raise AssertionError("no ValueError")
    dates = np.datetime64("2005-02-01") + rng.integers(0, 9999, 50).astype("m8[D]")
    dd = cuda.to_device(dates)
    assert dd.dtype == np.int64 and dd.gpu_data != d.gpu_data
    np.testing.assert_array_equal(dd.view(np.int64).copy_to_host(), dates.view(np.int64))


if __name__ == "__main__":
    globals()[sys.argv[1]]()
    print("%s ok" % sys.argv[1])
