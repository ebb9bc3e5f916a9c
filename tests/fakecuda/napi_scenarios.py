"""Numba's host API and dispatcher surface in cujit.cuda, against the fake
libcuda (fakecuda.c), each scenario in a fresh process started by
tests/test_numba_host_api.py:

    python napi_scenarios.py NAME

Launches do nothing there, so what is checked is what reaches the driver:
kernels compiled and loaded (NVRTC for real), the function attributes the
fake answers, the carveout set at load, the views made of foreign memory,
and the CUDA C++ of kernels that read device arrays as globals (their
address, shape and strides baked in, the arrays kept alive)."""
import ctypes
import gc
import sys
import weakref

import numpy as np

import cujit
from cujit import _cujit as C
from cujit import cuda

FAKE = ctypes.CDLL("libcuda.so.1")
RNG = np.random.default_rng()


class Foreign:
    """An array of another library: only an instance attribute
    __cuda_array_interface__ (as numba's test helper ForeignArray has)."""

    def __init__(self, arr):
        self._arr = arr
        self.__cuda_array_interface__ = arr.__cuda_array_interface__


def expect(exc, fn, *text):
    try:
        fn()
    except exc as e:
        for t in text:
            assert t in str(e), (t, str(e))
        return e
    raise AssertionError(f"no {exc.__name__}")


@cuda.jit
def add_one(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] += 1


def attributes():
    """get_*(): per signature, all signatures (a dict that takes Numba's
    spellings of a signature) and the specialized dispatcher's int."""
    x = cuda.to_device(RNG.random(16).astype(np.float32))
    add_one[1, 16](x)
    sig = add_one.signatures[0]
    assert add_one.get_regs_per_thread(sig) == 16          # the fake's values
    assert add_one.get_max_threads_per_block(sig) == 1024
    assert add_one.get_shared_mem_per_block(sig) == 0
    assert add_one.get_local_mem_per_thread(sig) == 0
    assert add_one.get_const_mem_size(sig) == 0
    every = add_one.get_regs_per_thread()
    assert every == {sig: 16}
    assert every[(cuda.float32[::1],)] == 16               # argument types as the key
    assert every[cuda.void(cuda.float32[::1]).args] == 16

    @cuda.jit("void(float64[::1])")
    def spec(x):
        x[0] = 1
    assert spec.specialized and spec.get_regs_per_thread() == 16
    expect(RuntimeError, lambda: spec.specialize(cuda.float32[::1]),
           "Dispatcher already specialized")


def explicit_signatures():
    """A dispatcher with signatures compiles no other: arguments go to the
    best signature (numbers converted), through Python once per argument
    types; TypeError when none takes them."""
    @cuda.jit("void(float32[:], int32)")
    def k(x, n):
        i = cuda.grid(1)
        if i < n:
            x[i] = n
    calls = []
    resolve = type(k)._resolve_args

    def counting(self, *a):
        calls.append(a)
        return resolve(self, *a)
    type(k)._resolve_args = counting
    try:
        x = cuda.to_device(np.zeros(10, np.float32))
        for _ in range(3):
            k[1, 10](x, 10)                     # C array, Python int: once
        k[1, 10](x, np.int64(3))                # the same key: no resolution
        k[1, 10](x[::2], np.int32(5))           # another layout: once more
        k[1, 10](np.zeros(10, np.float32), 2)   # host array: the device one's key
        k[1, 10](x, (1 << 31) | 5)              # out of int32: wraps, as Numba's launch
        assert len(calls) == 2, calls
        assert k.signatures == ["(float32[:], int32)"]
        expect(TypeError, lambda: k[1, 10](cuda.to_device(np.zeros(10)), 2),
               "No matching definition", "array(float64, 1d, C)")
        assert k.signatures == ["(float32[:], int32)"]
    finally:
        type(k)._resolve_args = resolve
    none = cuda.jit(lambda: None)
    none.compile(())                            # Numba's empty tuple of types
    assert none.signatures == ["()"]
    expect(TypeError, lambda: cuda.jit(k.py_func).compile(()), "the signature gives 0")


def carveout():
    """shared_memory_carveout= reaches cuFuncSetAttribute at load; the fake
    refuses what the driver refuses."""
    for c in ("MaxL1", "MaxShared", "default", 0, 50, 100, -1):
        @cuda.jit(shared_memory_carveout=c)
        def k(x):
            x[0] = 1
        k[1, 1](cuda.device_array(1, np.float32))
        assert k.get_regs_per_thread(k.signatures[0]) == 16
    FAKE.fake_fault_set(b"cuFuncSetAttribute", 1, 1)

    @cuda.jit(shared_memory_carveout=25)
    def bad(x):
        x[0] = 1
    expect(cujit.CudaError, lambda: bad[1, 1](cuda.device_array(1, np.float32)),
           "carveout", "bad")
    bad[1, 1](cuda.device_array(1, np.float32))            # the next load works


def foreign_arrays():
    """as_cuda_array / from_cuda_array_interface view foreign memory without
    a copy and keep its owner alive; kernels take foreign arrays whose
    interface is an instance attribute."""
    h = RNG.random(10)
    d = cuda.to_device(h)
    f = Foreign(d)
    assert cuda.is_cuda_array(f) and not cuda.is_cuda_array(h)
    w = cuda.as_cuda_array(f)
    assert isinstance(w, cuda.cudadrv.devicearray.DeviceNDArray)
    assert w.ptr == d.ptr and w.base is f and w.shape == (10,) and w.dtype == h.dtype
    assert w.device_ctypes_pointer.value == d.ptr
    np.testing.assert_array_equal(w.copy_to_host(), h)     # device memory is host memory here
    assert cuda.as_cuda_array(d) is d
    v = cuda.from_cuda_array_interface(d[::2].__cuda_array_interface__, owner=d)
    assert v.shape == (5,) and v.strides == (16,) and v.alloc_size == 40
    assert d[::2].alloc_size == d.alloc_size == 80
    np.testing.assert_array_equal(v.copy_to_host(), h[::2])
    masked = dict(d.__cuda_array_interface__, mask=d)
    expect(NotImplementedError, lambda: cuda.from_cuda_array_interface(masked),
           "Masked arrays are not supported")
    expect(TypeError, lambda: cuda.as_cuda_array(h), "__cuda_array_interface__")
    add_one[1, 10](Foreign(cuda.to_device(np.zeros(10, np.float32))))
    add_one(1, 10, (cuda.to_device(np.zeros(10, np.float32)),))   # cupyx.jit's form
    add_one.forall(10)(w.astype(np.float32))
    owner = Foreign(cuda.to_device(np.zeros(3)))
    ref = weakref.ref(owner)
    view = cuda.as_cuda_array(owner)
    del owner
    gc.collect()
    assert ref() is not None                               # the view keeps it
    del view
    gc.collect()
    assert ref() is None
    # CUDA IPC: ipc_scenarios.py


def no_transfer_for_device_data():
    """A ufunc of Numba's spelling given device data copies nothing between
    host and device (numba-cuda's test_no_transfer_for_device_data, counted
    by the fake driver instead of mocked)."""
    def count():
        return [ctypes.c_longlong.in_dll(FAKE, n).value for n in ("fake_htod", "fake_dtoh")]
    noise = cuda.to_device(RNG.standard_normal((1, 3, 64, 64)).astype(np.float32))
    for vec in (cuda.vectorize, lambda s: cujit.vectorize(s, target="cuda")):
        @vec(["float32(float32)"])
        def func(v):
            return v + 1.0
        before = count()
        r = func(noise)
        assert count() == before, (count(), before)
        assert isinstance(r, cujit.DeviceArray) and r.shape == noise.shape


def two_args(x, y):
    x[0] = y[0]


def gu_sum(x, r):
    r[0] = 0
    for i in range(x.shape[0]):
        r[0] += x[i]


def launch_sync():
    """A cuda.jit launch synchronizes the stream a foreign array's
    __cuda_array_interface__ names, once per such argument (Numba's
    consumer rule), through Stream.synchronize; not with
    CUDA_ARRAY_INTERFACE_SYNC off, not for an interface without a stream,
    and not for cujit's own kernels (their launch stream waits instead)."""
    import os
    from cujit import jit
    calls = []
    real = cuda.Stream.synchronize

    def spy(self):
        calls.append(int(self))
        return real(self)
    cuda.Stream.synchronize = spy
    s1, s2 = cuda.stream(), cuda.stream()
    h1, h2 = int(cuda.external_stream(s1.handle)), int(cuda.external_stream(s2.handle))
    a = Foreign(cuda.device_array(10, np.float32, stream=s1))
    b = Foreign(cuda.device_array(10, np.float32, stream=s2))
    assert a.__cuda_array_interface__["stream"] == h1 != h2
    k = cuda.jit(two_args)
    k[1, 1](a, b)
    assert calls == [h1, h2], calls
    del calls[:]
    k[1, 1](Foreign(cuda.device_array(10, np.float32)), b)     # stream None: only b's
    assert calls == [h2], calls
    del calls[:]
    jit.rawkernel()(two_args)[1, 1](a, b)
    assert calls == [], calls
    os.environ["NUMBA_CUDA_ARRAY_INTERFACE_SYNC"] = "0"
    k[1, 1](a, b)
    assert calls == [], calls
    del os.environ["NUMBA_CUDA_ARRAY_INTERFACE_SYNC"]
    k[1, 1](b, a)
    assert calls == [h2, h1], calls
    del calls[:]
    inc = cuda.vectorize(["float32(float32)"])(lambda v: v + 1)
    inc(a)                                      # Numba's ufuncs: inputs and out=
    inc(cuda.device_array(10, np.float32), out=b)
    assert calls == [h1, h2], calls
    del calls[:]
    gsum = cuda.guvectorize(["void(float32[:], float32[:])"], "(n)->()")(gu_sum)
    gsum(a, Foreign(cuda.device_array(1, np.float32, stream=s2)))
    assert calls == [h1, h2], calls
    del calls[:]
    cujit.vectorize(["float32(float32)"])(lambda v: v + 1)(a)  # cujit's own: a wait only
    assert calls == [], calls
    cuda.Stream.synchronize = real


def host_api():
    """gpus, current_context, the built-in streams, cudadrv's names."""
    assert len(cuda.gpus) == cujit.device_count() >= 1
    g0 = cuda.gpus[0]
    with g0:
        assert cuda.gpus.current.id == 0
        ctx = cuda.current_context()
        assert ctx.device.id == 0
        free, total = ctx.get_memory_info()
        assert 0 < free <= total and ctx.get_memory_info().total == total
        ctx.synchronize()
        ctx.reset()
    assert [g.id for g in cuda.gpus] == list(range(len(cuda.gpus)))
    expect(IndexError, lambda: cuda.gpus[len(cuda.gpus)], "GPUs")
    for s, h in ((cuda.default_stream(), 0), (cuda.legacy_default_stream(), 1),
                 (cuda.per_thread_default_stream(), 2)):
        assert int(s.handle) == h
        s.synchronize()
        add_one[1, 4, s](cuda.to_device(np.zeros(4, np.float32)))
    s = cuda.stream()
    a = cuda.device_array(4, np.float32, stream=s)
    assert a.stream is s and cuda.device_array(4).stream == 0
    e = cuda.external_stream(s.handle)
    assert e.handle == s.handle and e.external
    assert cuda.cudadrv.driver.CudaAPIError is cujit.CudaError
    assert cuda.is_bfloat16_supported() == (
        tuple(cuda.get_current_device().compute_capability) >= (8, 0))
    assert cuda.mapped_array_like(np.zeros((2, 3), np.int16)).shape == (2, 3)
    f = cuda.device_array((10, 12), order="F")
    assert f.flags["F_CONTIGUOUS"] and not f.flags["C_CONTIGUOUS"] and f.flags["OWNDATA"]
    for like in (cuda.device_array_like, cuda.pinned_array_like, cuda.mapped_array_like):
        assert like(f).strides == (8, 80)                     # Fortran, as f
        assert like(f[::2, ::2]).strides == (8, 40)           # a view of F: F
        assert like(f[::2, ::2].T).strides == (40, 8)         # its transpose: C
        assert like(cuda.device_array((10, 12))[::2, ::2].T).strides == (40, 8)
        assert like(cuda.device_array((4, 5))).strides == (40, 8)

    # Numba's device listing, profiler switches (cuProfilerStart/Stop, counted
    # by the fake), defer_cleanup and Device.reset (memory back, arrays kept)
    assert [d.id for d in cuda.list_devices()] == [g.id for g in cuda.gpus]
    major, minor = cuda.runtime.get_version()
    assert (major, minor) == C._nvrtc_version() and major >= 11
    assert cuda.cudadrv.runtime is cuda.runtime

    def profiled():
        return [ctypes.c_int.in_dll(FAKE, n).value
                for n in ("fake_profiler_starts", "fake_profiler_stops")]
    before = profiled()
    cuda.profile_start()
    cuda.profile_stop()
    with cuda.profiling():
        add_one[1, 4](cuda.to_device(np.zeros(4, np.float32)))
    assert [x - y for x, y in zip(profiled(), before)] == [2, 2]
    h = RNG.standard_normal(64).astype(np.float32)
    kept = cuda.to_device(h)
    with cuda.defer_cleanup():
        tmp = cuda.to_device(h)
        del tmp
    cuda.get_current_device().reset()
    np.testing.assert_array_equal(kept.copy_to_host(), h)


def in_out_and_extensions():
    """cuda.In / Out / InOut and Dispatcher.extensions (prepare_args)."""
    seen = []

    class Wrap:
        def prepare_args(self, ty, val, stream=0, retr=None):
            seen.append(type(val).__name__)
            return ty, (cuda.In(val) if isinstance(val, np.ndarray) else val)

    @cuda.jit
    def k(x):
        x[0] = 3
    h = np.zeros(2, np.int64)
    k[1, 1](cuda.InOut(h))
    k[1, 1](cuda.In(h))
    k[1, 1](cuda.Out(h))
    k.extensions.append(Wrap())
    assert type(k).__name__ == "_ExtDispatcher" and isinstance(k, cuda.Dispatcher)
    k[1, 1](h)
    k[1, 1, 0, 0](h)
    assert seen == ["ndarray", "ndarray"], seen
    assert cuda.jit(extensions=[Wrap()])(k.py_func).extensions


def captured_globals():
    """A device array read as a global (directly or through a device
    function): address, shape and strides are in the CUDA; the kernel keeps
    the array alive; a new array under the same name is a new kernel's."""
    global G, G0
    G = cuda.to_device(RNG.random((3, 4)).astype(np.float32))
    G0 = cuda.to_device(np.array(7, np.int32))
    ref = weakref.ref(G)

    @cuda.jit(device=True)
    def read(i, j):
        return G[i, j]

    @cuda.jit
    def k(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = read(i // 4, i % 4) + G0[()] + G.shape[1]
            G[i // 4, i % 4] = 0

    out = cuda.device_array(12, np.float32)
    k[1, 12](out)
    src = k.inspect_cuda(k.signatures[0])
    assert f"(float *)0x{G.ptr:x}ULL, {{3, 4}}, {{16, 4}}" in src, src
    assert f"(int *)0x{G0.ptr:x}ULL}}" in src, src
    G = None
    gc.collect()
    assert ref() is not None                        # the kernel keeps it
    v = cuda.to_device(RNG.random(8))[::2]          # a strided view of another array
    G = Foreign(v)

    @cuda.jit
    def k2(out):
        out[0] = G[3]
    k2[1, 1](cuda.device_array(1))
    assert f"0x{v.ptr:x}ULL, {{4}}, {{16}}" in k2.inspect_cuda(k2.signatures[0])
    del k
    gc.collect()
    assert ref() is None                            # ... and no longer

    G = Foreign(cuda.to_device(np.zeros(2)))
    G.__cuda_array_interface__ = dict(G.__cuda_array_interface__, typestr="|V8",
                                      descr=[("", "|V8")])

    @cuda.jit
    def k3(out):
        out[0] = G[0]
    expect(cujit.CompileTypeError, lambda: k3[1, 1](cuda.device_array(1)),
           "device array of dtype |V8")



def numba_host_rules():
    """Arrays made through cujit.cuda follow Numba's DeviceNDArray on the
    host (the fake's device memory is host memory, so copies are real): an
    element read is a NumPy scalar of the dtype, iteration gives scalars,
    np.asarray copies; views inherit the rules; cujit's own arrays keep
    CuPy's (a 0-d view, no implicit conversion)."""
    h = RNG.standard_normal((4, 3)).astype(np.float32)
    d = cuda.to_device(h)
    x = d[2, 1]
    assert type(x) is np.float32 and x == h[2, 1]
    assert [type(v) for v in d[1]] == [np.float32] * 3
    np.testing.assert_array_equal([v for v in d[:, 2]], h[:, 2])
    np.testing.assert_array_equal(np.asarray(d), h)
    np.testing.assert_array_equal(np.asarray(d[1:, ::2], dtype=np.float64),
                                  h[1:, ::2].astype(np.float64))
    np.testing.assert_equal(d, h)                       # Numba's tests compare like this
    expect(ValueError, lambda: d.__array__(copy=False), "copy=False")
    assert isinstance(d[1:], cujit.DeviceArray) and d[1:]._numba
    e = cuda.device_array_like(d)
    assert e._numba and cuda.device_array(5, np.int16)._numba
    own = cujit.to_device(h)
    assert not own._numba and isinstance(own[0, 0], cujit.DeviceArray)
    expect(TypeError, lambda: np.asarray(own), "implicit conversion")
    w = cuda.as_cuda_array(own)
    assert w._numba and w.ptr == own.ptr and not own._numba
    assert cuda.as_cuda_array(d) is d
    i = cuda.to_device(np.arange(7, dtype=np.int64))
    assert type(i[-1]) is np.int64 and i[-1] == 6


def device_array_methods():
    """Numba's DeviceNDArray methods beside cujit's: is_c_contiguous /
    is_f_contiguous, split into views (the last one shorter), bind to a stream
    (later copies default to it), getitem / setitem on a stream; split's
    errors."""
    h = RNG.standard_normal(10).astype(np.float64)
    d = cuda.to_device(h)
    assert d.is_c_contiguous() and d.is_f_contiguous()
    m = cuda.to_device(RNG.standard_normal((4, 6)).astype(np.float32))
    assert m.is_c_contiguous() and not m.is_f_contiguous()
    assert not m[:, ::2].is_c_contiguous() and m.T.is_f_contiguous()
    parts = d.split(3)
    assert [p.shape for p in parts] == [(3,), (3,), (3,), (1,)]
    assert all(p._numba for p in parts)
    np.testing.assert_array_equal(np.concatenate([p.copy_to_host() for p in parts]), h)
    parts[1][0] = 42.0                      # views: the array sees the write
    assert d.copy_to_host()[3] == 42.0
    assert [p.shape for p in d.split(5)] == [(5,), (5,)] and d.split(20)[0].shape == (10,)
    expect(ValueError, lambda: m.split(2), "1-d contiguous", "ravel()")
    expect(ValueError, lambda: d[::2].split(2), "not contiguous")
    expect(ValueError, lambda: d.split(0), "positive")
    s = cuda.stream()
    b = d.bind(s)
    assert b.stream is s and b.ptr == d.ptr and b.shape == d.shape
    np.testing.assert_array_equal(b.copy_to_host(), d.copy_to_host())
    assert d.getitem(4, stream=s) == h[4] and type(d.getitem(4)) is np.float64
    np.testing.assert_array_equal(d.getitem(slice(6, 9)).copy_to_host(), h[6:9])
    d.setitem(7, -1.5, stream=s)
    s.synchronize()
    assert d.copy_to_host()[7] == -1.5


if __name__ == "__main__":
    globals()[sys.argv[1]]()
    print("%s ok" % sys.argv[1])
