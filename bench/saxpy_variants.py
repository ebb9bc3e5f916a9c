"""Which CUDA spellings of a one-element-per-thread saxpy reach the highest
share of device-copy bandwidth on this GPU (to choose what cujit emits).
Run on the GPU machine: python3 bench/saxpy_variants.py"""
import cupy as cp
import numpy as np

from cupy_timing import copy_bandwidth, gpu_ms

N = 1 << 28
HEAD = 'extern "C" __global__ void k('
VARIANTS = {
    "plain": HEAD + "float a, const float *x, const float *y, float *out, int n)"
    "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = a * x[i] + y[i]; }",
    "restrict": HEAD + "float a, const float *__restrict__ x, const float *__restrict__ y, "
    "float *__restrict__ out, int n)"
    "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = a * x[i] + y[i]; }",
    "ldg_stcs": HEAD + "float a, const float *x, const float *y, float *out, int n)"
    "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) __stcs(out + i, a * __ldg(x + i) + __ldg(y + i)); }",
    "ldcs_stcs": HEAD + "float a, const float *x, const float *y, float *out, int n)"
    "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) __stcs(out + i, a * __ldcs(x + i) + __ldcs(y + i)); }",
    "ldlu_stcs": HEAD + "float a, const float *x, const float *y, float *out, int n)"
    "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) __stcs(out + i, a * __ldlu(x + i) + __ldlu(y + i)); }",
    "stcs": HEAD + "float a, const float *x, const float *y, float *out, int n)"
    "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) __stcs(out + i, a * x[i] + y[i]); }",
    "vec4": HEAD + "float a, const float *x, const float *y, float *out, int n)"
    "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n / 4) { float4 p = ((const float4*)x)[i], q = ((const float4*)y)[i];"
    " float4 r; r.x = a*p.x+q.x; r.y = a*p.y+q.y; r.z = a*p.z+q.z; r.w = a*p.w+q.w; ((float4*)out)[i] = r; } }",
    "vec4_cs": HEAD + "float a, const float *x, const float *y, float *out, int n)"
    "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n / 4) { float4 p = __ldcs((const float4*)x + i), q = __ldcs((const float4*)y + i);"
    " float4 r; r.x = a*p.x+q.x; r.y = a*p.y+q.y; r.z = a*p.z+q.z; r.w = a*p.w+q.w; __stcs((float4*)out + i, r); } }",
}


x = cp.random.rand(N, dtype=cp.float32)
y = cp.random.rand(N, dtype=cp.float32)
out = cp.empty_like(x)
copy_bw = copy_bandwidth(N)
print(f"copy {copy_bw:.1f} GB/s")
a = np.float32(2.0)
for name, code in VARIANTS.items():
    k = cp.RawKernel(code, "k")
    per = 4 if name.startswith("vec4") else 1
    for block in (256, 512, 1024):
        grid = (N // per + block - 1) // block
        out.fill(cp.nan)
        t = gpu_ms(lambda: k((grid,), (block,), (a, x, y, out, np.int32(N))))
        ok = bool(cp.allclose(out, a * x + y))
        bw = 3 * 4 * N / t / 1e6
        print(f"{name:10s} block {block:4d}: {t:.4f} ms {bw:7.1f} GB/s {100 * bw / copy_bw:5.1f} % {'ok' if ok else 'WRONG'}")
