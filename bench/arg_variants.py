"""Which shape of the first pass of argmax over a flat float32 array reaches
the highest share of copy bandwidth on this GPU (to choose what the stdlib's
arg_blocks should look like).  Pass 1 only (one candidate index per block),
CUDA events, median of 20; beside cujit.argmax and cupy.argmax whole.
Run on the GPU machine: PYTHONPATH=. python3 bench/arg_variants.py"""
import cupy as cp
import numpy as np

from cupy_timing import copy_bandwidth, gpu_ms

import cujit

N = 1 << 28
SRC = r'''
__device__ __forceinline__ void take(float &bv, long long &bi, float w, long long j)
{
    /* w comes later than bv: a NaN best stays, a NaN candidate or a larger value wins */
    if (bv == bv && (w != w || w > bv)) { bv = w; bi = j; }
}
__device__ void block_best(float bv, long long bi, const float *x, long long *part)
{
    __shared__ long long best[32];
    for (int d = 16; d > 0; d >>= 1) {
        long long oj = __shfl_down_sync(0xffffffffu, bi, d);
        float ov = x[oj >= 0 ? oj : 0];
        if (oj >= 0 && (bi < 0 || (bv == bv && (ov != ov || ov > bv)) || (ov == bv && oj < bi)
                        || (ov != ov && bv != bv && oj < bi))) { bv = ov; bi = oj; }
    }
    if ((threadIdx.x & 31) == 0) best[threadIdx.x >> 5] = bi;
    __syncthreads();
    if (threadIdx.x == 0) {
        long long b = best[0];
        for (int w = 1; w < (int)(blockDim.x >> 5); w++) {
            long long c = best[w];
            float cv = x[c], v = x[b];
            if ((v == v && (cv != cv || cv > v)) || (cv == v && c < b)) b = c;
        }
        part[blockIdx.x] = b;
    }
}
/* scalar loads, U in flight, blocks interleaved (the stdlib's shape, 1-d) */
extern "C" __global__ void scalar(const float *__restrict__ x, long long *part, int n)
{
    const int step = gridDim.x * blockDim.x;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    float bv = x[0];
    long long bi = -1;
    if (j < n) { bv = x[j]; bi = j; j += step; }
    for (; j + (U - 1) * step < n; j += U * step) {
        float v[U];
#pragma unroll
        for (int k = 0; k < U; k++) v[k] = x[j + k * step];
#pragma unroll
        for (int k = 0; k < U; k++) take(bv, bi, v[k], j + k * step);
    }
    for (; j < n; j += step) take(bv, bi, x[j], j);
    block_best(bv, bi, x, part);
}
/* float4 loads, U in flight, blocks interleaved */
extern "C" __global__ void vec4(const float *__restrict__ x, long long *part, int n)
{
    const int step = gridDim.x * blockDim.x, n4 = n / 4;
    const float4 *x4 = (const float4 *)x;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    float bv = x[0];
    long long bi = -1;
    if (j < n4) { bv = x[4 * j]; bi = 4 * j; }
    for (; j + (U - 1) * step < n4; j += U * step) {
        float4 v[U];
#pragma unroll
        for (int k = 0; k < U; k++) v[k] = x4[j + k * step];
#pragma unroll
        for (int k = 0; k < U; k++) {
            long long b = 4LL * (j + k * step);
            take(bv, bi, v[k].x, b); take(bv, bi, v[k].y, b + 1);
            take(bv, bi, v[k].z, b + 2); take(bv, bi, v[k].w, b + 3);
        }
    }
    for (; j < n4; j += step) {
        float4 q = x4[j];
        long long b = 4LL * j;
        take(bv, bi, q.x, b); take(bv, bi, q.y, b + 1); take(bv, bi, q.z, b + 2); take(bv, bi, q.w, b + 3);
    }
    block_best(bv, bi, x, part);
}
'''

copy_bw = copy_bandwidth(N)
sms = cp.cuda.Device().attributes["MultiProcessorCount"]
print(f"copy {copy_bw:.1f} GB/s, {sms} SMs")
xc = cp.random.rand(N, dtype=cp.float32)
ref = int(cp.argmax(xc))
xd = cujit.to_device(cp.asnumpy(xc))


def pct(t):
    return 100 * 4 * N / t / 1e6 / copy_bw


t = gpu_ms(lambda: cp.argmax(xc))
print(f"{'cupy.argmax (whole)':30s} {t:.4f} ms {pct(t):6.1f} %")
t = gpu_ms(lambda: cujit.argmax(xd))
print(f"{'cujit.argmax (whole)':30s} {t:.4f} ms {pct(t):6.1f} %  {'ok' if int(cujit.asnumpy(cujit.argmax(xd))) == ref else 'WRONG'}")
part = cp.empty(1 << 16, dtype=cp.int64)
for U in (4, 8, 16):
    mod = cp.RawModule(code=SRC, options=("-DU=%d" % U,))
    for kname in ("scalar", "vec4"):
        k = mod.get_function(kname)
        for per_sm in (4, 6, 8, 16):
            for block in (256, 512):
                if per_sm * block > 4096:
                    continue
                grid = sms * per_sm
                part.fill(-7)
                run = lambda k=k, grid=grid, block=block: k((grid,), (block,), (xc, part, np.int32(N)))
                t = gpu_ms(run)
                cand = part[:grid].get()
                vals = cp.asnumpy(xc[cp.asarray(cand)])
                best = int(cand[int(np.argmax(vals))])
                print(f"{kname:7s} U{U:<3d} grid {grid:5d} block {block:4d}: {t:.4f} ms {pct(t):6.1f} %"
                      f"{'' if best == ref else '  WRONG'}")
