"""The Numba dispatcher's host behaviour in cujit.cuda against the fake
libcuda (fakecuda.c), each scenario in a fresh process started by
tests/test_dispatch_nogpu.py:

    python dispatch_scenarios.py NAME

Launches do nothing there: what is checked is what reaches the launch
(which signature a call takes, the arguments' dtypes), the warnings and
the counters the host keeps."""
import sys

import numpy as np

import cujit
from cujit import cuda

RNG = np.random.default_rng()


def expect(exc, fn, *text):
    try:
        fn()
    except exc as e:
        for t in text:
            assert t in str(e), (t, str(e))
        return e
    raise AssertionError(f"no {exc.__name__}")


def sub_one(ary):
    i = cuda.grid(1)
    if i < ary.size:
        ary[i] -= 1


def signatures():
    """One signature (cuda.jit(sig)): an array of another dtype of the same
    size is read as the signature's (Numba's launch passes its pointer);
    a float for an integer parameter is a TypeError."""
    k = cuda.jit("void(int32[::1])")(sub_one)
    host = RNG.integers(1, 32, 16).astype(np.uint32)
    k[1, 16](host)                                   # a host array: viewed
    k[1, 16](cuda.to_device(host))                   # a device array: reinterpreted
    assert k.signatures == ["(int32[::1])"], k.signatures
    expect(TypeError, lambda: k[1, 16](host.astype(np.float64)), "No matching definition")

    def add(r, x, y):
        r[0] = x + y
    c = cuda.jit("(i4[::1], i4, i4)")(add)
    r = np.zeros(1, np.int32)
    expect(TypeError, lambda: c[1, 1](r, 12.3, 45.6), "is a float")
    expect(TypeError, lambda: c[1, 1](r, 12.3, 45.6j))
    c[1, 1](r, np.int64(3), True)
    f = cuda.jit(["(float64[::1], float32, float64)", "(float64[::1], float64, float32)",
                  "(float64[::1], int64, int64)"])(add)
    expect(TypeError, lambda: f[1, 1](np.zeros(1), 1.0, 2.0), "Ambiguous overloading")
    f[1, 1](np.zeros(1), np.float32(1.0), 2.0)
    assert len(f.signatures) == 3


def pickling():
    """Launchers pickle as kernel[grid, block, ...]; one with pre-launch
    callbacks does not; callbacks run before each launch, and a launcher
    whose callbacks were read is not handed out again."""
    import pickle

    @cuda.jit(device=True)
    def inner(a):
        return a + 1

    @cuda.jit
    def foo(arr):
        arr[0] = inner(arr[0])
    arr = np.array([100])
    foo[1, 1](arr)
    l2 = pickle.loads(pickle.dumps(foo[5, 8]))
    assert l2.griddim == (5, 1, 1) and l2.blockdim == (8, 1, 1) and l2.sharedmem == 0
    assert l2.dispatcher is not foo and l2.dispatcher.py_func.__name__ == "foo"
    l2(arr)
    assert l2.dispatcher.signatures == foo.signatures
    cfg = foo[5, 8]
    seen = []
    cfg.pre_launch_callbacks.append(lambda k, c: seen.append((k, c.griddim)))
    cfg(arr)
    cfg(arr)
    assert seen == [(foo, (5, 1, 1))] * 2, seen
    assert foo[5, 8] is not cfg and not foo[5, 8].pre_launch_callbacks
    expect(pickle.PicklingError, lambda: pickle.dumps(cfg),
           "Cannot pickle configured launches with pre-launch callbacks")

    def boom(k, c):
        raise KeyError("from the callback")
    cfg.pre_launch_callbacks[:] = [boom]
    expect(KeyError, lambda: cfg(arr), "from the callback")


def add_kernel(r, x, y):
    r[()] = x[()] + y[()]


def stats():
    """Dispatcher.stats: a miss per signature NVRTC compiled, a hit per one
    a cache held (a new dispatcher of the same function; the disk cache in a
    second run, stats_again)."""
    f = cuda.jit(cache=True)(add_kernel)
    assert f.stats.cache_hits == {} and f.stats.cache_misses == {}
    for dt in (np.int64, np.float64):
        f[1, 1](np.zeros((), dt), np.ones((), dt), np.ones((), dt))
    st = f.stats
    assert sum(st.cache_misses.values()) == 2 and sum(st.cache_hits.values()) == 0, st
    assert st.cache_path == cujit.cache_info()["dir"]
    g = cuda.jit(cache=True)(add_kernel)
    g[1, 1](np.zeros((), np.int64), np.ones((), np.int64), np.ones((), np.int64))
    assert sum(g.stats.cache_hits.values()) == 1 and not g.stats.cache_misses, g.stats
    g[1, 1](np.zeros((), np.int64), np.ones((), np.int64), np.ones((), np.int64))
    assert sum(g.stats.cache_hits.values()) == 1          # loaded once


def stats_again():
    f = cuda.jit(cache=True)(add_kernel)
    f[1, 1](np.zeros((), np.float64), np.ones((), np.float64), np.ones((), np.float64))
    assert f.stats.cache_hits == {"(float64[], float64[], float64[])": 1} \
        or sum(f.stats.cache_hits.values()) == 1, f.stats
    assert not f.stats.cache_misses, f.stats


def launch_warnings():
    """Numba's PerformanceWarnings: a grid under 128 blocks (at k[grid,
    block], the same configuration again too), a host array the launch
    copies (not a mapped array, nor In / Out / InOut, nor a device array);
    the switches turn each off; cujit.jit's own kernels never warn."""
    import warnings
    warnings.simplefilter("always")

    def body(r, x):
        r[0] = x + 1
    k = cuda.jit(body)
    host = RNG.random(4).astype(np.float32)

    def caught(fn):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            fn()
        return [(x.category, str(x.message)) for x in w]
    W = cuda.NumbaPerformanceWarning
    def grid(n):
        return (W, f"Grid size {n} will likely result in GPU under-utilization due to low "
                   "occupancy.")
    copy = (W, "Host array used in CUDA kernel will incur copy overhead to/from device.")
    assert caught(lambda: k[(2, 3), 4]) == [grid(6)]
    assert caught(lambda: k[(2, 3), 4]) == [grid(6)]               # the cached launcher
    assert caught(lambda: k[128, 1](host, 1)) == [copy]
    assert caught(lambda: k[128, 1](cuda.to_device(host), 1)) == []
    assert caught(lambda: k[128, 1](cuda.mapped_array(4, np.float32), 1)) == []
    assert caught(lambda: k[128, 1](cuda.In(host), 1)) == []
    assert caught(lambda: k[1, 1](cuda.InOut(host), 1)) == [grid(1)]
    assert caught(lambda: cujit.jit.rawkernel()(body)[1, 1](host, 1)) == [] \
        if hasattr(cujit.jit, "rawkernel") else True
    cuda.config.CUDA_LOW_OCCUPANCY_WARNINGS = 0
    assert caught(lambda: k[1, 1](host, 1)) == [copy]
    cuda.config.CUDA_WARN_ON_IMPLICIT_COPY = 0
    assert caught(lambda: k[1, 1](host, 1)) == []
    cuda.config.CUDA_WARN_ON_IMPLICIT_COPY = 1
    cuda.config.DISABLE_PERFORMANCE_WARNINGS = 1
    assert caught(lambda: k[1, 1](host, 1)) == []
    cuda.config.DISABLE_PERFORMANCE_WARNINGS = 0
    cuda.config.CUDA_LOW_OCCUPANCY_WARNINGS = 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", W)
        expect(W, lambda: k[1, 2], "Grid size 1")                  # an error filter raises
        expect(W, lambda: k[200, 2](host, 1), "Host array")        # ... and releases the array
    assert caught(lambda: k[200, 2](host, 1)) == [copy]

    @cuda.guvectorize(["void(float32[:], float32[:], float32[:])"], "(n),(n)->(n)")
    def mul(a, b, d):
        for i in range(a.shape[0]):
            d[i] = a[i] * b[i]
    a = RNG.random(1024).astype(np.float32)
    got = caught(lambda: mul(a, a, np.zeros_like(a)))
    assert got and got[0][0] is W and "Grid size 1 " in got[0][1], got
    assert caught(lambda: mul(np.ones((128 * 128, 2), np.float32),
                              np.ones((128 * 128, 2), np.float32))) == []


def huge_grid():
    """A grid of more than 2**31 threads takes the entry with 64-bit
    indexing, whose grid(1) does not wrap (Numba's issue 9229: 22121216
    blocks of 256); small grids keep the 32-bit entry, and each is compiled
    once"""
    import warnings

    @cuda.jit
    def f(e):
        i = cuda.grid(1)
        if i < 0:
            e[0] = 1

    a = cuda.to_device(np.zeros(1, np.uint64))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f[1, 32](a)
        assert sum(f.stats.cache_misses.values()) == 1
        f[22121216, 256](a)
        assert sum(f.stats.cache_misses.values()) == 2, f.stats
        f[22121216, 256](a)
        f[4, 32](a)
        assert sum(f.stats.cache_misses.values()) == 2, f.stats


if __name__ == "__main__":
    globals()[sys.argv[1]]()
    print("%s ok" % sys.argv[1])
