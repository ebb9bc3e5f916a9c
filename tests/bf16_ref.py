"""Exact references for bfloat16 tests (tests/test_bf16_nogpu.py on the
host, tests/gpu/test_bf16_gpu.py on the GPU): rounding of any real number
(a Fraction, so that doubles, int64 and a*b+c are exact) to bfloat16 in the
four modes, conversions to integers, and random bfloat16 data.  ml_dtypes
gives the dtype; its own conversions from double round twice (through
float32), so exact answers come from here."""
import math
from fractions import Fraction

import numpy as np

try:
    import ml_dtypes
    BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:         # the tests that need it skip
    ml_dtypes = None
    BF16 = None

MAX_BITS = 0x7F7F           # the largest finite bfloat16
INF_BITS = 0x7F80


def value_of_bits(b):
    """the bfloat16 of bits b (0 .. 0xffff) as a Python float (exact)"""
    return float(np.array([int(b) << 16], np.uint32).view(np.float32)[0])


def round_bits(v, mode="rn"):
    """bits of the real number v (int, float or Fraction) rounded to
    bfloat16: 'rn' nearest even, 'rz' toward zero, 'rd' down, 'ru' up"""
    if isinstance(v, float) and math.isnan(v):
        return 0x7FC0
    if isinstance(v, float) and math.isinf(v):
        return INF_BITS | (0x8000 if v < 0 else 0)
    x = Fraction(v)
    sign = 0x8000 if x < 0 else 0
    m = abs(x)
    # the magnitudes' neighbours: k counts bfloat16 magnitudes (bits without sign)
    lo = 0
    hi = INF_BITS
    while hi - lo > 1:      # the largest k with value(k) <= m
        mid = (lo + hi) // 2
        if Fraction(value_of_bits(mid)) <= m:
            lo = mid
        else:
            hi = mid
    below = Fraction(value_of_bits(lo))
    if below == m:
        return lo | sign
    away = mode == "ru" and not sign or mode == "rd" and sign
    if mode in ("rz", "rd", "ru"):
        k = lo + 1 if away else lo
        return (k if k <= INF_BITS else INF_BITS) | sign
    # nearest: the next magnitude up is lo + 1 (lo + 1 == INF_BITS: 2^128 for rounding)
    above = Fraction(2) ** 128 if lo + 1 == INF_BITS else Fraction(value_of_bits(lo + 1))
    mid = (below + above) / 2
    k = lo + 1 if m > mid or (m == mid and lo % 2 == 1) else lo
    return k | sign


def to_bits(a):
    """a bfloat16 array's bits (uint16)"""
    return np.asarray(a).view(np.uint16)


def from_bits(bits):
    return np.asarray(bits, np.uint16).view(BF16)


def random_bf16(rng, n, lo=-100.0, hi=100.0):
    """n random bfloat16 numbers in [lo, hi] (float32's truncated)"""
    x = rng.uniform(lo, hi, n).astype(np.float32)
    return from_bits((x.view(np.uint32) >> 16).astype(np.uint16))


def bits_of_values(values, mode="rn"):
    return np.array([round_bits(v, mode) for v in values], np.uint16)


ROUND = {"rn": np.rint, "rz": np.trunc, "rd": np.floor, "ru": np.ceil}


def to_int(a, dtype, mode):
    """CUDA's bfloat16 -> integer conversion: rounded by mode, saturated to
    the type's range, NaN -> 0"""
    info = np.iinfo(dtype)
    out = []
    for v in np.asarray(a).astype(np.float64):
        r = float(ROUND[mode](v))
        out.append(0 if math.isnan(r) else int(min(max(r, info.min), info.max))
                   if math.isinf(r) else min(max(int(r), info.min), info.max))
    return np.array(out, dtype=dtype)
