"""Numba's dispatcher behaviour in cujit.cuda on the GPU, each result against
NumPy on fresh random data: one signature reading an array of another dtype
of the same size (Numba's atomic_sub3, vote ballot), explicit signatures'
choice, device functions with declared signatures, pickled kernels and
ufuncs (local functions by value) launched after unpickling, pre-launch
callbacks, Dispatcher.stats, and Numba's performance warnings beside
correct results.  Without a GPU: tests/test_dispatch_nogpu.py."""
import pickle
import warnings

import numpy as np
import pytest

from cujit import cuda

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()


@pytest.fixture(autouse=True)
def quiet():
    """the tests launch small grids on host arrays: Numba's warnings off,
    except where a test turns them on"""
    old = (cuda.config.CUDA_LOW_OCCUPANCY_WARNINGS, cuda.config.CUDA_WARN_ON_IMPLICIT_COPY)
    cuda.config.CUDA_LOW_OCCUPANCY_WARNINGS = 0
    cuda.config.CUDA_WARN_ON_IMPLICIT_COPY = 0
    yield
    cuda.config.CUDA_LOW_OCCUPANCY_WARNINGS, cuda.config.CUDA_WARN_ON_IMPLICIT_COPY = old


def sub_one_2d(ary):
    i, j = cuda.grid(2)
    if i < ary.shape[0] and j < ary.shape[1]:
        cuda.atomic.sub(ary, (i, j), 1)


def test_one_signature_reads_uint32_as_int32():
    k = cuda.jit("void(int32[:, :])")(sub_one_2d)
    ary = rng.integers(0, 32, (4, 8)).astype(np.uint32)
    ary[0, 0] = 0                                   # wraps to 0xFFFFFFFF, as Numba's
    orig = ary.copy()
    k[1, (4, 8)](ary)
    np.testing.assert_array_equal(ary, orig - np.uint32(1))
    d = cuda.to_device(orig)                        # a device array: reinterpreted too
    k[1, (4, 8)](d)
    np.testing.assert_array_equal(d.copy_to_host(), orig - np.uint32(1))


def test_one_signature_ballot_into_int32():
    @cuda.jit("void(uint32[:])")
    def ballot(ary):
        i = cuda.threadIdx.x
        ary[i] = cuda.ballot_sync(0xFFFFFFFF, True)
    ary = rng.integers(-100, 100, 32).astype(np.int32)
    ballot[1, 32](ary)
    np.testing.assert_array_equal(ary, np.full(32, np.uint32(0xFFFFFFFF)).view(np.int32))


def add_kernel(r, x, y):
    r[0] = x + y


def test_explicit_signatures_choose_as_numba():
    f = cuda.jit(["(float64[::1], float32, float32)", "(float64[::1], float64, float64)"])(
        add_kernel)
    r = np.zeros(1)
    x, y = rng.random(2)
    f[1, 1](r, np.float32(x), np.float32(y))
    assert r[0] == np.float64(np.float32(x) + np.float32(y))
    f[1, 1](r, x, y)                                # exact float64
    assert r[0] == x + y
    f[1, 1](r, 1, 2 ** -25)                         # an int: safe to float64
    assert r[0] == 1 + 2 ** -25
    with pytest.raises(TypeError, match="Ambiguous overloading"):
        cuda.jit(["(float64[::1], float32, float64)", "(float64[::1], float64, float32)"])(
            add_kernel)[1, 1](r, x, y)
    c = cuda.jit("(i4[::1], i4, i4)")(add_kernel)
    with pytest.raises(TypeError, match="is a float"):
        c[1, 1](np.zeros(1, np.int32), 12.3, 45.6)


def test_device_function_signatures():
    def add(x, y):
        return x + y
    add_device = cuda.jit(["(int64, int64)", "(float64, float64)"], device=True)(add)

    @cuda.jit
    def f(r, x, y):
        r[0] = add_device(x, y)
    a, b = (int(v) for v in rng.integers(-1000, 1000, 2))
    r = np.zeros(1, np.int64)
    f[1, 1](r, a, b)
    assert r[0] == a + b
    x, y = rng.random(2)
    r = np.zeros(1)
    f[1, 1](r, x, y)
    assert r[0] == x + y
    with pytest.raises(cuda.TypingError, match=r"with parameters \(complex128, complex128\)"):
        f[1, 1](np.zeros(1, np.complex128), 1j, 1j)


def test_pickled_local_kernel_runs():
    k = int(rng.integers(1, 100))

    @cuda.jit(device=True)
    def inner(a):
        return a * k + 1

    @cuda.jit
    def foo(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = inner(x[i])
    x = rng.integers(-1000, 1000, 300)
    out = np.zeros_like(x)
    foo[3, 128](x, out)
    np.testing.assert_array_equal(out, x * k + 1)
    again = pickle.loads(pickle.dumps(pickle.loads(pickle.dumps(foo))))
    out2 = np.zeros_like(x)
    launcher = pickle.loads(pickle.dumps(again[3, 128]))
    assert launcher.griddim == (3, 1, 1) and launcher.blockdim == (128, 1, 1)
    launcher(x, out2)
    np.testing.assert_array_equal(out2, x * k + 1)


def test_pickled_ufuncs_run():
    @cuda.vectorize(["intp(intp)", "float64(float64)"])
    def twice(x):
        return x * 2
    a = rng.integers(-1000, 1000, 1000)
    v = pickle.loads(pickle.dumps(twice))
    np.testing.assert_array_equal(v(a), a * 2)
    f = rng.random(1000)
    np.testing.assert_allclose(pickle.loads(pickle.dumps(v))(f), f * 2)

    @cuda.guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(n)->()")
    def dot(a, b, out):
        acc = 0.0
        for i in range(a.shape[0]):
            acc += a[i] * b[i]
        out[0] = acc
    g = pickle.loads(pickle.dumps(dot))
    x, y = rng.random((50, 16)), rng.random((50, 16))
    np.testing.assert_allclose(g(x, y), (x * y).sum(axis=1))


def test_pre_launch_callbacks():
    @cuda.jit
    def inc(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] += 1
    x = rng.integers(-50, 50, 64)
    d = cuda.to_device(x)
    cfg = inc[1, 64]
    seen = []

    def before(kernel, launcher):
        seen.append(d.copy_to_host()[0])        # the launch has not run yet
    cfg.pre_launch_callbacks.append(before)
    cfg(d)
    cfg(d)
    assert seen == [x[0], x[0] + 1]
    np.testing.assert_array_equal(d.copy_to_host(), x + 2)
    with pytest.raises(pickle.PicklingError, match="pre-launch callbacks"):
        pickle.dumps(cfg)


def test_stats_count_compiles_and_cache_loads():
    def body(x, v):
        i = cuda.grid(1)
        if i < x.size:
            x[i] = v
    f = cuda.jit(body)
    x = np.zeros(32, np.int32)
    v = int(rng.integers(1, 100))
    f[1, 32](x, v)
    assert (x == v).all()
    st = f.stats
    assert sum(st.cache_hits.values()) + sum(st.cache_misses.values()) == 1
    g = cuda.jit(body)                  # the same code: a cache holds its binary
    g[1, 32](x, v + 1)
    assert (x == v + 1).all()
    assert sum(g.stats.cache_hits.values()) == 1 and not g.stats.cache_misses


def test_performance_warnings_beside_results():
    @cuda.jit
    def neg(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] = -x[i]
    x = rng.standard_normal(100)
    orig = x.copy()
    cuda.config.CUDA_LOW_OCCUPANCY_WARNINGS = 1
    cuda.config.CUDA_WARN_ON_IMPLICIT_COPY = 1
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        neg[1, 128](x)
    msgs = sorted(str(m.message) for m in w if m.category is cuda.NumbaPerformanceWarning)
    assert msgs[0].startswith("Grid size 1 ") and msgs[1].startswith("Host array used")
    np.testing.assert_array_equal(x, -orig)
