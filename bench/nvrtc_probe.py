"""Where NVRTC's time goes for a small generated kernel, in this process:
loading the library, the first compilation (one-time set-up inside NVRTC),
and later ones; CUBIN against PTX only, with and without --Ofast-compile=min.
Needs no GPU: python3 bench/nvrtc_probe.py"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
t0 = time.perf_counter()
from cujit import _cujit as C           # noqa: E402

SRC = r'''
template <typename T, int N> struct alignas(sizeof(T) * N) cj_pack { T v[N]; };
static __device__ __forceinline__ float f(float x, float y) { return x * y + 1.0f; }
extern "C" __global__ void k(const float *__restrict__ a, const float *__restrict__ b,
                             float *out, int n)
{
    int i = (int)blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = (int)blockDim.x * gridDim.x, nv = n / 4;
    for (int j = i; j < nv; j += stride) {
        const cj_pack<float, 4> p = ((const cj_pack<float, 4> *)a)[j];
        const cj_pack<float, 4> q = ((const cj_pack<float, 4> *)b)[j];
        cj_pack<float, 4> r;
#pragma unroll
        for (int e = 0; e < 4; e++) r.v[e] = f(p.v[e], q.v[e]);
        ((cj_pack<float, 4> *)out)[j] = r;
    }
    for (i += nv * 4; i < n; i += stride) out[i] = f(a[i], b[i]);
}
'''
BASE = ["-lineinfo", "--std=c++17", "-minimal"]
t1 = time.perf_counter()
C._nvrtc_version()                      # loads the library
t2 = time.perf_counter()
print(f"import {1e3 * (t1 - t0):.1f} ms, load NVRTC {1e3 * (t2 - t1):.1f} ms")
for label, arch, cubin, extra in (
        ("first, cubin", "sm_90", True, []),
        ("cubin", "sm_90", True, []),
        ("cubin", "sm_90", True, []),
        ("cubin -Ofc=min", "sm_90", True, ["--Ofast-compile=min"]),
        ("cubin -Ofc=min", "sm_90", True, ["--Ofast-compile=min"]),
        ("ptx only", "compute_90", False, []),
        ("ptx only", "compute_90", False, []),
        ("ptx -Ofc=min", "compute_90", False, ["--Ofast-compile=min"])):
    t = time.perf_counter()
    C._nvrtc_compile(SRC, "k", arch=arch, cubin=cubin, options=BASE + extra)
    print(f"  {label:16s} {1e3 * (time.perf_counter() - t):6.1f} ms")
