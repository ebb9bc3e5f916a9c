"""bfloat16 on the GPU, against exact references (tests/bf16_ref.py: every
result rounded once from the exact value) on fresh random data: operators
on ml_dtypes arrays (host and device), cuda.bf16's arithmetic (fma
included), comparisons and NaN handling, conversions in each rounding mode
(float32, float64, int64 in; int32, int8, uint16 out), math within one
unit in the last place, atomics, NumPy-style promotion with other dtypes
and Python numbers, a bfloat16 scalar argument and global, a device
function returning bfloat16, and is_bfloat16_supported().

Each case is a plain function (CASES); tests/fakecuda/bf16_scenarios.py
runs the same ones without a GPU, through the fake libcuda with the kernels
compiled for the host (tests/test_bf16_nogpu.py)."""
import math
import os
import sys
from fractions import Fraction

import numpy as np
import pytest

from cujit import cuda
from cujit.cuda import bf16

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import bf16_ref as ref  # noqa: E402

ml_dtypes = pytest.importorskip("ml_dtypes")
BF16 = ref.BF16

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()
N = 1000
GRID, BLOCK = (N + 127) // 128, 128


def exact_bits(values, mode="rn"):
    return ref.bits_of_values(values, mode)


def fr(a):
    return [Fraction(float(v)) for v in np.asarray(a).astype(np.float64)]


def nan_out(shape):
    return ref.from_bits(np.full(shape, 0x7FC1, np.uint16))


# ---- operators ----

@cuda.jit
def operators(out, a, b):
    i = cuda.grid(1)
    if i < a.size:
        out[0, i] = a[i] + b[i]
        out[1, i] = a[i] - b[i]
        out[2, i] = a[i] * b[i]
        out[3, i] = a[i] / b[i]
        out[4, i] = -a[i]
        out[5, i] = abs(a[i])
        x = a[i]
        x *= b[i]
        out[6, i] = x


def check_operators_on_host_arrays():
    a = ref.random_bf16(rng, N, -1e3, 1e3)
    b = ref.random_bf16(rng, N, 0.01, 100)
    out = nan_out((7, N))
    operators[GRID, BLOCK](out, a, b)
    fa, fb = fr(a), fr(b)
    want = [[x + y for x, y in zip(fa, fb)], [x - y for x, y in zip(fa, fb)],
            [x * y for x, y in zip(fa, fb)], [x / y for x, y in zip(fa, fb)],
            [-x for x in fa], [abs(x) for x in fa], [x * y for x, y in zip(fa, fb)]]
    for row, w in enumerate(want):
        np.testing.assert_array_equal(ref.to_bits(out[row]), exact_bits(w), err_msg=f"row {row}")


def check_operators_on_device_arrays():
    a = ref.random_bf16(rng, N, -50, 50)
    b = ref.random_bf16(rng, N, 0.5, 50)
    da, db = cuda.to_device(a), cuda.to_device(b)
    dout = cuda.to_device(nan_out((7, N)))
    assert da.dtype == BF16
    operators[GRID, BLOCK](dout, da, db)
    out = dout.copy_to_host()
    assert out.dtype == BF16
    fa, fb = fr(a), fr(b)
    np.testing.assert_array_equal(ref.to_bits(out[0]), exact_bits([x + y for x, y in zip(fa, fb)]))
    np.testing.assert_array_equal(ref.to_bits(out[3]), exact_bits([x / y for x, y in zip(fa, fb)]))


# ---- cuda.bf16's functions ----

@cuda.jit
def intrinsics(out, a, b, c):
    i = cuda.grid(1)
    if i < a.size:
        out[0, i] = bf16.hadd(a[i], b[i])
        out[1, i] = bf16.hsub_rn(a[i], b[i])
        out[2, i] = bf16.hmul(a[i], b[i])
        out[3, i] = bf16.hdiv(a[i], b[i])
        out[4, i] = bf16.hfma(a[i], b[i], c[i])
        out[5, i] = bf16.hneg(a[i])
        out[6, i] = bf16.habs(a[i])
        out[7, i] = bf16.hmax(a[i], b[i])
        out[8, i] = bf16.hmin(a[i], b[i])
        out[9, i] = bf16.hadd_sat(a[i], b[i])
        out[10, i] = bf16.hmul_sat(a[i], b[i])
        out[11, i] = bf16.hfma_relu(a[i], b[i], c[i])
        out[12, i] = bf16.hfma_sat(a[i], b[i], c[i])
        out[13, i] = bf16.hmax_nan(a[i], b[i])


def check_intrinsics_round_once():
    a = ref.random_bf16(rng, N, -3, 3)
    b = ref.random_bf16(rng, N, 0.25, 3)
    c = ref.random_bf16(rng, N, -3, 3)
    a[:3] = ref.from_bits([0x7FC0, 0x3F80, 0x0001])      # NaN, 1, the smallest subnormal
    out = nan_out((14, N))
    intrinsics[GRID, BLOCK](out, a, b, c)
    fa, fb, fc = (np.asarray(v).astype(np.float64) for v in (a, b, c))
    ex = [Fraction(x) * Fraction(y) + Fraction(z) if x == x else math.nan
          for x, y, z in zip(fa, fb, fc)]

    def sat(v):
        return 0.0 if v != v else min(max(v, 0), 1)

    want = [fa + fb, fa - fb, fa * fb, fa / fb, ex, -fa, np.abs(fa), np.fmax(fa, fb),
            np.fmin(fa, fb), [sat(v) for v in fa + fb], [sat(v) for v in fa * fb],
            [v if v != v else max(v, 0) for v in ex], [sat(v) for v in ex],
            np.maximum(fa, fb)]
    for row, w in enumerate(want):
        got = np.asarray(out[row]).astype(np.float64)
        wnan = np.array([v != v for v in w])
        np.testing.assert_array_equal(np.isnan(got), wnan, err_msg=f"row {row} NaNs")
        w_bits = np.array([ref.round_bits(v) if v == v else 0 for v in w], np.uint16)
        np.testing.assert_array_equal(ref.to_bits(out[row])[~wnan], w_bits[~wnan],
                                      err_msg=f"row {row}")


@cuda.jit
def compare(out, a, b):
    i = cuda.grid(1)
    if i < a.size:
        out[0, i] = bf16.heq(a[i], b[i])
        out[1, i] = bf16.hne(a[i], b[i])
        out[2, i] = bf16.hle(a[i], b[i])
        out[3, i] = bf16.hgt(a[i], b[i])
        out[4, i] = bf16.hequ(a[i], b[i])
        out[5, i] = bf16.hneu(a[i], b[i])
        out[6, i] = bf16.hleu(a[i], b[i])
        out[7, i] = bf16.hgtu(a[i], b[i])
        out[8, i] = a[i] >= b[i]
        out[9, i] = a[i] == b[i]
        out[10, i] = bf16.hisnan(a[i])
        out[11, i] = bf16.hisinf(a[i]) > 0


def check_comparisons_and_nan():
    a = ref.random_bf16(rng, N, -4, 4)
    b = a.copy()
    b[::2] = ref.random_bf16(rng, len(b[::2]), -4, 4)
    a[:4] = ref.from_bits([0x7FC0, 0x7F80, 0xFF80, 0x7FC0])
    out = np.zeros((12, N), np.bool_)
    compare[GRID, BLOCK](out, a, b)
    x, y = np.asarray(a).astype(np.float64), np.asarray(b).astype(np.float64)
    un = np.isnan(x) | np.isnan(y)
    want = [x == y, (x < y) | (x > y), x <= y, x > y, (x == y) | un, x != y, (x <= y) | un,
            (x > y) | un, x >= y, x == y, np.isnan(x), np.isposinf(x)]
    for row, w in enumerate(want):
        np.testing.assert_array_equal(out[row], w, err_msg=f"row {row}")


# ---- conversions ----

@cuda.jit
def conversions_in(out, x, d, v):
    i = cuda.grid(1)
    if i < x.size:
        out[0, i] = bf16.bfloat16_as_int16(bf16.float32_to_bfloat16_rn(x[i]))
        out[1, i] = bf16.bfloat16_as_int16(bf16.float32_to_bfloat16_rz(x[i]))
        out[2, i] = bf16.bfloat16_as_int16(bf16.float32_to_bfloat16_rd(x[i]))
        out[3, i] = bf16.bfloat16_as_int16(bf16.float32_to_bfloat16_ru(x[i]))
        out[4, i] = bf16.bfloat16_as_int16(bf16.float64_to_bfloat16(d[i]))
        out[5, i] = bf16.bfloat16_as_int16(bf16.bfloat16(d[i]))
        out[6, i] = bf16.bfloat16_as_int16(bf16.int64_to_bfloat16_rn(v[i]))
        out[7, i] = bf16.bfloat16_as_int16(bf16.int64_to_bfloat16_rd(v[i]))
        out[8, i] = bf16.bfloat16_as_int16(bf16.uint32_to_bfloat16_ru(v[i] & 0xFFFFFFFF))
        out[9, i] = bf16.bfloat16_as_int16(bf16.bfloat16(v[i]))


def check_conversions_in_each_rounding_mode():
    x = rng.uniform(-1e5, 1e5, N).astype(np.float32)
    d = rng.uniform(-1e5, 1e5, N)
    v = rng.integers(-2 ** 62, 2 ** 62, N, dtype=np.int64)
    d[0] = 1 + 2 ** -8 + 2 ** -40       # float32 would round it onto a tie
    v[0] = 2 ** 62 + 2 ** 54 + 1        # a double would too
    out = np.zeros((10, N), np.int16)
    conversions_in[GRID, BLOCK](out, x, d, v)
    got = out.view(np.uint16)
    xs = [float(t) for t in x]
    for row, mode in enumerate(("rn", "rz", "rd", "ru")):
        np.testing.assert_array_equal(got[row], exact_bits(xs, mode), err_msg=mode)
    np.testing.assert_array_equal(got[4], exact_bits(fr(d)))
    np.testing.assert_array_equal(got[5], exact_bits(fr(d)))
    vs = [int(t) for t in v]
    np.testing.assert_array_equal(got[6], exact_bits(vs, "rn"))
    np.testing.assert_array_equal(got[7], exact_bits(vs, "rd"))
    np.testing.assert_array_equal(got[8], exact_bits([t & 0xFFFFFFFF for t in vs], "ru"))
    np.testing.assert_array_equal(got[9], exact_bits(vs, "rn"))


@cuda.jit
def conversions_out(out, a):
    i = cuda.grid(1)
    if i < a.size:
        out[0, i] = bf16.bfloat16_to_int32_rn(a[i])
        out[1, i] = bf16.bfloat16_to_int32_rz(a[i])
        out[2, i] = bf16.bfloat16_to_int32_rd(a[i])
        out[3, i] = bf16.bfloat16_to_int32_ru(a[i])
        out[4, i] = bf16.bfloat16_to_int8_rz(a[i])
        out[5, i] = bf16.bfloat16_to_uint16_rn(a[i])
        out[6, i] = bf16.bfloat16_to_int64_rd(a[i])
        out[7, i] = bf16.bfloat16_to_float32(a[i])


def check_conversions_out_saturate():
    a = ref.random_bf16(rng, N, -3e4, 3e4)
    a[:4] = ref.from_bits([0x7FC0, 0x7F80, 0xFF80, 0x4F80])     # NaN, inf, -inf, 2^32
    a[4:8] = ref.from_bits([0x3FC0, 0x4020, 0xBFC0, 0xC020])    # 1.5, 2.5, -1.5, -2.5
    out = np.zeros((8, N), np.float64)
    conversions_out[GRID, BLOCK](out, a)
    cases = [(np.int32, "rn"), (np.int32, "rz"), (np.int32, "rd"), (np.int32, "ru"),
             (np.int8, "rz"), (np.uint16, "rn"), (np.int64, "rd")]
    for row, (dt, mode) in enumerate(cases):
        np.testing.assert_array_equal(out[row], ref.to_int(a, dt, mode).astype(np.float64),
                                      err_msg=f"row {row}")
    np.testing.assert_array_equal(out[7], np.asarray(a).astype(np.float64))


# ---- math ----

@cuda.jit
def math_fns(out, a):
    i = cuda.grid(1)
    if i < a.size:
        out[0, i] = bf16.hsqrt(a[i])
        out[1, i] = bf16.hexp(a[i])
        out[2, i] = bf16.hlog2(a[i])
        out[3, i] = bf16.hceil(a[i])
        out[4, i] = bf16.hrint(a[i])
        out[5, i] = bf16.hrcp(a[i])
        out[6, i] = math.sqrt(a[i])
        out[7, i] = math.log(a[i])
        out[8, i] = math.tanh(a[i])


def check_math_within_one_ulp():
    a = ref.random_bf16(rng, N, 0.01, 30)
    out = nan_out((9, N))
    math_fns[GRID, BLOCK](out, a)
    f = np.asarray(a).astype(np.float64)
    want = [np.sqrt(f), np.exp(f), np.log2(f), np.ceil(f), np.rint(f), 1 / f, np.sqrt(f),
            np.log(f), np.tanh(f)]
    for row, w in enumerate(want):
        got = ref.to_bits(out[row]).astype(np.int32)
        w_bits = exact_bits([float(t) for t in w]).astype(np.int32)
        assert np.max(np.abs(got - w_bits)) <= 1, f"row {row}"


# ---- atomics ----

@cuda.jit
def atomics(acc, a):
    i = cuda.grid(1)
    if i < a.size:
        cuda.atomic.add(acc, 0, a[i])
        cuda.atomic.max(acc, 1, a[i])
        cuda.atomic.min(acc, 2, a[i])


def check_atomics():
    # small integers: every partial sum is exact in bfloat16, in any order
    a = ref.from_bits(ref.bits_of_values([int(t) for t in rng.integers(-3, 4, 60)]))
    acc = ref.from_bits(ref.bits_of_values([0, -1000, 1000]))
    atomics[1, 64](acc, a)
    f = np.asarray(a).astype(np.float64)
    np.testing.assert_array_equal(np.asarray(acc).astype(np.float64),
                                  [f.sum(), max(f.max(), -1000), min(f.min(), 1000)])


# ---- typing, arguments, device functions ----

@cuda.jit
def mixed(out, a, i8, i64, f4, s):
    i = cuda.grid(1)
    if i < a.size:
        out[0, i] = a[i] * i8[i]         # bfloat16
        out[1, i] = a[i] + f4[i]         # float32
        out[2, i] = 2 * a[i] + 4 * i64[i] + ml_dtypes.bfloat16(3.0)  # float64
        out[3, i] = a[i] * s + 1.5       # bfloat16 scalar argument, then a Python float:
                                         # float64 (Numba's typing in cuda.jit)
        out[4, i] = a[i] * THREE         # a global bfloat16


THREE = ml_dtypes.bfloat16(3.0)


def check_promotion_with_other_types():
    a = ref.random_bf16(rng, N, -8, 8)
    i8 = rng.integers(-100, 100, N).astype(np.int8)
    i64 = rng.integers(-100, 100, N)
    f4 = rng.uniform(-8, 8, N).astype(np.float32)
    s = ml_dtypes.bfloat16(rng.uniform(-4, 4))
    out = np.full((5, N), np.nan)
    mixed[GRID, BLOCK](out, a, i8, i64, f4, s)
    fa, fs = fr(a), Fraction(float(s))
    np.testing.assert_array_equal(
        out[0], [ref.value_of_bits(b) for b in exact_bits([x * int(y) for x, y in zip(fa, i8)])])
    np.testing.assert_array_equal(out[1], (np.asarray(a).astype(np.float32) + f4).astype(np.float64))
    np.testing.assert_array_equal(out[2], [2.0 * float(x) + 4.0 * float(y) + 3.0
                                           for x, y in zip(fa, i64)])
    step = [ref.value_of_bits(ref.round_bits(x * fs)) for x in fa]
    np.testing.assert_array_equal(out[3], [float(t) + 1.5 for t in step])
    np.testing.assert_array_equal(out[4], [ref.value_of_bits(b) for b in exact_bits([3 * x for x in fa])])


@cuda.jit(device=True)
def fma_dev(x, y, z):
    return x * y + z


@cuda.jit
def through_device_function(out, a, b):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = fma_dev(a[i], b[i], bf16.bfloat16(0.5))


def check_device_function_returns_bfloat16():
    a = ref.random_bf16(rng, N, -10, 10)
    b = ref.random_bf16(rng, N, -10, 10)
    out = nan_out(N)
    through_device_function[GRID, BLOCK](out, a, b)
    prod = [ref.value_of_bits(t) for t in exact_bits([x * y for x, y in zip(fr(a), fr(b))])]
    np.testing.assert_array_equal(ref.to_bits(out), exact_bits([Fraction(p) + Fraction(1, 2)
                                                                for p in prod]))


@cuda.jit
def constructor(out, x):
    out[0] = cuda.types.float32(bf16.bfloat16(x))
    out[1] = cuda.types.float32(bf16.nv_bfloat16(3.14))


def check_is_bfloat16_supported_and_the_constructor():
    assert cuda.is_bfloat16_supported() == (
        tuple(cuda.get_current_device().compute_capability) >= (8, 0))
    x = float(rng.uniform(-100, 100))
    out = np.full(2, np.nan, np.float32)
    constructor[1, 1](out, x)
    assert ref.to_bits(out[:1].astype(BF16))[0] == ref.round_bits(x)
    assert out[1] == ref.value_of_bits(ref.round_bits(Fraction(314, 100)))


CASES = [v for k, v in sorted(globals().items()) if k.startswith("check_")]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__[6:] for c in CASES])
def test_bf16(case):
    case()
