"""Foreign device functions (cuda.declare_device): CUDA C++ from a .cu file
and from cuda.CUSource, compiled into the kernel's program; Numba's ABI
(the result through a pointer, a void function's through a void *) and the
C ABI; arguments converted to the declared types; calls from kernels and
from device functions, twice in one expression; two sources that call each
other; a raw pointer from ffi.from_buffer (when cffi is installed) and
from a CPointer parameter; float16 through __half."""
import os

import numpy as np

from cujit import cuda
from cujit.cuda import types

from ._common import poison

HERE = os.path.dirname(os.path.abspath(__file__))

# a generator of this module's own: the shared one's stream (_common) stays
# what the modules after this one were written against
_rng = np.random.default_rng(20261125)


def rand(shape, dtype=np.float32, lo=-10, hi=10):
    """Uniform random values in [lo, hi] (integers inclusive)"""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return _rng.uniform(lo, hi, shape).astype(dt)
    return _rng.integers(lo, hi, shape, endpoint=True, dtype=dt)

# Numba's ABI, from a file on disk
scale3 = cuda.declare_device("scale3", "float32(float32)",
                             link=os.path.join(HERE, "data", "scale3.cu"))

# the C ABI, from memory; int and float arguments converted to double
axpb = cuda.declare_device("axpb", "float64(float64, float64, float64)", abi="c",
                           link=cuda.CUSource("""
extern "C" __device__ double axpb(double a, double x, double b) { return a * x + b; }
"""))

# two sources, one calling the other; a set of them, as Numba takes
_twice = cuda.CUSource("""
extern "C" __device__ int twice(long long *out, long long a) { *out = 2 * a; return 0; }
""")
_quad = cuda.CUSource("""
extern "C" __device__ int twice(long long *out, long long a);
extern "C" __device__ int quad_plus(long long *out, long long a, int b) {
    long long t;
    twice(&t, a);
    twice(&t, t);
    *out = t + b;
    return 0;
}
""")
quad_plus = cuda.declare_device("quad_plus", "int64(int64, int32)", link={_twice, _quad})

# a void function writing through a pointer, Numba's ABI (void *out first)
swap2 = cuda.declare_device("swap2", types.void(types.CPointer(types.int32)),
                            link=cuda.CUSource("""
extern "C" __device__ int swap2(void *out, int *a) {
    int t = a[0]; a[0] = a[1]; a[1] = t;
    return 0;
}
"""))

# a void function of the C ABI
bump = cuda.declare_device("bump", types.void(types.CPointer(types.float64), types.float64),
                           abi="c", link=cuda.CUSource("""
extern "C" __device__ void bump(double *p, double by) { *p += by; }
"""))

# float16 as __half (cuda_fp16.h), both ways
hscale = cuda.declare_device("hscale", "float16(float16, float32)", abi="c",
                             link=cuda.CUSource("""
#include <cuda_fp16.h>
extern "C" __device__ __half hscale(__half a, float s) {
    return __float2half(__half2float(a) * s);
}
"""))


@cuda.jit(device=True)
def via_device(x):
    return scale3(x) + scale3(x + 1)          # declared, called twice in a device function


@cuda.jit
def use_scale3(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = scale3(x[i])


@cuda.jit
def use_via_device(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = via_device(x[i]) + scale3(x[i])


@cuda.jit
def use_axpb(a, x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = axpb(a[i], x[i], i)          # float32, int64 and the index converted


@cuda.jit
def use_quad_plus(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = quad_plus(x[i], i)


@cuda.jit
def use_swap2_cpointer(p, n):
    i = cuda.grid(1)
    if i < n:
        swap2(p + 2 * i)


@cuda.jit
def use_hscale(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = hscale(x[i], 1.5)


def _scale3(x):
    return np.float32(3) * x + np.float32(0.5)


CASES = [
    (use_scale3, (rand(32, np.float32), poison(32, np.float32)),
     [('extern "C" __device__\nint scale3(float *out, float a)', True),
      ("cj_ext_scale3(", True)]),
    (use_via_device, (rand(32, np.float32), poison(32, np.float32))),
    (use_axpb, (rand(32, np.float32), rand(32, np.int64), poison(32, np.float64))),
    (use_quad_plus, (rand(32, np.int64), poison(32, np.int64))),
    (use_hscale, (rand(32, np.float16), poison(32, np.float16)), [("cj_exthalf", True)]),
    (use_swap2_cpointer, ("void(int32*, int64)",), [("cj_ext_swap2(p + ", True)]),
]

RUN = [
    (use_scale3, 1, 32, lambda: (rand(32, np.float32), poison(32, np.float32)),
     lambda x, out: {1: _scale3(x)}),
    (use_via_device, 1, 32, lambda: (rand(32, np.float32), poison(32, np.float32)),
     lambda x, out: {1: _scale3(x) + _scale3(x + np.float32(1)) + _scale3(x)}),
    (use_axpb, 2, 32, lambda: (rand(64, np.float32), rand(64, np.int64), poison(64, np.float64)),
     lambda a, x, out: {2: a.astype(np.float64) * x + np.arange(64)}),
    (use_quad_plus, 1, 48, lambda: (rand(40, np.int64, -10**9, 10**9), poison(40, np.int64)),
     lambda x, out: {1: 4 * x + np.arange(40)}),
    (use_hscale, 1, 32, lambda: (rand(32, np.float16, -4, 4), poison(32, np.float16)),
     lambda x, out: {1: (x.astype(np.float32) * np.float32(1.5)).astype(np.float16)}),
]

try:
    import cffi
except ImportError:             # cffi is optional: ffi.from_buffer's kernels need it
    cffi = None

if cffi is not None:
    ffi = cffi.FFI()

    @cuda.jit
    def use_swap2_buffer(x, n):
        i = cuda.grid(1)
        if i < n:
            swap2(ffi.from_buffer(x[2 * i:]))

    @cuda.jit
    def use_bump(x, by):
        i = cuda.grid(1)
        if i < x.size:
            bump(ffi.from_buffer(x[i:]), by[i])

    def _swapped(x):
        y = x.copy()
        y[0:2 * 20:2], y[1:2 * 20:2] = x[1:2 * 20:2], x[0:2 * 20:2]
        return y

    CASES += [
        (use_swap2_buffer, (rand(45, np.int32), 20)),
        (use_bump, (rand(32, np.float64), rand(32, np.float64))),
    ]
    RUN += [
        (use_swap2_buffer, 1, 32, lambda: (rand(45, np.int32, -1000, 1000), 20),
         lambda x, n: {0: _swapped(x)}),
        (use_bump, 1, 32, lambda: (rand(32, np.float64), rand(32, np.float64)),
         lambda x, by: {0: x + by}),
    ]
