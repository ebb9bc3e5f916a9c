"""Numba's host API and dispatcher surface in cujit.cuda on the GPU, each
result against NumPy on fresh random data: launch bounds (a launch past
them fails), kernel attributes from the driver, shared memory carveouts,
device arrays read as globals (cujit's, views, foreign and CuPy's; read,
written, through device functions), as_cuda_array, In / Out / InOut and
extensions, the built-in streams, cuda.gpus and current_context()."""
import numpy as np
import pytest

import cujit
from cujit import cuda

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()


class Foreign:
    """Another library's array: only an instance __cuda_array_interface__."""

    def __init__(self, arr):
        self._arr = arr
        self.__cuda_array_interface__ = arr.__cuda_array_interface__


def rand(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


# ---- launch bounds and kernel attributes ----

@pytest.mark.parametrize("bounds", [128, (128,), (128, 2), (128, 2, 1)])
def test_launch_bounds(bounds):
    @cuda.jit(launch_bounds=bounds)
    def scale(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = 3 * x[i]
    x = rand(1000)
    out = cuda.device_array_like(x)
    scale[(1000 + 127) // 128, 128](x, out)
    np.testing.assert_allclose(out.copy_to_host(), 3 * x, rtol=1e-6)
    sig = scale.signatures[0]
    assert 0 < scale.get_max_threads_per_block(sig) <= 128
    with pytest.raises(cujit.CudaError, match="CUDA_ERROR_INVALID_VALUE"):
        scale[4, 256](x, out)
    scale[8, 128](x, out)                       # the failed launch left nothing behind
    cuda.synchronize()


def test_kernel_attributes():
    n = 1000

    @cuda.jit
    def smem(x, out):
        s = cuda.shared.array(100, np.float32)
        t = cuda.threadIdx.x
        s[t] = x[t]
        cuda.syncthreads()
        out[t] = s[99 - t]

    @cuda.jit
    def lmem(x, idx, out):
        loc = cuda.local.array(n, np.float32)
        for j in range(n):
            loc[(j * 7 + idx[j]) % n] = x[j]
        for j in range(n):
            out[j] = loc[idx[j]]

    table = rng.integers(0, 1 << 30, 32)

    @cuda.jit
    def cmem(out):
        c = cuda.const.array_like(table)
        i = cuda.grid(1)
        if i < 32:
            out[i] = c[i]

    x = rand(100)
    out = cuda.device_array(100, np.float32)
    smem[1, 100](x, out)
    np.testing.assert_array_equal(out.copy_to_host(), x[::-1])
    assert smem.get_shared_mem_per_block(smem.signatures[0]) == 400
    assert smem.get_shared_mem_per_block()[(cuda.float32[::1], cuda.float32[::1])] == 400

    xl = rand(n)
    idx = rng.integers(0, n, n).astype(np.int64)
    outl = cuda.device_array(n, np.float32)
    lmem[1, 1](xl, idx, outl)
    ref = np.zeros(n, np.float32)
    for j in range(n):
        ref[(j * 7 + idx[j]) % n] = xl[j]
    np.testing.assert_array_equal(outl.copy_to_host(), ref[idx])
    assert lmem.get_local_mem_per_thread(lmem.signatures[0]) >= n * 4
    regs = lmem.get_regs_per_thread()
    assert isinstance(regs, dict) and all(isinstance(v, int) and v > 0 for v in regs.values())

    outc = cuda.device_array(32, np.int64)
    cmem[1, 32](outc)
    np.testing.assert_array_equal(outc.copy_to_host(), table)
    assert cmem.get_const_mem_size(cmem.signatures[0]) >= table.nbytes


@pytest.mark.parametrize("carveout", ["MaxL1", "MaxShared", "default", 0, 50, 100, -1])
def test_shared_memory_carveout(carveout):
    @cuda.jit("void(float32[::1], float32[::1])", shared_memory_carveout=carveout)
    def rev(x, out):
        s = cuda.shared.array(256, np.float32)
        t = cuda.threadIdx.x
        s[t] = x[t]
        cuda.syncthreads()
        out[t] = s[255 - t]
    x = rand(256)
    out = cuda.device_array_like(x)
    rev[1, 256](x, out)
    np.testing.assert_array_equal(out.copy_to_host(), x[::-1])


# ---- device arrays read as globals ----

def factories():
    yield "cujit", lambda h: cuda.to_device(h)
    yield "foreign", lambda h: Foreign(cuda.to_device(h))


def host_of(a):
    return (a._arr if isinstance(a, Foreign) else a).copy_to_host()


@pytest.mark.parametrize("kind, make", list(factories()))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_global_array_read_through_device_function(kind, make, dtype):
    h = (rng.standard_normal(257) * 100).astype(dtype)
    g = make(h)

    @cuda.jit(device=True)
    def read(i):
        return g[i]

    @cuda.jit
    def k(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = read(i) * 2
    out = cuda.device_array(257, dtype)
    k[3, 128](out)
    np.testing.assert_array_equal(out.copy_to_host(), h * dtype(2))


@pytest.mark.parametrize("kind, make", list(factories()))
def test_global_array_2d_0d_and_written(kind, make):
    h2 = rand(30, 7)
    h0 = np.array(rng.standard_normal(), np.float32)
    g2, g0 = make(h2), make(h0)
    w = make(np.zeros(210, np.float32))

    @cuda.jit
    def k(out):
        i = cuda.grid(1)
        if i < 210:
            out[i] = g2[i // 7, i % 7] + g0[()]
            w[i] = g2[i // 7, i % 7] * g2.shape[1]
    out = cuda.device_array(210, np.float32)
    k[2, 128](out)
    np.testing.assert_allclose(out.copy_to_host(), h2.ravel() + h0, rtol=1e-6)
    np.testing.assert_allclose(host_of(w), h2.ravel() * 7, rtol=1e-6)


def test_global_strided_view_and_lifetime():
    h = rand(64, 10)
    view = cuda.to_device(h)[::3, 1::2]         # strided: not contiguous

    def make():
        g = view                                 # a closure variable

        @cuda.jit
        def k(out):
            i, j = cuda.grid(2)
            if i < out.shape[0] and j < out.shape[1]:
                out[i, j] = g[i, j] - 1
        return k
    k = make()
    out = cuda.device_array((22, 5), np.float32)
    k[(1, 1), (32, 8)](out)
    np.testing.assert_allclose(out.copy_to_host(), h[::3, 1::2] - 1, rtol=1e-6)
    import gc
    import weakref
    base = weakref.ref(view.base)
    k.py_func.__closure__[0].cell_contents = None    # the kernel's entry keeps the array
    del view
    gc.collect()
    assert base() is not None
    out2 = cuda.device_array((22, 5), np.float32)
    k[(1, 1), (32, 8)](out2)
    np.testing.assert_allclose(out2.copy_to_host(), h[::3, 1::2] - 1, rtol=1e-6)


def test_global_cupy_array():
    cp = pytest.importorskip("cupy")
    h = rand(500)
    g = cp.asarray(h)

    @cuda.jit
    def k(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = g[i] + 1
            g[i] = 0
    out = cuda.device_array(500, np.float32)
    k[4, 128](out)
    np.testing.assert_allclose(out.copy_to_host(), h + 1, rtol=1e-6)
    assert not cp.asnumpy(g).any()


# ---- arrays of other libraries, In / Out, extensions ----

def test_as_cuda_array_of_foreign_array():
    h = rand(1000)
    d = cuda.to_device(h)
    w = cuda.as_cuda_array(Foreign(d))
    assert w.device_ctypes_pointer.value == d.device_ctypes_pointer.value

    @cuda.jit
    def mutate(arr, val):
        i = cuda.grid(1)
        if i < len(arr):
            arr[i] += val
    mutate.forall(w.size)(w, np.float32(7))
    np.testing.assert_allclose(d.copy_to_host(), h + 7, rtol=1e-6)
    mutate[8, 128](Foreign(d), np.float32(1))
    np.testing.assert_allclose(w.copy_to_host(), h + 8, rtol=1e-6)
    v = cuda.from_cuda_array_interface(d[::2].__cuda_array_interface__, owner=d)
    np.testing.assert_allclose(v.copy_to_host(), (h + 8)[::2], rtol=1e-6)


def test_in_out_inout_and_extensions():
    @cuda.jit
    def k(x, y):
        i = cuda.grid(1)
        if i < x.size:
            y[i] = x[i] * 2
            x[i] = -1
    h = rand(300)
    x = h.copy()
    y = np.zeros_like(h)
    k[3, 128](cuda.In(x), cuda.Out(y))
    np.testing.assert_array_equal(x, h)                  # In: not copied back
    np.testing.assert_allclose(y, h * 2, rtol=1e-6)
    k[3, 128](cuda.InOut(x), y)
    assert (x == -1).all()

    class AsIn:
        def prepare_args(self, ty, val, stream=0, retr=None):
            return ty, cuda.In(val) if isinstance(val, np.ndarray) and val.dtype == h.dtype \
                and val is not y2 else val
    y2 = np.zeros_like(h)
    x2 = h.copy()
    k.extensions.append(AsIn())
    k[3, 128](x2, y2)
    np.testing.assert_array_equal(x2, h)
    np.testing.assert_allclose(y2, h * 2, rtol=1e-6)


# ---- streams, devices, contexts ----

@pytest.mark.parametrize("make", [cuda.default_stream, cuda.legacy_default_stream,
                                  cuda.per_thread_default_stream, cuda.stream])
def test_streams(make):
    s = make()

    @cuda.jit
    def inc(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] += 1
    h = rand(1000)
    d = cuda.to_device(h, stream=s)
    inc[8, 128, s](d)
    s.synchronize()
    np.testing.assert_allclose(d.copy_to_host(), h + 1, rtol=1e-6)


def test_gpus_and_context():
    n = len(cuda.gpus)
    assert n == cujit.device_count() >= 1
    h = rand(100)
    for i in range(min(n, 2)):
        with cuda.gpus[i]:
            assert cuda.gpus.current.id == i
            ctx = cuda.current_context()
            free, total = ctx.get_memory_info()
            assert 0 < free <= total
            d = cuda.to_device(h)

            @cuda.jit
            def neg(x):
                i = cuda.grid(1)
                if i < x.size:
                    x[i] = -x[i]
            neg[1, 128](d)
            np.testing.assert_array_equal(d.copy_to_host(), -h)


# ---- explicit signatures: Numba's overload resolution ----

def test_explicit_signatures_pick_and_convert():
    @cuda.jit(["void(float64[::1], float32, float32)", "void(float64[::1], float64, float64)",
               "void(int64[::1], int64, int64)"])
    def add(r, x, y):
        r[0] = x + y
    a, b = rng.standard_normal(2)
    r = np.zeros(1)
    add[1, 1](r, np.float32(a), np.float32(b))          # the float32 signature
    assert r[0] == np.float64(np.float32(a) + np.float32(b))
    add[1, 1](r, a, b)                                  # Python floats: float64
    assert r[0] == a + b
    i, j = (int(v) for v in rng.integers(-2**40, 2**40, 2))
    ri = np.zeros(1, np.int64)
    add[1, 1](ri, i, j)
    assert ri[0] == i + j
    add[1, 1](r, i, 0.5)                                # int -> float64 (safe)
    assert r[0] == i + 0.5
    with pytest.raises(TypeError, match="No matching definition"):
        add[1, 1](np.zeros(1, np.complex128), 1j, 1j)
    assert len(add.overloads) == 3


def test_explicit_signature_int32_and_any_layout():
    @cuda.jit("void(float32[:], int32)")
    def fill(x, n):
        i = cuda.grid(1)
        if i < x.size:
            x[i] = n + i
    n = int(rng.integers(-1000, 1000))
    d = cuda.to_device(rand(512))
    for _ in range(2):                                  # resolved, then remembered
        fill[4, 128](d, n)
        np.testing.assert_array_equal(d.copy_to_host(), n + np.arange(512, dtype=np.float32))
    v = cuda.to_device(rand(1024))[::2]                 # strided: the same 'A' kernel
    fill[4, 128](v, np.int64(n))
    np.testing.assert_array_equal(v.copy_to_host(), n + np.arange(512, dtype=np.float32))
    assert fill.signatures == ["(float32[:], int32)"]


@cuda.jit
def _scale_rows(x, out):
    i, j = cuda.grid(2)
    if i < x.shape[0] and j < x.shape[1]:
        out[i, j] = x[i, j] * (i + 1) - j


def test_numba_host_rules_after_a_kernel():
    """Arrays made through cujit.cuda read back as Numba's do: an element is a
    NumPy scalar of the dtype, iteration gives scalars, np.asarray and
    NumPy's testing functions copy (a kernel wrote them first)."""
    h = rng.standard_normal((37, 19))
    d, out = cuda.to_device(h), cuda.device_array(h.shape)
    _scale_rows[(3, 2), (16, 16)](d, out)
    want = h * (np.arange(37)[:, None] + 1) - np.arange(19)[None, :]
    np.testing.assert_allclose(out, want)
    np.testing.assert_allclose(np.asarray(out[5:, ::3]), want[5:, ::3])
    i, j = rng.integers(0, 37), rng.integers(0, 19)
    assert type(out[i, j]) is np.float64 and np.isclose(out[i, j], want[i, j])
    np.testing.assert_allclose([v for v in out[i]], want[i])
    mine = cujit.to_device(h)
    with pytest.raises(TypeError, match="implicit conversion"):
        np.asarray(mine)
