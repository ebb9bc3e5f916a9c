"""What jit.thrust costs at compile time: the same per-row kernels with
cujit's own algorithms (codegen/thrust.c), without any algorithm, and Thrust's
headers themselves, which NVRTC cannot compile (the time until it gives up
is printed with its first error) and nvcc can (one compilation, when nvcc is
found).  NVRTC with cujit's options; PTX (compute_90) and CUBIN (sm_90);
median of 5 compilations after a warm-up.  Needs no GPU:
.venv/bin/python bench/thrust_nvrtc.py [CUDA_HOME]"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from cujit import jit

import nvrtclib

HOME = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("CUDA_HOME", "/usr/local/cuda")
NV = nvrtclib.load(HOME)
INC = [f"-I{os.path.join(HOME, 'include', d)}" for d in ("cccl", "")]

THRUST = r'''
#include <thrust/sort.h>
#include <thrust/execution_policy.h>
extern "C" __global__ void k(int *x, int n)
{
    int *row = x + threadIdx.x * n;
    thrust::sort(thrust::device, row, row + n);
}
'''


@jit.rawkernel()
def no_algorithm(x):
    row = x[jit.threadIdx.x]
    for k in range(row.shape[0]):
        row[k] = row[k] + 1


@jit.rawkernel()
def own_sort(x):
    row = x[jit.threadIdx.x]
    jit.thrust.sort(jit.thrust.device, row.begin(), row.end())


@jit.rawkernel()
def own_many(x, y):
    row = x[jit.threadIdx.x]
    out = y[jit.threadIdx.x]
    jit.thrust.inclusive_scan(jit.thrust.seq, row.begin(), row.end(), out.begin())
    jit.thrust.stable_sort(jit.thrust.device, out.begin(), out.end())
    n = jit.thrust.unique(jit.thrust.device, out.begin(), out.end()) - out.begin()
    out[0] = n + jit.thrust.lower_bound(jit.thrust.seq, row.begin(), row.end(), 3) - row.begin()


def nvcc_s():
    nvcc = shutil.which("nvcc") or os.path.join(HOME, "bin", "nvcc")
    if not os.path.exists(nvcc):
        return None
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "k.cu")
        with open(src, "w") as f:
            f.write(THRUST)
        t = time.perf_counter()
        r = subprocess.run([nvcc, "-cubin", "-arch=sm_90", "-o", os.path.join(d, "k.cubin"), src],
                           capture_output=True, text=True)
        return time.perf_counter() - t if r.returncode == 0 else None


def main():
    x = np.zeros((32, 64), np.int32)
    cases = [("no algorithm (a loop)", no_algorithm.inspect_cuda(x)),
             ("jit.thrust.sort", own_sort.inspect_cuda(x)),
             ("scan+sort+unique+bound", own_many.inspect_cuda(x, x))]
    base = ["-lineinfo", "--std=c++17", "-minimal"]
    nvrtclib.compile_ms(NV, cases[0][1], ["--gpu-architecture=compute_90"] + base, False)     # warm-up
    print(f"NVRTC from {HOME}, median of 5 (min), ms; load average {os.getloadavg()[0]:.1f}")
    for name, src in cases:
        row = []
        for cubin in (False, True):
            opts = [f"--gpu-architecture={'sm' if cubin else 'compute'}_90"] + base
            ts = [nvrtclib.compile_ms(NV, src, opts, cubin)[0] for _ in range(5)]
            row.append(f"{'cubin' if cubin else 'ptx'} {statistics.median(ts):7.1f} "
                       f"({min(ts):.1f})")
        print(f"  {name:24s} {row[0]:22s} {row[1]}")
    ms, log = nvrtclib.compile_ms(NV, THRUST, ["--gpu-architecture=sm_90", "-lineinfo", "--std=c++17"] + INC,
                         True)
    first = next((ln.strip() for ln in log.splitlines() if "error" in ln), "compiled")
    print(f"  <thrust/sort.h> in NVRTC: {ms:.0f} ms, then: {first[:150]}")
    s = nvcc_s()
    print(f"  <thrust/sort.h> with nvcc -cubin: {s:.1f} s" if s is not None
          else "  nvcc: not found or failed")


if __name__ == "__main__":
    main()
