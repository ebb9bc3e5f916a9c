"""What a block reduction costs at NVRTC time: CUB's BlockReduce (the
toolkit's CCCL headers, as cupyx.jit.cub and cuda.coop compile it) against
cujit's own shuffle code (jit.block_reduce) and a kernel with no reduction.
Same NVRTC, same options but -minimal (CUB needs the CUDA headers); PTX
(compute_90) and CUBIN (sm_90); median of 7 compilations after a warm-up.
Needs no GPU: .venv/bin/python bench/collectives_nvrtc.py [CUDA_HOME]"""
import os
import statistics
import sys

import numpy as np

from cujit import jit

import nvrtclib

HOME = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("CUDA_HOME", "/usr/local/cuda")
NV = nvrtclib.load(HOME)
INC = [f"-I{os.path.join(HOME, 'targets', 'x86_64-linux', 'include', d)}" for d in ("cccl", "")]

CUB = r'''
#include <cub/block/block_reduce.cuh>
extern "C" __global__ void k(const float *x, float *y)
{
    typedef cub::BlockReduce<float, 256> BR;
    __shared__ typename BR::TempStorage ts;
    float v = BR(ts).Sum(x[blockIdx.x * 256 + threadIdx.x]);
    if (threadIdx.x == 0) y[blockIdx.x] = v;
}
'''
NONE = r'''
extern "C" __global__ void k(const float *x, float *y)
{
    float v = x[blockIdx.x * 256 + threadIdx.x];
    if (threadIdx.x == 0) y[blockIdx.x] = v;
}
'''


@jit.rawkernel()
def own(x, y):
    v = jit.block_reduce(x[jit.blockIdx.x * 256 + jit.threadIdx.x])
    if jit.threadIdx.x == 0:
        y[jit.blockIdx.x] = v


@jit.rawkernel()
def own_scan(x, y):
    i = jit.blockIdx.x * 256 + jit.threadIdx.x
    y[i] = jit.block_scan(x[i])


def compile_ms(src, opts, cubin):
    ms, log = nvrtclib.compile_ms(NV, src, opts, cubin)
    if log:
        sys.exit(log[:2000])
    return ms


def main():
    x = np.zeros(256, np.float32)
    cases = [("no reduction", NONE, True), ("CUB BlockReduce", CUB, False),
             ("cujit block_reduce", own.inspect_cuda(x, x), True),
             ("cujit block_scan", own_scan.inspect_cuda(x, x), True)]
    compile_ms(NONE, ["--gpu-architecture=compute_90", "-minimal"], False)   # warm-up
    print(f"NVRTC from {HOME}, median of 7 (min), ms")
    for name, src, minimal in cases:
        row = []
        for cubin in (False, True):
            opts = [f"--gpu-architecture={'sm' if cubin else 'compute'}_90", "-lineinfo",
                    "--std=c++17"] + (["-minimal"] if minimal else INC)
            ts = [compile_ms(src, opts, cubin) for _ in range(7)]
            row.append(f"{'cubin' if cubin else 'ptx'} {statistics.median(ts):7.1f} "
                       f"({min(ts):.1f})")
        print(f"  {name:20s} {row[0]:22s} {row[1]}")


if __name__ == "__main__":
    main()
