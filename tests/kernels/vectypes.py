"""CUDA's vector types in Numba's spelling (cuda.float32x4, its alias
cuda.float4 ...): construction from numbers and from smaller vectors (a
vector made by a call, read once), .x .y .z .w, vectors through device
functions (arguments and results), a loop over a tuple of vectors, and
casts of the numbers given into the element type.  Each kernel reads
random data and writes the lanes; the references are NumPy's."""
import numpy as np

from cujit import cuda

from ._common import poison, rand


@cuda.jit(device=True)
def _swap_xy(v):
    return cuda.float32x2(v.y, v.x)


@cuda.jit(device=True)
def _sum4(v):
    return v.x + v.y + v.z + v.w


@cuda.jit("float64x3(float64x3, float64)", device=True)
def _scale3(v, s):
    return cuda.double3(v.x * s, v.y * s, v.z * s)


@cuda.jit
def float4_parts(x, out):
    """float32x4 from 4 numbers, from (float2, number, number), (number,
    float2, number), (float3, number), (float2, float2), (float4), and
    float2 from a device function's result (read once: a lambda's
    parameter)"""
    i = cuda.grid(1)
    if i < x.shape[0]:
        a, b, c, d = x[i, 0], x[i, 1], x[i, 2], x[i, 3]
        v2 = cuda.float32x2(a, b)
        v3 = cuda.float3(v2, c)
        vs = (cuda.float32x4(a, b, c, d), cuda.float32x4(v2, c, d),
              cuda.float32x4(a, v2, d), cuda.float4(v3, d),
              cuda.float32x4(_swap_xy(v2), cuda.float32x2(c, d)),
              cuda.float32x4(cuda.float32x4(d, c, b, a)))
        for k in range(6):
            v = vs[k]
            out[i, k, 0] = v.x
            out[i, k, 1] = v.y
            out[i, k, 2] = v.z
            out[i, k, 3] = v.w
        out[i, 6, 0] = _sum4(cuda.float32x4(v3, d))
        out[i, 6, 1] = cuda.float1(a).x
        out[i, 6, 2] = cuda.float32x1(cuda.float1(b)).x
        out[i, 6, 3] = cuda.float32x3(cuda.float2(a, b), c).z


def _float4_ref(x, out):
    a, b, c, d = (x[:, k] for k in range(4))
    rows = [(a, b, c, d), (a, b, c, d), (a, a, b, d), (a, b, c, d), (b, a, c, d),
            (d, c, b, a), (((a + b) + c) + d, a, b, c)]
    r = np.stack([np.stack(row, axis=1) for row in rows], axis=1)
    return {1: r.astype(np.float32)}


@cuda.jit
def int_vectors(k, out):
    """integer vectors of every width: lanes cast to the element type
    (int8 wraps as NumPy's astype does), ushort/longlong aliases"""
    i = cuda.grid(1)
    if i < k.shape[0]:
        n = k[i]
        c = cuda.char4(n, n + 1, n * 3, -n)
        s = cuda.short3(n * 1000, n, 7)
        u = cuda.uint32x2(n * n, 5)
        q = cuda.longlong2(n * 100000, cuda.long1(n).x)
        out[i, 0] = c.x
        out[i, 1] = c.y
        out[i, 2] = c.z
        out[i, 3] = c.w
        out[i, 4] = s.x
        out[i, 5] = s.z
        out[i, 6] = u.x + u.y
        out[i, 7] = q.x - q.y


def _int_ref(k, out):
    n = k.astype(np.int64)
    cols = [n.astype(np.int8), (n + 1).astype(np.int8), (n * 3).astype(np.int8),
            (-n).astype(np.int8), (n * 1000).astype(np.int16), np.full_like(n, 7),
            (n * n).astype(np.uint32).astype(np.int64) + 5, n * 100000 - n]
    return {1: np.stack([c.astype(np.int64) for c in cols], axis=1)}


@cuda.jit
def double_device(x, out):
    """float64x3 through a device function compiled for a declared
    signature naming the vector type"""
    i = cuda.grid(1)
    if i < x.shape[0]:
        v = _scale3(cuda.float64x3(x[i, 0], x[i, 1], x[i, 2]), x[i, 3])
        out[i, 0] = v.x
        out[i, 1] = v.y
        out[i, 2] = v.z


def _double_ref(x, out):
    return {1: x[:, :3] * x[:, 3:4]}


def _f32_args():
    return rand((40, 4), np.float32), poison((40, 7, 4), np.float32)


def _int_args():
    return rand(40, np.int32, -200, 200), poison((40, 8), np.int64)


def _f64_args():
    return rand((40, 4), np.float64), poison((40, 3), np.float64)


CASES = [
    (float4_parts, _f32_args(), [("make_float4(", True), ("float2 ", True),
                                 ("make_float1(", True)]),
    (int_vectors, _int_args(), [("make_char4(", True), ("make_short3(", True),
                                ("make_longlong2(", True), ("make_uint2(", True)]),
    (double_device, _f64_args(), [("double3 ", True), ("make_double3(", True)]),
]

RUN = [
    (float4_parts, 2, 32, _f32_args, _float4_ref),
    (int_vectors, 2, 32, _int_args, _int_ref),
    (double_device, 2, 32, _f64_args, _double_ref),
]
