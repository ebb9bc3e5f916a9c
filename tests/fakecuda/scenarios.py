"""Runtime scenarios run against the fake libcuda (fakecuda.c), each in a
fresh process started by tests/test_runtime_nogpu.py:

    python scenarios.py NAME

Device memory is host memory there, so everything but real kernels can be
checked: arrays and views, copies, exports (CAI, DLPack), imports from every
kind of array, streams, events, devices, kernel loading through NVRTC and the
disk cache, error records, and that every allocation is given back."""
import ctypes
import gc
import os
import sys

import numpy as np

import cujit
from cujit import _cujit as C

FAKE = ctypes.CDLL("libcuda.so.1")
SCALE2 = ('extern "C" __global__ void scale2(float *x, long long n)'
          '{ long long i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2; }')
FAIL = ('struct R { int v[16]; }; __device__ R cj_error;\n'
        'extern "C" __global__ void fail() { cj_error.v[0] = 1; }')
CRASH = 'extern "C" __global__ void crash() { }'
RNG = np.random.default_rng()


def counter(name):
    return ctypes.c_longlong.in_dll(FAKE, name).value


def rand(*shape, dtype=np.float32):
    return RNG.random(shape).astype(dtype)


# ---- mock producers of each kind rt_get_array reads ----

class CAI:
    def __init__(self, a, stream=None):
        self.a, self.s = a, stream

    @property
    def __cuda_array_interface__(self):
        d = dict(self.a.__cuda_array_interface__)
        d["stream"] = self.s
        return d


class DL:
    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


class DLVersioned(DL):
    def __dlpack__(self, stream=None):
        return self.a.__dlpack__(stream=stream, max_version=(1, 0))


class _Mem:
    def __init__(self, p):
        self.ptr = p


class CupyLike(type("ndarray", (), {"__module__": "cupy"})):
    def __init__(self, a):
        self.data, self.shape, self.strides, self.dtype = _Mem(a.ptr), a.shape, a.strides, a.dtype


class TorchLike(type("Tensor", (), {"__module__": "torch"})):
    is_cuda = True

    def __init__(self, a):
        self.a, self.shape, self.dtype = a, a.shape, a.dtype

    def data_ptr(self):
        return self.a.ptr

    def stride(self):
        return tuple(s // self.a.itemsize for s in self.a.strides)


def arrays():
    h = rand(5, 4)
    d = cujit.to_device(h)
    assert d.shape == (5, 4) and d.strides == (16, 4) and d.dtype == np.float32
    assert (d.size, d.ndim, d.nbytes, d.itemsize, len(d)) == (20, 2, 80, 4, 5)
    assert d.c_contiguous and not d.f_contiguous and d.base is None
    assert (d.copy_to_host() == h).all() and (cujit.asnumpy(d) == h).all()
    for key in (np.s_[1:4, ::2], np.s_[3], np.s_[2, 1:], np.s_[::-1, ::-2], np.s_[..., None, 1],
                np.s_[-1], np.s_[:, -2], np.s_[1:1]):
        v = d[key]
        assert v.base is d and v.shape == h[key].shape, key
        assert (v.copy_to_host() == h[key]).all(), key
    assert d[1:4, ::2].strides == (16, 8) and not d[1:4, ::2].c_contiguous
    assert d[1, 2].item() == float(h[1, 2]) == float(d[1, 2])
    assert [x.item() for x in cujit.to_device(np.arange(3))] == [0, 1, 2]
    out = np.empty((5, 4), np.float32)
    assert d.copy_to_host(out) is out and (out == h).all()
    # writes the driver does alone: numbers into contiguous views (a memset),
    # host data into contiguous views (one copy); strided views take a kernel
    # of the stdlib (stdlib_scenarios.py writes, tests/gpu for values)
    d[1:3] = 9.5
    h[1:3] = 9.5
    d[0] = np.arange(4)
    h[0] = np.arange(4)
    d[3:] = rand(4, 2)[::-1].T
    h[3:] = d[3:].copy_to_host()
    assert (d.copy_to_host() == h).all()
    d2 = cujit.empty_like(d)
    d2.copy_to_device(d)
    assert (d2.copy_to_host() == h).all()
    d2.copy_to_device(h[::-1])
    assert (d2.copy_to_host() == h[::-1]).all()
    dtod = counter("fake_dtod")
    assert (d.copy().copy_to_host() == h).all() and (d[1:3].copy().copy_to_host() == h[1:3]).all()
    f = d.T.copy(order="F")
    assert f.f_contiguous and (f.copy_to_host() == h.T).all()
    assert counter("fake_dtod") == dtod + 3             # device-to-device copies
    # creation
    assert (cujit.zeros((3, 4), dtype="f4").copy_to_host() == 0).all()
    assert (cujit.ones(5, dtype=np.complex64).copy_to_host() == 1).all()
    f = cujit.full((2, 3), 7)
    assert f.dtype == np.int64 and (f.copy_to_host() == 7).all()
    assert (cujit.full(3, 2.5, dtype=np.float16).copy_to_host() == 2.5).all()
    assert (cujit.full(4, 1 - 2j).copy_to_host() == 1 - 2j).all()
    assert (cujit.full(3, 2**64 - 1, dtype=np.uint64).copy_to_host() == 2**64 - 1).all()
    assert (cujit.full(2, np.float32(1.25)).copy_to_host() == 1.25).all()
    assert cujit.full(2, np.float32(1.25)).dtype == np.float32
    assert (cujit.full(3, True).copy_to_host() == True).all()           # noqa: E712
    assert (cujit.ones_like(d).copy_to_host() == 1).all()
    assert (cujit.full_like(h, 3).copy_to_host() == 3).all()
    assert cujit.zeros_like(h, dtype=np.int8).dtype == np.int8
    assert cujit.empty((2, 3), order="F").strides == (8, 16)
    assert cujit.empty_like(cujit.empty((2, 3), order="F")).strides == (8, 16)
    assert cujit.empty(0).size == 0 and cujit.empty((3, 0)).copy_to_host().shape == (3, 0)
    for dt, name in (("f4", "float32"), (np.int16, "int16"), (bool, "bool"), (float, "float64"),
                     (int, "int64"), ("complex128", "complex128"), (np.dtype("u4"), "uint32"),
                     ("e", "float16"), ("<i8", "int64")):
        assert cujit.empty(1, dtype=dt).dtype == np.dtype(name), dt
    for obj in ([1, 2, 3], 5, np.float32(1.5), np.array([True, False]),
                np.arange(4, dtype=np.float16), rand(3, 4)[::2, ::-1], np.asfortranarray(rand(3, 2))):
        a = np.asarray(obj)
        t = cujit.to_device(obj)
        assert t.dtype == a.dtype and t.shape == a.shape and (t.copy_to_host() == a).all()
    fo = np.asfortranarray(rand(3, 5))
    assert cujit.to_device(fo).strides == fo.strides        # Fortran order kept
    # repr
    assert repr(cujit.to_device(np.arange(3, dtype=np.int32))) == \
        "DeviceArray([0, 1, 2], dtype=int32)"
    assert repr(cujit.empty((2000, 3))) == "DeviceArray(shape=(2000, 3), dtype=float64)"
    # CAI v3 export
    cai = d.__cuda_array_interface__
    assert cai["version"] == 3 and cai["typestr"] == "<f4" and cai["shape"] == (5, 4)
    # the default stream names no stream (None), as Numba's arrays do
    assert cai["strides"] is None and cai["data"] == (d.ptr, False) and cai["stream"] is None
    assert d[::2].__cuda_array_interface__["strides"] == (32, 4)
    assert cujit.to_device(np.zeros(2, bool)).__cuda_array_interface__["typestr"] == "|b1"
    # DLPack export
    assert d.__dlpack_device__() == (2, 0)
    assert "dltensor" in repr(d.__dlpack__())
    assert "dltensor_versioned" in repr(d.__dlpack__(max_version=(1, 0)))
    assert "dltensor" in repr(d.__dlpack__(stream=-1))
    print("arrays ok")


def errors():
    d = cujit.to_device(rand(3, 4))
    expect = [
        (lambda: d[1, 2, 3], IndexError, "too many indices"),
        (lambda: d[5], IndexError, "out of bounds"),
        (lambda: d[[1, 2]], IndexError, "basic indexing"),
        (lambda: d[True], IndexError, "basic indexing"),
        (lambda: cujit.full(3, 300, dtype=np.int8), OverflowError, "out of bounds for int8"),
        (lambda: cujit.full(3, -1, dtype=np.uint8), OverflowError, "out of bounds for uint8"),
        (lambda: cujit.empty(-1), ValueError, "negative"),
        (lambda: cujit.empty(3, dtype="object"), TypeError, ""),
        (lambda: cujit.empty(3, order="X"), ValueError, "order"),
        (lambda: np.asarray(d), TypeError, "copy_to_host"),
        (lambda: len(d[0, 0]), TypeError, "unsized"),
        (lambda: bool(d), ValueError, "ambiguous"),
        (lambda: cujit.Device(5), ValueError, "invalid device 5"),
        (lambda: d.copy_to_device(np.zeros((2, 2))), ValueError, "broadcast"),
        (lambda: d.copy_to_host(np.zeros((3, 4))), ValueError, "do not match"),
        (lambda: d.__dlpack__(dl_device=(1, 0)), BufferError, ""),
        (lambda: C._launch_raw(SCALE2, "scale2", 1, 32, ("x", 0)), TypeError, ""),
        (lambda: C._launch_raw(SCALE2, "scale2", 1, 32, (object(), 0)), TypeError, ""),
        (lambda: C._launch_raw(SCALE2, "scale2", 1, 32, (np.zeros(3, object), 0)), TypeError,
         "argument 0"),
        (lambda: cujit.Stream(non_blocking=True).wait_event(1), TypeError, "cujit.Event"),
        (lambda: C._launch_raw(SCALE2, "scale2", 1, 32, (d, 0), stream="s"), TypeError,
         "expected a stream"),
    ]
    for fn, exc, text in expect:
        try:
            fn()
        except exc as e:
            assert text in str(e), (text, str(e))
        else:
            raise AssertionError("no %s for %s" % (exc.__name__, text))
    print("errors ok")


def imports():
    h = rand(3, 4)
    d = cujit.to_device(h)
    for wrap in (CAI, DL, DLVersioned, CupyLike, TorchLike):
        for view in (d, d[1:, ::2], d[::-1]):
            w = wrap(view)
            exp = view.copy_to_host()
            got = cujit.asnumpy(w)
            assert got.shape == exp.shape and (got == exp).all(), wrap
            t = cujit.to_device(w)      # strided: a copy kernel (values in tests/gpu)
            assert t.shape == exp.shape and t.dtype == exp.dtype and t.c_contiguous, wrap
            assert view is not d or (t.copy_to_host() == exp).all(), wrap
            z = cujit.zeros_like(w)
            assert z.shape == exp.shape and z.dtype == exp.dtype, wrap
        x = cujit.to_device(np.arange(8, dtype=np.float32))
        C._launch_raw(SCALE2, "scale2", 1, 32, (wrap(x), 8))
        assert (x.copy_to_host() == 2 * np.arange(8)).all(), wrap
    # a CAI producer's stream: the launch stream is made to wait for it
    s = cujit.Stream()
    x = cujit.to_device(np.arange(8, dtype=np.float32))
    waits = counter("fake_waits")
    C._launch_raw(SCALE2, "scale2", 1, 32, (CAI(x, stream=1), 8))        # same stream
    assert counter("fake_waits") == waits
    C._launch_raw(SCALE2, "scale2", 1, 32, (CAI(x, stream=s.handle), 8))
    assert counter("fake_waits") == waits + 1
    # host data: copied in and back (contiguous, strided, read-only, F order)
    for h in (rand(10), rand(20)[::2], np.asfortranarray(rand(2, 5))):
        h0 = h.copy()
        C._launch_raw(SCALE2, "scale2", 1, 32, (h, 10))
        assert np.allclose(h, 2 * h0)
    big = rand(20)
    big0 = big.copy()
    C._launch_raw(SCALE2, "scale2", 1, 32, (big[::2], 10))
    assert np.allclose(big[::2], 2 * big0[::2]) and (big[1::2] == big0[1::2]).all()
    r = rand(10)
    r0 = r.copy()
    r.flags.writeable = False
    C._launch_raw(SCALE2, "scale2", 1, 32, (r, 10))
    assert (r == r0).all()
    print("imports ok")


def streams():
    s = cujit.Stream()
    nb = cujit.Stream(non_blocking=True)
    assert s.handle == s.ptr != 0 and s.__cuda_stream__() == (0, s.handle)
    e1, e2 = cujit.Event(), cujit.Event(timing=True, blocking=True)
    e1.record()
    y = cujit.ones(1000, stream=s)
    e2.record(s)
    e2.synchronize()
    assert e1.elapsed_time(e2) >= 0 and e2.query() and s.query()
    s.synchronize()
    s.wait_event(e1)
    e1.wait(nb)
    assert y.__cuda_array_interface__["stream"] == s.handle

    class TorchStream:
        cuda_stream = 0

    class CupyStream:
        ptr = 0

    class Protocol:
        def __cuda_stream__(self):
            return (0, nb.handle)

    for so in (None, 0, 1, s, TorchStream(), CupyStream(), Protocol()):
        C._launch_raw(SCALE2, "scale2", 1, 32, (y, 0), stream=so)
    del s                       # y keeps its stream alive until it goes
    gc.collect()
    assert (y.copy_to_host() == 1).all()
    del y
    cujit.synchronize()
    print("streams ok")


def devices():
    assert cujit.is_available()
    d0 = cujit.get_device()
    assert d0.id == 0 and d0 == cujit.Device(0) and d0.name == "Fake GPU 0"
    assert d0.compute_capability == (9, 0) and d0.arch == "sm_90"
    assert cujit.Device(1).compute_capability == (8, 6) and int(cujit.Device(1)) == 1
    assert d0.total_memory > 0 and d0.multiprocessor_count == 132
    with cujit.Device(1) as dv:
        assert cujit.get_device() == dv
        a1 = cujit.ones(4)
        assert a1.device.id == 1
        with cujit.Device(0):
            assert cujit.get_device().id == 0
            b = cujit.zeros(2)
        assert cujit.get_device().id == 1
        del b                   # freed from device 1's context
    assert cujit.get_device().id == 0
    assert (a1.copy_to_host() == 1).all()
    del a1                      # freed from device 0's context
    cujit.Device(1).synchronize()
    cujit.Device(1).use()
    assert cujit.get_device().id == 1
    cujit.Device(0).use()
    info = cujit.memory_info()
    assert info["device"] == 0 and info["total"] > 0
    cujit.release_memory()
    print("devices ok")


def no_leaks():
    def work():
        d = cujit.to_device(rand(5, 6))
        v = d[1:, ::2]
        v.copy_to_host()
        repr(v)
        del v
        cap = d.__dlpack__(max_version=(1, 0))
        del cap
        cujit.asnumpy(DL(d))
        C._launch_raw(SCALE2, "scale2", 1, 32, (rand(10)[::2], 4))
        C._launch_raw(SCALE2, "scale2", 1, 32, (DL(d), 4))
        cujit.full((3, 3), 1 + 2j).copy_to_host()
        d[1:3] = 5
        with cujit.Device(1):
            cujit.ones(3)
        s = cujit.Stream()
        cujit.empty(10, stream=s)

    work()
    gc.collect()
    live = counter("fake_allocs") - counter("fake_frees")
    for _ in range(200):
        work()
    gc.collect()
    assert counter("fake_allocs") - counter("fake_frees") == live
    assert cujit.memory_info()["used"] == 0
    print("no_leaks ok")


def kernels():
    """Loads through NVRTC and the disk cache; run twice: compile, then hit."""
    first = sys.argv[2] == "first"
    hit, rec = C._launch_raw(SCALE2, "scale2", 1, 32, (cujit.zeros(4), 4))
    assert rec is None and hit == (0 if first else 1), hit
    assert C._launch_raw(SCALE2, "scale2", 1, 32, (cujit.zeros(4), 4))[0] == 2     # in memory
    hit, rec = C._launch_raw(FAIL, "fail", 1, 1, ())
    assert rec is not None and rec[:2] == (1, 42) and rec[4] == (3, 0, 0) and rec[5] == (5, 0, 0)
    info = cujit.cache_info()
    assert info["enabled"] and info["entries"] >= 2
    assert (info["hits"], info["misses"]) == ((0, 2) if first else (2, 0)), info
    print("kernels ok", info)


def fast_compile():
    """Elementwise forms compile with NVRTC's --Ofast-compile=min unless
    CUJIT_FAST_COMPILE=0; reductions never do.  CUJIT_LOG names the option."""
    @cujit.vectorize
    def f(a, b):
        return a * b + 1.0

    @cujit.reduce(identity=0)
    def add(a, b):
        return a + b
    x = cujit.to_device(rand(64))
    f(x, x)
    add(x)
    info = cujit.cache_info()
    assert (info["hits"], info["misses"]) == (0, 2), info
    print("fast_compile ok", info)


def first_call_log():
    """CUJIT_LOG: one line per first call, with its launch; none for the
    second call; compile() prints its line without a launch."""
    from cujit import jit

    @jit.rawkernel()
    def saxpy(a, x, y, out):
        i = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x
        if i < out.size:
            out[i] = a * x[i] + y[i]
    x = cujit.to_device(rand(100))
    print("LAUNCH 1", file=sys.stderr, flush=True)
    saxpy[1, 128](np.float32(2), x, x, x)
    print("LAUNCH 2", file=sys.stderr, flush=True)
    saxpy[1, 128](np.float32(2), x, x, x)
    print("COMPILE", file=sys.stderr, flush=True)
    saxpy.compile("(float64, float64[::1], float64[::1], float64[::1])")
    print("END", file=sys.stderr, flush=True)
    print("first_call_log ok")


def preload():
    """The background NVRTC preload started by the first device use: a
    compilation right after it waits for it and succeeds, and so does one
    in a child forked while it may still run (no hang on its locks)."""
    import signal
    cujit.zeros(3)                      # driver init starts the preload
    pid = os.fork()
    if pid == 0:
        signal.alarm(60)
        ptx, _, _ = C._nvrtc_compile('extern "C" __global__ void k(int *x) { x[0] = 2; }', "k")
        os._exit(0 if ".entry k(" in ptx else 3)
    ptx, _, _ = C._nvrtc_compile('extern "C" __global__ void k(int *x) { x[0] = 1; }', "k")
    assert ".entry k(" in ptx
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    print("preload ok")


def front_key():
    """A kernel (calling a device function of another module), a vectorize
    and a reduce from the module in argv[2]; prints their CUDA and results
    for tests/test_runtime_nogpu.py, which runs it in fresh processes and
    reads CUJIT_LOG's front-key lines."""
    import json
    sys.path.insert(0, sys.argv[2])
    import kmod
    x = cujit.to_device(np.arange(8, dtype=np.float32))
    kmod.scale2((1,), (32,), (x, np.int64(8)))
    kmod.f(x, x)
    kmod.add(x)
    out = {"scale2": x.copy_to_host().tolist(), "cuda": kmod.scale2.inspect_cuda(),
           "f": kmod.f.inspect_cuda(), "add": kmod.add.inspect_cuda(),
           "other": kmod.other.inspect_cuda("(float32[::1])"),
           "fill2": kmod.fill2.inspect_cuda("(float32[::1])"),
           "fill7": kmod.fill7.inspect_cuda("(float32[::1])")}
    print(json.dumps(out))
    print("front_key ok")


def preload_at_definition():
    """Defining a kernel (argv[2]: kernel, device, vectorize or reduce)
    starts the NVRTC preload, before any device is used; a compilation
    then waits for it.  argv[3] == "off": CUJIT_PRELOAD_NVRTC=0 or "device"
    keep it idle until then (and "device": the first device use starts it)."""
    assert C._nvrtc_preload_state() == "idle"
    what = sys.argv[2]
    if what in ("kernel", "device"):
        cujit.jit.rawkernel(device=what == "device")(lambda x: x)
    elif what == "vectorize":
        cujit.vectorize(lambda a: a + 1)
    else:
        cujit.reduce(identity=0)(lambda a, b: a + b)
    state = C._nvrtc_preload_state()
    assert state == ("idle" if sys.argv[3] in ("off", "device") else "running") \
        or state == "done", state
    assert counter("fake_inits") == 0           # no device used yet
    if sys.argv[3] == "device":
        cujit.zeros(3)                  # the first device use starts it
        state = C._nvrtc_preload_state()
        assert state in ("running", "done"), state
    ptx, _, _ = C._nvrtc_compile('extern "C" __global__ void k(int *x) { x[0] = 1; }', "k")
    assert ".entry k(" in ptx
    print("preload_at_definition ok", state)


def sticky_error():
    C._launch_raw(SCALE2, "scale2", 1, 32, (cujit.zeros(4), 4))
    try:
        C._launch_raw(CRASH, "crash", 1, 1, ())
    except cujit.CudaError as e:
        assert "kernel 'crash' failed" in str(e) and "CUDA_ERROR_ILLEGAL_ADDRESS" in str(e), e
    else:
        raise AssertionError("no CudaError")
    try:
        cujit.synchronize()
    except cujit.CudaError as e:
        assert "CUDA_ERROR_ILLEGAL_ADDRESS" in str(e)
    else:
        raise AssertionError("no CudaError")
    print("sticky_error ok")


def no_device():
    assert not cujit.is_available()
    for fn in (lambda: cujit.zeros(3), lambda: cujit.get_device(), lambda: cujit.Stream()):
        try:
            fn()
        except cujit.CudaError as e:
            assert "cuInit failed: CUDA_ERROR_NO_DEVICE" in str(e), e
        else:
            raise AssertionError("no CudaError")
    print("no_device ok")


def no_pool():
    assert not cujit.memory_info()["pool"]
    allocs = counter("fake_allocs") - counter("fake_frees")
    d = cujit.to_device(rand(100))
    assert counter("fake_allocs") - counter("fake_frees") == allocs + 1
    del d
    assert counter("fake_allocs") - counter("fake_frees") == allocs
    print("no_pool ok")


# ---- @vectorize with Python int arguments: NumPy 2's ranges (NEP 50) ----

def _ints(dtype, n=16):
    return cujit.to_device(np.arange(n).astype(dtype))


def _numpy_error(npfunc, *args):
    """NumPy's OverflowError message for npfunc on the host (None: no error)."""
    try:
        npfunc(*args)
    except OverflowError as e:
        return str(e)
    return None


def _raises_before_launch(fn, args, message):
    """fn(*args) raises OverflowError(message) on the host: nothing launched."""
    launches = counter("fake_launches")
    try:
        fn(*args)
    except OverflowError as e:
        assert str(e) == message, (str(e), message)
    else:
        raise AssertionError("no OverflowError for %r" % (args,))
    assert counter("fake_launches") == launches


def _launches(fn, args):
    launches = counter("fake_launches")
    fn(*args)
    assert counter("fake_launches") == launches + 1


def ints_out_of_range():
    """A Python int that meets an integer array outside its dtype's range:
    NumPy's OverflowError, word for word, before launching; on either side,
    through arithmetic, bitwise, min/max, += and a device function."""
    @cujit.vectorize
    def add(a, b):
        return a + b

    @cujit.vectorize
    def radd(b, a):
        return b - a

    @cujit.vectorize
    def ops(a, b):
        return (a & b) | min(a, b)

    @cujit.vectorize
    def aug(a, b):
        a += b
        return a

    @cujit.jit.rawkernel(device=True)
    def dev_mul(x, y):
        return x * y

    @cujit.vectorize
    def via_device(a, b):
        return dev_mul(a, b) + 1.0
    u8, i8, u64 = np.dtype(np.uint8), np.dtype(np.int8), np.dtype(np.uint64)
    cases = [(add, u8, 300, np.add), (add, u8, -1, np.add), (add, i8, 128, np.add),
             (add, i8, -129, np.add), (add, u64, -1, np.add), (ops, u8, 256, np.minimum),
             (aug, i8, 200, np.add), (via_device, u8, -3, np.multiply)]
    for fn, dt, v, npfunc in cases:
        message = _numpy_error(npfunc, np.arange(4).astype(dt), v)
        assert message == "Python integer %d out of bounds for %s" % (v, dt.name), message
        _raises_before_launch(fn, (_ints(dt), v), message)
    message = _numpy_error(np.subtract, 300, np.arange(4).astype(u8))
    _raises_before_launch(radd, (300, _ints(u8)), message)
    print("ints_out_of_range ok")


def ints_in_range():
    """Values that fit launch: the edges of int8 and uint8, and int64 with 2**62."""
    @cujit.vectorize
    def add(a, b):
        return a + b
    for dt, v in ((np.int8, 127), (np.int8, -128), (np.uint8, 255), (np.uint8, 0),
                  (np.int64, 2 ** 62), (np.int64, -2 ** 62)):
        assert _numpy_error(np.add, np.arange(4).astype(dt), v) is None
        _launches(add, (_ints(dt), v))
    print("ints_in_range ok")


def ints_float_context():
    """Where the Python int meets floats, or is divided, nothing is checked
    (NumPy computes in float64 there)."""
    @cujit.vectorize
    def add(a, b):
        return a + b

    @cujit.vectorize
    def float_only(a, b):
        return a * 0.5 + b * 1.5

    @cujit.vectorize
    def div(a, b):
        return a / b

    @cujit.vectorize
    def reassigned(a, b):
        b = b - 1000
        return a + b
    _launches(add, (_ints(np.uint8), 300.0))            # a Python float: float64
    _launches(add, (_ints(np.float32), 300))
    _launches(float_only, (_ints(np.uint8), 300))
    _launches(float_only, (_ints(np.int8), -1000))
    _launches(div, (_ints(np.uint8), 300))
    _launches(reassigned, (_ints(np.uint8), 1100))      # 100 by the time it meets a
    for v in (300, -1):
        assert _numpy_error(np.add, np.arange(4, dtype=np.uint8), float(v)) is None
        assert _numpy_error(np.true_divide, np.arange(4, dtype=np.uint8), v) is None
    print("ints_float_context ok")


def ints_compare():
    """NumPy 2 compares out-of-range Python ints exactly (no error): so does
    the kernel, in 64 bits."""
    @cujit.vectorize
    def less(a, b):
        return a < b
    for v in (300, -1, 255):
        assert _numpy_error(np.less, np.arange(4, dtype=np.uint8), v) is None
        _launches(less, (_ints(np.uint8), v))
    src = "\n".join(less.inspect_cuda())
    assert "(long long)a < b" in src, src
    print("ints_compare ok")


def ints_signature():
    """An eager signature's integer input type: a Python int out of its range
    raises NumPy's OverflowError (never wraps), before compiling or launching."""
    @cujit.vectorize(["uint8(uint8, uint8)"])
    def add(a, b):
        return a + b
    for v in (300, -1, 256):
        message = _numpy_error(np.add, np.arange(4, dtype=np.uint8), v)
        assert message == "Python integer %d out of bounds for uint8" % v, message
        _raises_before_launch(add, (_ints(np.uint8), v), message)
    assert add.inspect_cuda() == []                     # nothing compiled
    _launches(add, (_ints(np.uint8), 255))
    print("ints_signature ok")


def cupy_fields():
    """CuPy arrays' fields read in place (runtime/args.c) against _fakecupy
    (fakecupy.c: CuPy's object layout, built by the test): what cujit reads
    matches the attributes while it learns the offsets, while it verifies
    them and once it reads the fields alone, for views, 0-d, empty and
    reshaped-in-place arrays, in a launch too; a type that overrides an
    attribute, or whose attributes stop matching its fields, stays on the
    attributes.  With CUJIT_CUPY_FIELDS=0 every type stays on them."""
    sys.path.insert(0, os.environ["FAKECUPY_DIR"])
    import _fakecupy as fc
    off = os.environ.get("CUJIT_CUPY_FIELDS") == "0"
    h = rand(6, 5)
    d = cujit.to_device(h)
    base = h.__array_interface__["data"][0]

    def wrap(key, cls=fc.ndarray):
        v = h[key]
        return cls(d.ptr + v.__array_interface__["data"][0] - base, v.shape, v.strides,
                   v.dtype), v

    def check(a, v, ptr=None):
        got = C._array_info(a)
        want = (d.ptr + v.__array_interface__["data"][0] - base if ptr is None else ptr,
                v.shape, v.strides, v.dtype.name)
        assert got == want, (got, want)

    def state(a, want):
        got = C._cupy_fields(a)
        assert got == ("off" if off else want), (got, want)

    a, v = wrap(np.s_[0, :4])           # (4,) with strides (4,): ambiguous
    state(a, "learning")
    check(a, v)
    state(a, "learning")
    a, v = wrap(np.s_[2, 3])            # 0-d: nothing to learn from
    check(a, v)
    state(a, "learning")
    a, v = wrap(np.s_[:, :])
    check(a, v)
    state(a, "verifying")
    keys = [np.s_[::2, 1:], np.s_[::-1, ::-2], np.s_[3], np.s_[:, 2], np.s_[1, 1], np.s_[4:4],
            np.s_[:, None, ::3], np.s_[5:, :]]
    for i in range(40):
        a, v = wrap(keys[i % len(keys)])
        check(a, v)
    state(a, "on")
    # in place: a.shape = ...
    a, v = wrap(np.s_[:, :])
    a.shape = (5, 6)
    check(a, h.reshape(5, 6))
    a.shape = (30,)
    check(a, h.reshape(30))
    try:
        C._nvrtc_version()
        have_nvrtc = True
    except Exception:   # noqa: BLE001
        have_nvrtc = False
    if have_nvrtc:
        C._launch_raw(SCALE2, "scale2", 1, 32, (a, 30))
        assert (d.copy_to_host() == 2 * h).all()
        h[...] = d.copy_to_host()
    # attributes that stop matching the fields: noticed while verifying
    b, v = wrap(np.s_[1:, :], fc.ndarray_liar)
    check(b, v)
    state(b, "verifying")
    b.set_lie(True)
    got = C._array_info(b)
    assert got[3] == "float64", got
    state(b, "off")
    b.set_lie(False)
    check(b, v)

    class Sub(fc.ndarray):
        @property
        def dtype(self):
            return np.dtype(np.int32)
    s = Sub(d.ptr, (6, 5), (20, 4), np.dtype(np.float32))
    assert C._array_info(s)[3] == "int32"
    assert C._cupy_fields(s) == "off"
    assert C._cupy_fields(d) == "not a CuPy array"
    print("cupy_fields ok")


def call_style():
    """k(grid, block, args) through vectorcall: the kept configuration holds
    the grid and block objects (and nothing else) until others come; the
    general path (keywords, stream, shared_mem) and its errors as before."""
    from cujit import jit

    @jit.rawkernel()
    def fill_index(out):
        i = jit.grid(1)
        if i < out.size:
            out[i] = i + 1

    @jit.rawkernel(device=True)
    def dev(x):
        return x
    out = cujit.zeros(200, dtype=np.int64)
    g, b = tuple([2]), tuple([16])
    r0 = sys.getrefcount(g), sys.getrefcount(b), sys.getrefcount(out)
    for _ in range(100):
        fill_index(g, b, (out,))
    assert (sys.getrefcount(g), sys.getrefcount(b), sys.getrefcount(out)) == \
        (r0[0] + 1, r0[1] + 1, r0[2])
    fill_index(tuple([1]), 8, (out,))
    assert (sys.getrefcount(g), sys.getrefcount(b), sys.getrefcount(out)) == r0
    s = cujit.Stream()
    before = counter("fake_launches")
    for _ in range(10):
        fill_index(g, b, (out,), stream=s)
        fill_index(grid=g, block=b, args=(out,), shared_mem=0)
    assert counter("fake_launches") - before == 20
    assert (sys.getrefcount(g), sys.getrefcount(b), sys.getrefcount(out)) == r0
    # cupyx.jit takes its arguments as a list too; Numba (and CuPy's
    # launcher) NumPy integers as dimensions, Numba lists of them
    fill_index([np.int64(1)], np.int32(8), [out])
    for bad, kind, text in (
            (lambda: fill_index((1,), (8,), out), TypeError, "must be given as a tuple"),
            (lambda: fill_index((1,), (2048,), (out,)), ValueError, "at most 1024 threads"),
            (lambda: fill_index(1.0, (8,), (out,)), TypeError, "grid must be an int or a tuple"),
            (lambda: fill_index([1, 2.5], (8,), (out,)), TypeError, "sequence of integers"),
            (lambda: fill_index((1,), (8,)), TypeError, "missing required argument 'args'"),
            (lambda: fill_index((1,), (8,), (out,), bogus=1), TypeError, "'bogus'"),
            (lambda: dev((1,), (1,), (1,)), TypeError, "device function")):
        try:
            bad()
        except kind as e:
            assert text in str(e), e
        else:
            raise AssertionError("no error: " + text)
    print("call_style ok")


def foreign():
    """Declared foreign functions (cuda.declare_device) on the fake driver:
    their CUDA C++ compiles into the kernel and loads; use_cooperative=True
    launches the kernel cooperatively, and so does this_grid() alone
    (Numba's rule), never a kernel without either; overloads[sig] says so
    and gives max_cooperative_grid_blocks (fake: min(2048 / threads, 32)
    blocks per SM x 132 SMs) for any shape of the same threads."""
    from cujit import cuda

    src = cuda.CUSource('''
#include <cooperative_groups.h>
extern "C" __device__ int grid_barrier(void *out) {
    cooperative_groups::this_grid().sync();
    return 0;
}
extern "C" __device__ int plus1(int *out, int a) { *out = a + 1; return 0; }
''')
    barrier = cuda.declare_device("grid_barrier", "void()", link=src, use_cooperative=True)
    plus1 = cuda.declare_device("plus1", "int32(int32)", link=src)

    @cuda.jit("void(int32[::1])")
    def coop(x):
        x[cuda.grid(1)] = 1
        barrier()

    @cuda.jit("void(int32[::1])")
    def plain(x):
        i = cuda.grid(1)
        x[i] = plus1(x[i])

    @cuda.jit
    def grid_only(x):
        x[0] = cuda.cg.this_grid().size()

    sig = (cuda.int32[::1],)
    assert coop.overloads[sig].cooperative and not plain.overloads[sig].cooperative
    x = cujit.zeros(1024, np.int32)
    launches, coops = counter("fake_launches"), counter("fake_coop_launches")
    coop[4, 256](x)
    plain[4, 256](x)
    grid_only[1, 32](x)
    assert counter("fake_coop_launches") == coops + 2
    assert counter("fake_launches") == launches + 3
    assert all(o.cooperative for o in grid_only.overloads.values())
    ov = coop.overloads[sig]
    assert ov.max_cooperative_grid_blocks(256) == 1056
    assert ov.max_cooperative_grid_blocks((16, 16)) == 1056
    assert ov.max_cooperative_grid_blocks((16, 4, 4)) == 1056
    assert ov.max_cooperative_grid_blocks(1024) == 264
    assert "cj_ext_grid_barrier" in ov.inspect_llvm() and ".entry" in ov.inspect_asm()
    assert ov.library._linking_files == []
    try:
        coop[1057, 256](x)
    except ValueError as e:
        assert "at most 1056" in str(e), e
    else:
        raise AssertionError("no error for a cooperative grid too large")
    print("foreign ok")


def cooperative():
    """A kernel that synchronises its grid (jit.cg.this_grid().sync()) goes
    through cuLaunchCooperativeKernel, after a check that its blocks fit on
    the device at once (fake: min(2048 / threads, 32) per SM x 132 SMs);
    others keep cuLaunchKernel.  FAKECUDA_NOCOOP=1: no cooperative launch."""
    from cujit import cuda, jit
    from cujit.jit import cg

    @jit.rawkernel()
    def grid_sum(x, out):
        i = jit.grid(1)
        g = cg.this_grid()
        if i < x.size:
            jit.atomic_add(out, 0, x[i])
        g.sync()
        if i < x.size:
            x[i] = out[0]

    @cuda.jit
    def numba_style(x):
        cuda.cg.this_grid().sync()
        x[0] = 1

    @jit.rawkernel()
    def block_only(x):
        b = cg.this_thread_block()
        b.sync()
        x[b.thread_rank()] = 1

    x, out = cujit.zeros(256, np.float32), cujit.zeros(1, np.float32)
    no_coop = os.environ.get("FAKECUDA_NOCOOP") == "1"
    launches, coop = counter("fake_launches"), counter("fake_coop_launches")
    if no_coop:
        try:
            grid_sum[1, 256](x, out)
        except RuntimeError as e:
            assert "grid_sum" in str(e) and "cooperative launch" in str(e), e
        else:
            raise AssertionError("no error without cooperative launches")
        assert counter("fake_launches") == launches
        print("cooperative ok")
        return
    grid_sum[8, 256](x, out)
    numba_style[4, 32](x)
    assert counter("fake_coop_launches") == coop + 2
    assert counter("fake_launches") == launches + 2
    block_only[1, 256](x)
    assert counter("fake_coop_launches") == coop + 2
    assert counter("fake_launches") == launches + 3
    # 256 threads: 8 blocks per SM, 1056 on the device; 1024 threads: 2 per SM
    grid_sum[1056, 256](x, out)
    for grid, block, most in (((1057,), 256, 1056), ((33, 33), 256, 1056), ((265,), 1024, 264)):
        try:
            grid_sum[grid, block](x, out)
        except ValueError as e:
            text = str(e)
            assert "grid_sum" in text and "at most %d fit" % most in text, text
            assert "grid (%d, %d, %d)" % (grid + (1, 1))[:3] in text, text
        else:
            raise AssertionError("no error for grid %s" % (grid,))
    assert counter("fake_launches") == launches + 4
    print("cooperative ok")


REC = np.dtype([("a", np.float64), ("b", np.int32), ("c", np.complex64), ("d", np.uint8, 5)],
               align=True)
REC_NESTED = np.dtype([("k", np.int8), ("in", REC), ("m", np.float32, (3, 2))], align=True)


def random_records(dt, n):
    a = np.zeros(n, dt)
    a.view(np.uint8)[...] = RNG.integers(1, 255, size=a.nbytes, dtype=np.uint8).reshape(
        a.view(np.uint8).shape)
    return a


def records():
    """Arrays of NumPy structured dtypes keep their dtype through to_device,
    copy_to_host, empty, __cuda_array_interface__ (typestr |V<n> with its
    descr) both ways; kernels take them, and np.void records, whose bytes
    come back (the fake launch runs nothing)."""
    from cujit import cuda
    for dt in (REC, REC_NESTED):
        h = random_records(dt, 7)
        d = cujit.to_device(h)
        assert d.dtype == dt and d.shape == (7,), (d.dtype, d.shape)
        back = d.copy_to_host()
        assert back.dtype == dt and back.tobytes() == h.tobytes()
        cai = d.__cuda_array_interface__
        assert cai["typestr"] == "|V%d" % dt.itemsize and cai["descr"] == dt.descr, cai
        e = cujit.empty(3, dt)
        assert e.dtype == dt and e.nbytes == 3 * dt.itemsize
        imported = cujit.asarray(CAI(d)) if hasattr(cujit, "asarray") else None
        if imported is not None:
            assert imported.dtype == dt, imported.dtype
    calls = counter("fake_launches")

    @cuda.jit
    def k(ary, r, out):
        i = cuda.grid(1)
        if i < ary.size:
            ary[i].a = r.a + out[i]
            r.b = 5

    h = random_records(REC, 4)
    host = h.copy()
    rec_src = random_records(REC, 2)
    out = rand(4, dtype=np.float64)
    k[1, 4](host, rec_src[1], out)
    assert host.tobytes() == h.tobytes()    # copied there and back unchanged
    k[1, 4](cujit.to_device(h), rec_src[0], cujit.to_device(out))
    k[1, 4](CAI(cujit.to_device(h)), rec_src[0], out)
    assert counter("fake_launches") == calls + 3
    try:
        k[1, 4](host, np.zeros(1, REC_NESTED)[0], out)
    except cujit.CompileError as e:
        assert "has no field 'a'" in str(e), e
    else:
        raise AssertionError("a record of another dtype compiled")
    print("records ok")


if __name__ == "__main__":
    globals()[sys.argv[1]]()
