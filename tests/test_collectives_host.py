"""The collectives' generated CUDA run on the CPU, one OS thread per CUDA
thread: tests/gpu/test_collectives_gpu.py's own cases, with its launch
replaced.  test_kernels_host.py's shim runs threads one after another, which
barriers and shuffles cannot live with; this one runs a block's threads
together (threadIdx thread-local, __shared__ static, __syncthreads a barrier
of the block, the shuffles an exchange through memory between two barriers
of the lanes in the mask).  It checks the semantics of cujit's own
collective code: lane order, partial warps, valid items, 2-D blocks, storage
reused by calls one after another, each spelling.  Not the GPU's memory
model or timing: tests/gpu runs the same cases on the hardware."""
import ctypes
import os
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "gpu"))
import test_collectives_gpu as cases  # noqa: E402
from test_kernels_host import (CXX, ENTRY, SHIM, host_source, marshal,  # noqa: E402
                               param_type, split_params)

THREADS = r"""
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>
struct cj_bar {
    std::mutex m;
    std::condition_variable cv;
    int count = 0;
    unsigned gen = 0;
    void wait(int n)
    {
        std::unique_lock<std::mutex> l(m);
        unsigned g = gen;
        if (++count == n) {
            count = 0;
            gen++;
            cv.notify_all();
        } else if (!cv.wait_for(l, std::chrono::seconds(60), [&] { return gen != g; })) {
            fprintf(stderr, "cj_bar: %d of %d threads waited 60 s: a deadlock\n", count, n);
            abort();
        }
    }
};
static cj_bar cj_block_bar, cj_warp_bar[32];
static unsigned cj_slot[32][32];
static inline int cj_host_rank()
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
static inline void __syncthreads() { cj_block_bar.wait(blockDim.x * blockDim.y * blockDim.z); }
/* K 0: from lane d, 1: from lane - d, 2: from lane + d (own value out of range) */
template <int K> static unsigned cj_host_shfl(unsigned mask, unsigned v, int d)
{
    const int r = cj_host_rank(), w = r >> 5, l = r & 31, n = __builtin_popcount(mask);
    cj_slot[w][l] = v;
    cj_warp_bar[w].wait(n);
    const int src = K == 0 ? d : K == 1 ? l - d : l + d;
    const unsigned out = src < 0 || src > 31 ? v : cj_slot[w][src];
    cj_warp_bar[w].wait(n);
    return out;
}
#define __shfl_sync(m, v, d) cj_host_shfl<0>(m, v, d)
#define __shfl_up_sync(m, v, d) cj_host_shfl<1>(m, v, d)
#define __shfl_down_sync(m, v, d) cj_host_shfl<2>(m, v, d)
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
"""

LAUNCH = r"""
extern "C" void cj_host_launch(void **args, const unsigned *grid, const unsigned *block)
{
    gridDim = {grid[0], grid[1], grid[2]};
    blockDim = {block[0], block[1], block[2]};
    for (unsigned bx = 0; bx < grid[0]; bx++) {
        std::vector<std::thread> ts;
        for (unsigned tz = 0; tz < block[2]; tz++)
        for (unsigned ty = 0; ty < block[1]; ty++)
        for (unsigned tx = 0; tx < block[0]; tx++) {
            ts.emplace_back([=] {
                blockIdx = {bx, 0, 0};
                threadIdx = {tx, ty, tz};
                %s(%s);
            });
        }
        for (auto &t : ts) {
            t.join();
        }
    }
}
"""

_BUILT = {}


def build(src, tmp):
    if src in _BUILT:
        return _BUILT[src]
    m = ENTRY.search(src)
    types = [param_type(p) for p in split_params(m.group(2))]
    call = ", ".join("*(P%d *)args[%d]" % (k, k) for k in range(len(types)))
    typedefs = "".join("typedef %s P%d;\n" % (t, k) for k, t in enumerate(types))
    shim = SHIM.replace("static cj_dim3 threadIdx, blockIdx, blockDim, gridDim;",
                        "static thread_local cj_dim3 threadIdx, blockIdx;\n"
                        "static cj_dim3 blockDim, gridDim;")
    cpp = os.path.join(tmp, "k%d.cpp" % len(_BUILT))
    so = cpp[:-4] + ".so"
    with open(cpp, "w") as f:
        f.write(shim + THREADS + src + "\n" + typedefs + LAUNCH % (m.group(1), call))
    r = subprocess.run([CXX, "-std=c++17", "-O1", "-w", "-shared", "-fPIC", "-pthread", "-o",
                        so, cpp], capture_output=True, text=True)
    assert r.returncode == 0, "host compile failed:\n" + r.stderr[-3000:]
    lib = ctypes.CDLL(so)
    lib.cj_host_launch.argtypes = [ctypes.POINTER(ctypes.c_void_p),
                                   ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint)]
    _BUILT[src] = (lib, types)
    return _BUILT[src]


def dim3(v):
    v = (v,) if isinstance(v, int) else tuple(v)
    return (ctypes.c_uint * 3)(*(v + (1,) * (3 - len(v))))


@pytest.fixture
def on_host(monkeypatch, tmp_path):
    if CXX is None:
        pytest.skip("no host C++ compiler (g++ or clang++)")

    def run(kernel, grid, block, *args):
        src = host_source(kernel.inspect_cuda(*args))
        lib, types = build(src, str(tmp_path))
        objs = [marshal(t, a) for t, a in zip(types, args)]
        ptrs = (ctypes.c_void_p * len(objs))(*[ctypes.addressof(o) for o in objs])
        lib.cj_host_launch(ptrs, dim3(grid), dim3(block))
    monkeypatch.setattr(cases, "run", run)


SIZES = [32, 96, 1000]
DTYPES = [np.int8, np.float16, np.float32, np.complex64]


@pytest.mark.parametrize("bs", SIZES)
@pytest.mark.parametrize("dt", [d for d in DTYPES if np.dtype(d).kind != "c"])
def test_block_reduce(on_host, bs, dt):
    cases.test_block_reduce(bs, dt)


@pytest.mark.parametrize("bs", [96, 1000])
def test_block_reduce_complex(on_host, bs):
    cases.test_block_reduce_complex_numpy_order(np.complex128, bs)


@pytest.mark.parametrize("bs", SIZES)
@pytest.mark.parametrize("dt", DTYPES)
def test_block_scan(on_host, bs, dt):
    cases.test_block_scan(bs, dt)


@pytest.mark.parametrize("bs", SIZES)
@pytest.mark.parametrize("dt", [np.int32])
def test_warp_reduce_and_scan(on_host, bs, dt):
    cases.test_warp_reduce_and_scan(bs, dt)


@pytest.mark.parametrize("block", [(32, 4), (10, 10), (7, 9, 3)])
def test_2d_and_3d_blocks(on_host, block):
    cases.test_2d_and_3d_blocks_rank_x_fastest(block)


def test_float16_sums_round_once(on_host):
    cases.test_float16_sums_round_once(96)


def test_back_to_back_calls(on_host):
    cases.test_back_to_back_calls_reuse_storage()


@pytest.mark.parametrize("bs", [32, 1000])
@pytest.mark.parametrize("dt", [np.int8, np.complex64])
def test_cupyx_spelling(on_host, bs, dt):
    cases.test_cupyx_warp_reduce(bs, dt)
    cases.test_cupyx_block_reduce(bs, dt)


@pytest.mark.parametrize("bs", [96, 1000])
def test_coop_spelling(on_host, bs):
    cases.test_coop_block_reduce_and_sum(bs, np.uint64)
    cases.test_coop_block_scans(bs, "exclusive", np.int32)
    cases.test_coop_block_scans(bs, "inclusive", np.float32)
    cases.test_coop_warp(np.uint32)
