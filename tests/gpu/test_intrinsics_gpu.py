"""Intrinsics on the GPU as a Numba user writes them (declared signatures,
NumPy scalars), against NumPy on fresh random data: cuda.libdevice's
tuple and scalar results (Numba's TestLibdevice), cuda.fp16 on scalars,
math.frexp / ldexp, fastmath=True against the precise kernel, max / min of
floats.  (The kernels of tests/kernels/intrinsics.py, every dtype, run
through test_kernels_gpu.py.)"""
import math

import numpy as np
import pytest

from cujit import cuda

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()


def use_sincos(s, c, x):
    i = cuda.grid(1)
    if i < len(x):
        sr, cr = cuda.libdevice.sincos(x[i])
        s[i] = sr
        c[i] = cr


def use_frexp(frac, exp, x):
    i = cuda.grid(1)
    if i < len(x):
        fracr, expr = cuda.libdevice.frexp(x[i])
        frac[i] = fracr
        exp[i] = expr


def use_sad(r, x, y, z):
    i = cuda.grid(1)
    if i < len(x):
        r[i] = cuda.libdevice.sad(x[i], y[i], z[i])


def test_libdevice_sincos():
    x = rng.uniform(-50, 50, 300)
    s, c = np.full_like(x, np.nan), np.full_like(x, np.nan)
    cuda.jit(use_sincos)[10, 32](s, c, x)
    np.testing.assert_allclose(s, np.sin(x), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(c, np.cos(x), rtol=1e-12, atol=1e-14)


def test_libdevice_frexp():
    x = rng.uniform(-1e6, 1e6, 300)
    frac, exp = np.full_like(x, np.nan), np.full(x.shape, -77, np.int32)
    cuda.jit(use_frexp)[10, 32](frac, exp, x)
    f, e = np.frexp(x)
    np.testing.assert_array_equal(frac, f)
    np.testing.assert_array_equal(exp, e)


def test_libdevice_sad():
    x = rng.integers(-1000, 1000, 300)
    y = rng.integers(-1000, 1000, 300)
    z = rng.integers(0, 1000, 300)
    r = np.full_like(x, -77)
    cuda.jit(use_sad)[10, 32](r, x, y, z)
    np.testing.assert_array_equal(r, np.abs(x - y) + z)


def hfma_scalar(ary, a, b, c):
    ary[0] = cuda.fp16.hfma(a, b, c)
    ary[1] = cuda.fp16.hadd(a, b)
    ary[2] = cuda.fp16.hmul(a, 2)
    ary[3] = cuda.fp16.hmax(a, c)
    ary[4] = a * b - c


def test_fp16_scalars_with_a_signature():
    k = cuda.jit("void(f2[:], f2, f2, f2)")(hfma_scalar)
    for _ in range(5):
        a, b, c = (np.float16(v) for v in rng.uniform(-8, 8, 3))
        out = np.full(5, np.nan, np.float16)
        k[1, 1](out, a, b, c)
        f = np.float32
        want = np.array([f(a) * f(b) + f(c), a + b, a * np.float16(2), max(a, c),
                         a * b - c], np.float16)
        np.testing.assert_allclose(out, want, rtol=2e-3, atol=2e-3)


def fp16_compare(r, a, b):
    r[0] = cuda.fp16.hlt(a, b) and cuda.fp16.hge(b, a)
    r[1] = a > b
    r[2] = a == b


def test_fp16_comparisons():
    k = cuda.jit("void(b1[:], f2, f2)")(fp16_compare)
    for a, b in [(2, 3), (3, 2), (3, 3)] + [tuple(rng.uniform(-4, 4, 2)) for _ in range(4)]:
        a, b = np.float16(a), np.float16(b)
        got = np.zeros(3, np.bool_)
        got[:] = [not (a < b and b >= a), not a > b, not a == b]   # poisoned: all wrong
        k[1, 1](got, a, b)
        np.testing.assert_array_equal(got, [a < b and b >= a, a > b, a == b])


def frexp_ldexp(m, e, back, x):
    i = cuda.grid(1)
    if i < x.size:
        m[i], e[i] = math.frexp(x[i])
        back[i] = math.ldexp(m[i], e[i])


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_math_frexp_ldexp(dt):
    x = (rng.standard_normal(256) * 10.0 ** rng.integers(-5, 5, 256)).astype(dt)
    x[:3] = [np.inf, -np.inf, np.nan]
    m, back = np.full_like(x, 7), np.full_like(x, 7)
    e = np.full(x.shape, -77, np.int32)
    cuda.jit(frexp_ldexp)[2, 128](m, e, back, x)
    fm, fe = np.frexp(x[3:])
    np.testing.assert_array_equal(m[3:], fm)
    np.testing.assert_array_equal(e[3:], fe)
    np.testing.assert_array_equal(back[3:], x[3:])
    assert np.isinf(m[0]) and np.isinf(m[1]) and np.isnan(m[2])
    np.testing.assert_array_equal(e[:3], 0)     # CUDA's (and Numba's) exponent there


def transcendental(r, x, y):
    i = cuda.grid(1)
    if i < x.size:
        r[i, 0] = math.sin(x[i])
        r[i, 1] = math.cos(x[i])
        r[i, 2] = math.exp(x[i])
        r[i, 3] = math.log(y[i])
        r[i, 4] = math.sqrt(y[i])
        r[i, 5] = x[i] / y[i]
        r[i, 6] = math.tanh(x[i])


def test_fastmath_close_to_precise():
    sig = "void(float32[:, :], float32[:], float32[:])"
    fast = cuda.jit(sig, fastmath=True)(transcendental)
    prec = cuda.jit(sig)(transcendental)
    x = rng.uniform(-3, 3, 512).astype(np.float32)
    y = rng.uniform(0.5, 8, 512).astype(np.float32)
    rf, rp = np.full((512, 7), np.nan, np.float32), np.full((512, 7), np.nan, np.float32)
    fast[4, 128](rf, x, y)
    prec[4, 128](rp, x, y)
    want = np.stack([np.sin(x), np.cos(x), np.exp(x), np.log(y), np.sqrt(y), x / y,
                     np.tanh(x)], axis=1)
    np.testing.assert_allclose(rp, want, rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(rf, want, rtol=1e-3, atol=1e-3)
    assert "div.approx" in fast.inspect_asm(sig)


def builtin_minmax(a, b, c):
    i = cuda.grid(1)
    if i < len(c):
        c[i, 0] = np.float64(max(a[i], b[i]))
        c[i, 1] = np.float64(min(a[i], b[i]))


@pytest.mark.parametrize("left, right", [(np.float64, np.float64), (np.float32, np.float64),
                                         (np.float64, np.float32), (np.float32, np.float32)])
def test_float_minmax(left, right):
    a = rng.uniform(-5, 5, 200).astype(left)
    b = rng.uniform(-5, 5, 200).astype(right)
    a[::11] = np.nan
    b[3::13] = np.nan
    c = np.full((200, 2), 7.0)
    k = cuda.jit(builtin_minmax)
    k[2, 128](a, b, c)
    # numba-cuda lowers max / min of two floats to libdevice's fmax / fmin: a NaN
    # loses on either side (cujit's cuda.jit does the same; jit.rawkernel keeps Python's)
    want = [[np.fmax(x, y), np.fmin(x, y)] for x, y in zip(a.tolist(), b.tolist())]
    np.testing.assert_array_equal(c, np.array(want))
    assert "max.f" in next(iter(k.inspect_asm().values()))


def simple_clz(ary, c):
    ary[0] = cuda.clz(c)


def simple_ffs(ary, c):
    ary[0] = cuda.ffs(c)


def simple_brev(ary, c):
    ary[0] = cuda.brev(c)


@pytest.mark.parametrize("sig, func, value", [
    ("void(int32[:], int32)", simple_clz, None), ("void(int32[:], uint32)", simple_clz, None),
    ("void(int32[:], int64)", simple_clz, None), ("void(int32[:], int32)", simple_ffs, None),
    ("void(int32[:], uint64)", simple_ffs, None), ("void(uint32[:], uint32)", simple_brev, None)])
def test_bits_with_python_ints(sig, func, value):
    """Numba's test_clz_i4 and friends: a Python int given for a declared
    int32 parameter runs the int32 kernel (clz in 32 bits)"""
    k = cuda.jit(sig)(func)
    width = 64 if "int64" in sig.split(",")[1] else 32
    out_dt = np.uint32 if "uint32[:]" in sig else np.int32
    for v in [0, 1, 0x00100000, (1 << (width - 1)) | 5] + [int(x) for x in
                                                          rng.integers(1, 1 << 31, 4)]:
        ary = np.full(1, 99, out_dt)
        k[1, 1](ary, v)
        if func is simple_clz:
            want = width - v.bit_length()
        elif func is simple_ffs:
            want = (v & -v).bit_length()
        else:
            want = int(format(v, "032b")[::-1], 2)
        assert ary[0] == want, (sig, v)
