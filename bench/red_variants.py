"""Which shape of a full float32 sum reaches the highest share of device-copy
bandwidth on this GPU (to choose what cujit's reduction form emits).
Run on the GPU machine: python3 bench/red_variants.py

Every variant is two launches, as cujit's: pass 1 leaves one partial per block,
pass 2 (one block) adds the partials in order, so the result is the same on
every run.  Timed with CUDA events, median of 20, beside cupy.sum."""
import cupy as cp
import numpy as np

from cupy_timing import copy_bandwidth, gpu_ms

N = 1 << 28
COMMON = r'''
__device__ __forceinline__ float warp_sum(float v)
{
    for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
    return v;
}
__device__ __forceinline__ void block_store(float v, float *part)
{
    __shared__ float w[32];
    v = warp_sum(v);
    if ((threadIdx.x & 31) == 0) w[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = w[0];
        for (int i = 1; i < (int)(blockDim.x >> 5); i++) s += w[i];
        part[blockIdx.x] = s;
    }
}
#define ADD4(a, v) a[0] += v.x; a[1] += v.y; a[2] += v.z; a[3] += v.w
#define LOAD(p) LD(p)
extern "C" __global__ void final_sum(const float *part, float *out, int n)
{
    float s = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) s += part[i];
    block_store(s, out);
}
/* a contiguous chunk per block, threads stride by blockDim (cujit today) */
extern "C" __global__ void chunk(const float4 *__restrict__ x, float *part, int n4, int chunk4)
{
    int lo = blockIdx.x * chunk4, hi = min(lo + chunk4, n4);
    float a[4] = {0, 0, 0, 0};
#pragma unroll 4
    for (int j = lo + threadIdx.x; j < hi; j += blockDim.x) { float4 v = LOAD(x + j); ADD4(a, v); }
    block_store((a[0] + a[1]) + (a[2] + a[3]), part);
}
/* the same chunk, U loads issued before any add */
extern "C" __global__ void chunk_batch(const float4 *__restrict__ x, float *part, int n4, int chunk4)
{
    int lo = blockIdx.x * chunk4, hi = min(lo + chunk4, n4);
    const int S = blockDim.x;
    float a[4] = {0, 0, 0, 0};
    int j = lo + threadIdx.x;
    for (; j + (U - 1) * S < hi; j += U * S) {
        float4 v[U];
#pragma unroll
        for (int k = 0; k < U; k++) v[k] = LOAD(x + j + k * S);
#pragma unroll
        for (int k = 0; k < U; k++) { ADD4(a, v[k]); }
    }
    for (; j < hi; j += S) { float4 v = LOAD(x + j); ADD4(a, v); }
    block_store((a[0] + a[1]) + (a[2] + a[3]), part);
}
/* grid-stride over the whole array */
extern "C" __global__ void gstride(const float4 *__restrict__ x, float *part, int n4, int unused)
{
    const int S = gridDim.x * blockDim.x;
    float a[4] = {0, 0, 0, 0};
#pragma unroll 4
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n4; j += S) { float4 v = LOAD(x + j); ADD4(a, v); }
    block_store((a[0] + a[1]) + (a[2] + a[3]), part);
}
/* grid-stride, U loads issued before any add */
extern "C" __global__ void gbatch(const float4 *__restrict__ x, float *part, int n4, int unused)
{
    const int S = gridDim.x * blockDim.x;
    float a[4] = {0, 0, 0, 0};
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    for (; j + (U - 1) * S < n4; j += U * S) {
        float4 v[U];
#pragma unroll
        for (int k = 0; k < U; k++) v[k] = LOAD(x + j + k * S);
#pragma unroll
        for (int k = 0; k < U; k++) { ADD4(a, v[k]); }
    }
    for (; j < n4; j += S) { float4 v = LOAD(x + j); ADD4(a, v); }
    block_store((a[0] + a[1]) + (a[2] + a[3]), part);
}
'''


sms = cp.cuda.Device().attributes["MultiProcessorCount"]
x = cp.random.rand(N, dtype=cp.float32)
ref = float(cp.sum(x.astype(cp.float64)))
copy_bw = copy_bandwidth(N)
print(f"copy {copy_bw:.1f} GB/s, {sms} SMs")
t = gpu_ms(lambda: cp.sum(x))
print(f"{'cupy.sum':34s} {t:.4f} ms {100 * 4 * N / t / 1e6 / copy_bw:6.1f} %")
rows = []
n4 = N // 4
part = cp.empty(65536, dtype=cp.float32)
out = cp.empty(1, dtype=cp.float32)
for ld in ("plain", "ldcs"):
    for U in (4, 8):
        opts = ("-DU=%d" % U, "-DLD(p)=" + ("(*(p))" if ld == "plain" else "__ldcs(p)"))
        mod = cp.RawModule(code=COMMON, options=opts)
        fin = mod.get_function("final_sum")
        for kname in ("chunk", "chunk_batch", "gstride", "gbatch"):
            if U == 8 and kname in ("chunk", "gstride"):
                continue
            k = mod.get_function(kname)
            for per_sm in (2, 4, 8, 16):
                for block in (256, 512, 1024):
                    if per_sm * block > 2048 * 2:
                        continue
                    grid = sms * per_sm
                    chunk4 = (n4 + grid - 1) // grid
                    args = (x, part, np.int32(n4), np.int32(chunk4))

                    def run(k=k, grid=grid, block=block, args=args):
                        k((grid,), (block,), args)
                        fin((1,), (1024,), (part, out, np.int32(grid)))
                    out.fill(cp.nan)
                    t = gpu_ms(run)
                    got = float(out[0])
                    ok = abs(got - ref) <= 1e-4 * abs(ref)
                    pct = 100 * 4 * N / t / 1e6 / copy_bw
                    name = f"{kname} U{U if 'batch' in kname else 4} {ld}"
                    rows.append((pct, name, grid, block))
                    print(f"{name:24s} grid {grid:5d} block {block:4d}: {t:.4f} ms {pct:6.1f} %"
                          f"{'' if ok else '  WRONG %g vs %g' % (got, ref)}")
rows.sort(reverse=True)
print("best:")
for r in rows[:8]:
    print(f"  {r[0]:6.1f} %  {r[1]} grid {r[2]} block {r[3]}")
