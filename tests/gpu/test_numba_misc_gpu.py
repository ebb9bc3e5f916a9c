"""Numba's smaller kernel features on the GPU, each against NumPy on fresh
random data: cache-hint loads and stores (cuda.ldcg ...), alignment= of
local and shared arrays (the address a kernel reads is a multiple of it),
local arrays of an argument's dtype, cuda.selp, warp votes of int64 and
bool operands, cuda.nanosleep, `raise` in kernels and device functions (the
user's class on the host), and an int32 parameter given 0x80000000.
Without a GPU: tests/test_numba_misc_nogpu.py."""
import numpy as np
import pytest

from cujit import cuda

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()

LOADS = [cuda.ldca, cuda.ldcg, cuda.ldcs, cuda.ldlu, cuda.ldcv]
STORES = [cuda.stcg, cuda.stcs, cuda.stwb, cuda.stwt]
TYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
         np.float16, np.float32, np.float64]


def random_of(dtype, shape):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return rng.standard_normal(shape).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)


# ---- cache hints ----

@pytest.mark.parametrize("op", LOADS, ids=["ldca", "ldcg", "ldcs", "ldlu", "ldcv"])
def test_cache_hint_loads(op):
    @cuda.jit
    def load1(r, x):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = op(x, i)

    @cuda.jit
    def load2(r, x):
        i, j = cuda.grid(2)
        if i < r.shape[0] and j < r.shape[1]:
            r[i, j] = op(x, (i, j))
    for ty in TYPES:
        x = random_of(ty, 1000)
        r = np.zeros_like(x)
        load1[8, 128](r, x)
        np.testing.assert_array_equal(r, x)
        x2 = random_of(ty, (37, 45))[:, ::2]        # strided: any layout
        r2 = np.zeros(x2.shape, x2.dtype)
        load2[(3, 2), (16, 16)](r2, x2)
        np.testing.assert_array_equal(r2, x2)


@pytest.mark.parametrize("op", STORES, ids=["stcg", "stcs", "stwb", "stwt"])
def test_cache_hint_stores(op):
    @cuda.jit
    def store1(r, x):
        i = cuda.grid(1)
        if i < r.size:
            op(r, i, x[i] * 2)

    @cuda.jit
    def store2(r, x):
        i, j = cuda.grid(2)
        if i < r.shape[0] and j < r.shape[1]:
            op(r, (i, j), x[i, j])
    for ty in TYPES:
        x = random_of(ty, 1000)
        r = np.zeros_like(x)
        store1[8, 128](r, x)
        np.testing.assert_array_equal(r, (x * 2).astype(x.dtype))
        x2 = random_of(ty, (37, 45))
        r2 = np.zeros_like(x2)
        store2[(3, 3), (16, 16)](r2, x2)
        np.testing.assert_array_equal(r2, x2)


def test_cache_hints_mixed_with_plain_accesses():
    """a plain store then a hinted load of the same element, in one thread"""
    @cuda.jit
    def k(a, b):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = b[i] + 1.0
            b[i] = cuda.ldcg(a, i) * 3.0
            cuda.stcs(a, i, b[i] - cuda.ldcv(a, i))
    a0, b0 = rng.standard_normal(777), rng.standard_normal(777)
    a, b = a0.copy(), b0.copy()
    k[4, 256](a, b)
    ref_b = (b0 + 1.0) * 3.0
    np.testing.assert_allclose(b, ref_b)
    np.testing.assert_allclose(a, ref_b - (b0 + 1.0))


# ---- alignment= and .ctypes.data ----

REC = np.dtype([("a", np.uint8), ("b", np.int32), ("c", np.float64)], align=True)


@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.float64, REC], ids=str)
@pytest.mark.parametrize("alignment", [16, 64, 256])
def test_aligned_local_and_shared_arrays(dtype, alignment):
    n = 7

    @cuda.jit
    def f(src, out, addr):
        i = cuda.threadIdx.x
        loc = cuda.local.array(n, dtype=dtype, alignment=alignment)
        sh = cuda.shared.array((32, n), dtype=dtype, alignment=alignment)
        for k in range(n):
            loc[k] = src[i, k]
        for k in range(n):
            sh[i, k] = loc[n - 1 - k]
        cuda.syncthreads()
        for k in range(n):
            out[i, k] = sh[31 - i, k]
        addr[i, 0] = loc.ctypes.data
        addr[i, 1] = sh.ctypes.data
    if dtype is REC:
        src = np.zeros((32, n), REC)
        for name in REC.names:
            src[name] = random_of(REC[name], (32, n))
    else:
        src = random_of(dtype, (32, n))
    out = np.zeros_like(src)
    addr = np.zeros((32, 2), np.uint64)
    f[1, 32](src, out, addr)
    np.testing.assert_array_equal(out, src[::-1, ::-1])
    assert np.all(addr % alignment == 0), addr
    assert len(set(addr[:, 1].tolist())) == 1         # one shared array per block


def test_local_array_of_an_arguments_dtype():
    n = 16

    @cuda.jit
    def rev(x, out):
        i = cuda.grid(1)
        if i < x.shape[0]:
            tmp = cuda.local.array(n, dtype=x.dtype)
            for k in range(n):
                tmp[k] = x[i, k]
            for k in range(n):
                out[i, k] = tmp[n - 1 - k]
    for ty in (np.float32, np.int64, np.uint16):
        x = random_of(ty, (300, n))
        out = np.zeros_like(x)
        rev[3, 128](x, out)
        np.testing.assert_array_equal(out, x[:, ::-1])


# ---- selp, votes, ffs, nanosleep ----

def test_selp_against_where():
    @cuda.jit("void(int64[:], int64, int64[:])")
    def with_selps(a, b, c):
        i = cuda.grid(1)
        if i < a.size:
            inner = cuda.selp(b % 2 == 0, c[i], 13)
            a[i] = cuda.selp(a[i] > 4, inner, 3)
    for b in (int(rng.integers(0, 50)) * 2, int(rng.integers(0, 50)) * 2 + 1):
        a0 = rng.integers(-10, 10, 1000)
        c = rng.integers(-1000, 1000, 1000)
        a = a0.copy()
        with_selps[4, 256](a, b, c)
        np.testing.assert_array_equal(a, np.where(a0 > 4, c if b % 2 == 0 else 13, 3))


@pytest.mark.parametrize("mask_t, pred_t", [(np.int64, np.int64), (np.uint64, np.bool_),
                                            (np.uint32, np.uint32)])
def test_vote_operand_types(mask_t, pred_t):
    @cuda.jit
    def vote(mask, pred, all_out, any_out, ballot_out):
        i = cuda.grid(1)
        if i < pred.size:
            all_out[i] = cuda.all_sync(mask[i], pred[i])
            any_out[i] = cuda.any_sync(mask[i], pred[i])
            ballot_out[i] = cuda.ballot_sync(mask[i], pred[i])
    n = 64
    mask = np.full(n, 0xFFFFFFFF, mask_t)
    pred = (rng.random(n) < 0.7).astype(pred_t)
    pred[32:] = 1 if pred_t is not np.bool_ else True      # second warp: all true
    all_out, any_out = np.zeros(n, np.int32), np.zeros(n, np.int32)
    ballot_out = np.zeros(n, np.uint32)
    vote[1, n](mask, pred, all_out, any_out, ballot_out)
    for w in range(2):
        p = pred[32 * w:32 * (w + 1)] != 0
        np.testing.assert_array_equal(all_out[32 * w:32 * (w + 1)] != 0, np.full(32, p.all()))
        np.testing.assert_array_equal(any_out[32 * w:32 * (w + 1)] != 0, np.full(32, p.any()))
        bits = int(sum(1 << k for k in range(32) if p[k]))
        np.testing.assert_array_equal(ballot_out[32 * w:32 * (w + 1)], np.full(32, bits))


def test_ffs_of_an_int32_parameter_given_a_large_python_int():
    @cuda.jit("void(int32[:], int32)")
    def simple_ffs(ary, c):
        ary[0] = cuda.ffs(c)
    ary = np.zeros(1, dtype=np.int32)
    bit = int(rng.integers(0, 31))
    simple_ffs[1, 1](ary, 1 << bit)
    assert ary[0] == bit + 1
    simple_ffs[1, 1](ary, 0x80000000)       # wraps to -2**31: the top bit
    assert ary[0] == 32


def test_nanosleep_then_work():
    @cuda.jit
    def sleepy(x, ns, out):
        i = cuda.grid(1)
        if i < x.size:
            cuda.nanosleep(ns)
            cuda.nanosleep(100)
            out[i] = x[i] * 2.0
    x = rng.standard_normal(500).astype(np.float32)
    out = np.zeros_like(x)
    sleepy[2, 256](x, np.uint32(rng.integers(100, 2000)), out)
    np.testing.assert_array_equal(out, x * 2.0)


# ---- raise ----

class KernelError(Exception):
    pass


@cuda.jit(device=True)
def checked_sqrt(v):
    if v < 0:
        raise KernelError("negative value", 7)
    return v ** 0.5


@cuda.jit
def sqrt_all(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = checked_sqrt(x[i])


@cuda.jit
def raise_on_flag(flags, out):
    i = cuda.grid(1)
    if i < flags.size:
        if flags[i] == 1:
            raise ValueError
        elif flags[i] == 2:
            raise KernelError("flag two")
        out[i] = flags[i] + 10


def test_no_raise_runs_normally():
    x = rng.random(1000) + 0.1
    out = np.zeros_like(x)
    sqrt_all[4, 256](x, out)
    np.testing.assert_allclose(out, np.sqrt(x))
    flags = rng.integers(3, 9, 500)
    out2 = np.zeros_like(flags)
    raise_on_flag[2, 256](flags, out2)
    np.testing.assert_array_equal(out2, flags + 10)


def test_raise_in_a_device_function_reaches_the_host():
    x = rng.random(1000) + 0.1
    bad = int(rng.integers(0, 1000))
    x[bad] = -1.0
    out = cuda.to_device(np.zeros_like(x))
    with pytest.raises(KernelError) as e:
        sqrt_all[4, 256](x, out)
    text = str(e.value)
    assert "In function 'sqrt_all'" in text and "negative value" in text, text
    assert f"tid=[{bad % 256}, 0, 0] ctaid=[{bad // 256}, 0, 0]" in text, text
    good = np.arange(1000) != bad
    got = out.copy_to_host()
    np.testing.assert_allclose(got[good], np.sqrt(x[good]))     # the other threads ran
    assert got[bad] == 0
    x[bad] = 4.0
    out2 = np.zeros_like(x)
    sqrt_all[4, 256](x, out2)                                    # the record was cleared
    np.testing.assert_allclose(out2, np.sqrt(x))


@pytest.mark.parametrize("flag, cls, words", [(1, ValueError, ""),
                                              (2, KernelError, ": flag two")])
def test_raise_in_a_kernel_reaches_the_host(flag, cls, words):
    flags = rng.integers(3, 9, 500)
    where = int(rng.integers(0, 500))
    flags[where] = flag
    out = cuda.to_device(np.zeros_like(flags))
    with pytest.raises(cls) as e:
        raise_on_flag[2, 256](flags, out)
    text = str(e.value)
    assert f"tid=[{where % 256}, 0, 0] ctaid=[{where // 256}, 0, 0]{words}" in text, text
    got = out.copy_to_host()
    assert got[where] == 0                      # the raising thread stopped there
    keep = np.arange(500) != where
    np.testing.assert_array_equal(got[keep], flags[keep] + 10)
