"""Device functions: called from kernels and from each other (defined before
or after their caller), specialised per call-site argument types (the same
function with int and float arguments in one kernel), returning a value,
a tuple, or nothing; several returns; arrays as arguments."""
import math

import numpy as np

from cujit import jit

from ._common import poison, rand


@jit.rawkernel(device=True)
def clamp(v, lo, hi):
    return min(max(v, lo), hi)


@jit.rawkernel(device=True)
def floor_divmod(a, b):
    return a // b, a % b


@jit.rawkernel(device=True)
def poly(x):
    return 3 * square(x) + 2 * x + 1          # calls a device function defined below


@jit.rawkernel(device=True)
def square(x):
    return x * x


@jit.rawkernel(device=True)
def sign(x):
    if x > 0:
        return 1
    elif x < 0:
        return -1
    return 0


@jit.rawkernel(device=True)
def store_pair(arr, i, a, b):
    arr[i, 0] = a
    arr[i, 1] = b


@jit.rawkernel(device=True)
def stats3(a, b, c):
    lo = min(a, b, c)
    hi = max(a, b, c)
    return lo, hi, (a + b + c) / 3


@jit.rawkernel(device=True)
def norm2(x, y):
    return math.sqrt(square(x) + square(y))


@jit.rawkernel(device=True)
def triangle(n):
    s = 0
    for k in range(n + 1):
        s += k
    return s


@jit.rawkernel(device=True)
def store_if_positive(arr, i, v):
    if v <= 0:
        return                                   # an early bare return
    arr[i] = v


@jit.rawkernel(device=True)
def by_mode(x, mode):
    if mode == "double":                         # string constants compare while compiling
        return x * 2
    if mode != "neg" and "abc" < mode <= "half" and mode != b"half":
        return x / 2
    return -x


@jit.rawkernel()
def use_string_modes(x, out):
    i = jit.grid(1)
    if i < x.size:
        out[i, 0] = by_mode(x[i], "double")
        out[i, 1] = by_mode(x[i], "half")
        out[i, 2] = by_mode(x[i], "neg")


@jit.rawkernel()
def use_void_return(x, out):
    i = jit.grid(1)
    if i < x.size:
        out[i] = -1.0
        store_if_positive(out, i, x[i])


@jit.rawkernel()
def use_clamp(f, k, out_f, out_k):
    i = jit.grid(1)
    if i < f.size:
        out_f[i] = clamp(f[i], -1.0, 1.0)       # float32 instance
        out_k[i] = clamp(k[i], -3, 3)           # int64 instance of the same function


@jit.rawkernel()
def use_tuple_returns(a, b, q, r, s):
    i = jit.grid(1)
    if i < a.size:
        qq, rr = floor_divmod(a[i], b[i])
        q[i] = qq
        r[i] = rr
        lo, hi, mean = stats3(a[i], b[i], qq)
        s[i, 0] = lo
        s[i, 1] = hi
        s[i, 2] = mean
        t = floor_divmod(a[i], 5)
        s[i, 3] = t[0] * 10 + t[1]              # a tuple held in a variable


def _tuple_ref(a, b, q, r, s):
    qq, rr = np.floor_divide(a, b), np.remainder(a, b)
    st = np.stack([np.minimum(np.minimum(a, b), qq), np.maximum(np.maximum(a, b), qq),
                   (a.astype(np.float64) + b + qq) / 3, (a // 5) * 10 + a % 5], axis=1)
    return {2: qq, 3: rr, 4: st}


@jit.rawkernel()
def use_nested(x, out):
    i = jit.grid(1)
    if i < x.size:
        out[i, 0] = poly(x[i])
        out[i, 1] = sign(x[i])
        out[i, 2] = norm2(x[i], 2.0)
        out[i, 3] = triangle(i)
        store_pair(out, i, out[i, 0], out[i, 1])     # arrays pass to device functions


def _nested_ref(x, out):
    i = np.arange(x.size)
    p = 3 * x * x + 2 * x + 1
    cols = [p, np.sign(x), np.sqrt(x * x + 4), i * (i + 1) // 2]
    return {1: np.stack([c.astype(np.float64) for c in cols], axis=1)}


@jit.rawkernel(device=True)
def lane_sum(v):
    off = 16
    while off > 0:
        v += jit.shfl_down_sync(0xffffffff, v, off)
        off //= 2
    return v


@jit.rawkernel()
def intrinsics_in_device_fn(x, out):
    i = jit.grid(1)
    s = lane_sum(x[i])
    if jit.laneid() == 0:
        out[i // 32] = s


CASES = [
    (use_clamp, (rand(32, np.float32, -3, 3), rand(32, np.int64), poison(32, np.float32),
                 poison(32, np.int64)), [("__device__", True)]),
    (use_tuple_returns, (rand(32, np.int32), rand(32, np.int32, 1, 9), poison(32, np.int32),
                         poison(32, np.int32), poison((32, 4), np.float64))),
    (use_tuple_returns, (rand(32, np.float64), rand(32, np.float64, 1, 9),
                         poison(32, np.float64), poison(32, np.float64),
                         poison((32, 4), np.float64))),
    (use_nested, (rand(32, np.float32), poison((32, 4), np.float64))),
    (use_nested, (rand(32, np.int16), poison((32, 4), np.float64))),
    (intrinsics_in_device_fn, (rand(64, np.float32), poison(2, np.float32))),
    (use_void_return, (rand(16, np.float32), poison(16, np.float32))),
]

RUN = [
    (use_string_modes, 1, 32, lambda: (rand(32, np.float32), poison((32, 3), np.float32)),
     lambda x, out: {1: np.stack([x * 2, x / 2, -x], axis=1)}),
    (use_clamp, 1, 32, lambda: (rand(32, np.float32, -3, 3), rand(32, np.int64),
                                poison(32, np.float32), poison(32, np.int64)),
     lambda f, k, of, ok: {2: np.clip(f, -1, 1), 3: np.clip(k, -3, 3)}),
    (use_tuple_returns, 1, 32,
     lambda: (rand(32, np.int32), rand(32, np.int32, -9, -1), poison(32, np.int32),
              poison(32, np.int32), poison((32, 4), np.float64)), _tuple_ref),
    (use_nested, 1, 32, lambda: (rand(32, np.float64), poison((32, 4), np.float64)),
     _nested_ref),
    (intrinsics_in_device_fn, 1, 64, lambda: (rand(64, np.float64), poison(2, np.float64)),
     lambda x, out: {1: x.reshape(2, 32).sum(axis=1)}),
    (use_void_return, 1, 16, lambda: (rand(16, np.float32), poison(16, np.float32)),
     lambda x, out: {1: np.where(x > 0, x, np.float32(-1))}),
]
