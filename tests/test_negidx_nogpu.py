"""Negative indices known only at run time (tests/negidx_cases.py) without a
GPU: cuda.jit kernels count a negative signed index from the end, as Numba
and Python do (codegen's cj_wrap), and codegen/nonneg.c proves ordinary
indices non-negative so that they pay nothing.

The kernels run on the host through test_kernels_host.py's shim, one thread
after another (the cases need no barrier; a shared array is a static there),
on fresh random data against NumPy.  The same bodies as jit.rawkernel
(cujit's own dialect, as cupyx.jit) take the index as it is: no wrap, and
u[i - 1] at i == 0 reads the element before the array.  On the GPU:
tests/gpu/test_negidx_gpu.py."""
import ctypes
import os
import re
import shutil
import sys
import tempfile

import numpy as np
import pytest

import cujit
from cujit import cuda, jit
from test_kernels_host import (CXX, ENTRY, dim3, host_library, host_source, marshal,
                               param_type, split_params)
from test_runtime_nogpu import nvrtc_or_skip

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import negidx_cases  # noqa: E402

KERNELS = negidx_cases.load(cuda, "cujit").kernels()
RAW = negidx_cases.raw_kernels(jit)
WRAP = re.compile(r"cj_wrap\((?!I i)")      # a call, not the prelude's definition


@pytest.fixture(scope="module")
def tmp():
    d = tempfile.mkdtemp(prefix="cujit-negidx-")
    yield d
    shutil.rmtree(d, ignore_errors=True)


def host_run(kernel, grid, block, args, tmp):
    """the kernel's CUDA for these arguments built for the host and run on
    them, threads one after another (__shared__ arrays as statics)"""
    src = host_source(kernel.inspect_cuda(*args)).replace("__shared__", "static")
    m = ENTRY.search(src)
    types = [param_type(p) for p in split_params(m.group(2))]
    objs = [marshal(t, a) for t, a in zip(types, args)]
    lib = host_library(src, m.group(1), types[:len(args)],
                       os.path.join(tmp, "k%d" % abs(hash(src))))
    ptrs = (ctypes.c_void_p * len(objs))(*[ctypes.addressof(o) for o in objs])
    lib.cj_host_launch(ptrs, dim3(grid), dim3(block))


def wraps(src):
    return len(WRAP.findall(src))


# ---- cuda.jit: Numba's semantics on the host ----

@pytest.mark.skipif(CXX is None, reason="no host C++ compiler (g++ or clang++)")
@pytest.mark.parametrize("name", sorted(negidx_cases.CASES))
def test_cuda_jit_counts_from_the_end(name, tmp):
    nvrtc_or_skip()
    c = negidx_cases.CASES[name]
    inputs = c.make(np.random.default_rng())
    args = c.args(*inputs)
    grid, block = c.config(inputs)
    host_run(KERNELS[name], grid, block, args, tmp)
    for k, want in zip(c.outs, c.ref(*inputs)):
        np.testing.assert_allclose(args[k], want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(set(negidx_cases.CASES) - {"slice_start"}))
def test_cuda_jit_emits_the_wrap(name):
    """each case's negative index is a wrap in the CUDA (the slice's start is
    counted from the end by the view itself, cj_vs)"""
    nvrtc_or_skip()
    c = negidx_cases.CASES[name]
    args = c.args(*c.make(np.random.default_rng(1)))
    assert wraps(KERNELS[name].inspect_cuda(*args)) >= 1


def test_boundscheck_applies_after_the_wrap(tmp):
    """boundscheck=True: u[i - 1] at i == 0 is u[-1], in range (as Numba
    checks after its wrap); the check still sees the wrapped index"""
    nvrtc_or_skip()

    @cuda.jit(boundscheck=True)
    def k(u, out):
        i = cuda.grid(1)
        if i < u.shape[0]:
            out[i] = u[i - 1]
    u = np.random.default_rng().standard_normal(50)
    src = k.inspect_cuda(u, u)
    assert "cj_bc(cj_wrap(" in src, src
    if CXX is not None:
        out = np.zeros(50)
        host_run(k, 1, 64, [u, out], tmp)
        np.testing.assert_array_equal(out, np.roll(u, 1))


def test_dynamic_shared_memory_wraps_by_its_size():
    """a dynamic shared array's extent is the launch's bytes over the
    element size (as Numba sizes it): the wrap divides cj_dyn_smem_size()"""
    nvrtc_or_skip()

    @cuda.jit
    def k(u, out):
        sh = cuda.shared.array(0, dtype=np.float32)
        t = cuda.threadIdx.x
        sh[t] = u[t]
        cuda.syncthreads()
        out[t] = sh[t - 1]
    u = np.zeros(32, np.float32)
    src = k.inspect_cuda(u, u)
    assert "cj_wrap((int)((long long)t - 1LL), (int)(cj_dyn_smem_size() / 4))" in src or \
        re.search(r"cj_wrap\([^;]*cj_dyn_smem_size\(\) / 4\)", src), src
    assert k.inspect_ptx(u, u)      # NVRTC takes it


# ---- cujit's own dialect: the index as it is ----

@pytest.mark.parametrize("name", sorted(RAW))
def test_rawkernel_does_not_wrap(name):
    """jit.rawkernel (cupyx.jit's semantics) emits no wrap for the same bodies"""
    nvrtc_or_skip()
    c = negidx_cases.CASES.get(name) or negidx_cases.CASES["shared_local_const"]
    args = c.args(*c.make(np.random.default_rng(1)))
    assert wraps(RAW[name].inspect_cuda(*args)) == 0


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler (g++ or clang++)")
def test_rawkernel_reads_before_the_array(tmp):
    """u[i - 1] at i == 0 in a raw kernel reads the element before u's first
    (here the first of a larger buffer u is a view of), and out[i - 1]
    stores there: the index is taken as it is, as in cupyx.jit and C++"""
    nvrtc_or_skip()
    @jit.rawkernel()
    def prev(u, out):
        i = jit.grid(1)
        if i < u.shape[0]:
            out[i] = u[i - 1]
    big = np.random.default_rng().standard_normal(negidx_cases.N + 1)
    u = big[1:]
    out = np.zeros(negidx_cases.N)
    grid, block = negidx_cases._grid1(negidx_cases.N)
    host_run(prev, grid, block, [u, out], tmp)
    np.testing.assert_array_equal(out, big[:-1])        # u[-1] is big[0]
    bigout = np.zeros(negidx_cases.N + 1)
    host_run(RAW["store_before"], grid, block, [u.copy(), bigout[1:]], tmp)
    np.testing.assert_array_equal(bigout[:-1], u)      # out[-1] is bigout[0]


# ---- the analysis: no wrap where the index is proven >= 0 ----

def src_of(fn, *args, **opts):
    nvrtc_or_skip()
    return cuda.jit(**opts)(fn).inspect_cuda(*args)


F32 = np.zeros(64, np.float32)
M32 = np.zeros((8, 8), np.float32)


def test_no_wrap_in_stencil_matmul_grid_stride():
    """the common kernels: guarded stencils, matrix multiplies (plain and
    tiled with shared memory), grid-stride loops, loop counters"""
    def stencil(u, out):
        i = cuda.grid(1)
        n = u.shape[0]
        if 0 < i < n - 1:
            out[i] = u[i - 1] - 2 * u[i] + u[i + 1]

    def stencil_exit(u, out):
        i = cuda.grid(1)
        if i == 0 or i >= u.shape[0] - 1:
            return
        out[i] = u[i - 1] + u[i + 1]

    def stencil2d(a, out):
        i, j = cuda.grid(2)
        if i >= 1 and j >= 1 and i < a.shape[0] - 1 and j < a.shape[1] - 1:
            out[i, j] = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1]

    def matmul(A, B, C):
        i, j = cuda.grid(2)
        if i < C.shape[0] and j < C.shape[1]:
            tmp = 0.0
            for k in range(A.shape[1]):
                tmp += A[i, k] * B[k, j]
            C[i, j] = tmp

    def tiled(A, B, C):
        sA = cuda.shared.array((8, 8), dtype=np.float32)
        sB = cuda.shared.array((8, 8), dtype=np.float32)
        x, y = cuda.grid(2)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        bpg = cuda.gridDim.x
        tmp = np.float32(0.0)
        for i in range(bpg):
            sA[tx, ty] = A[x, ty + i * 8]
            sB[tx, ty] = B[tx + i * 8, y]
            cuda.syncthreads()
            for j in range(8):
                tmp += sA[tx, j] * sB[j, ty]
            cuda.syncthreads()
        C[x, y] = tmp

    def grid_stride(a, x, y, out):
        start = cuda.grid(1)
        stride = cuda.gridsize(1)
        for i in range(start, x.shape[0], stride):
            out[i] = a * x[i] + y[i]

    def counters(u, out, n):
        i = cuda.grid(1)
        k = 0
        while k < 4:
            j = i * 4 + k
            out[j % out.shape[0]] = u[min(j, u.shape[0] // 2) if j > 0 else 0]
            k += 1
        for m in range(u.shape[0] - 1, -1, -1):
            out[m] += u[m] * (m >> 1) + u[m & n]
        t = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
        out[t // 2] = u[len(u) >> 1 if t > 10 ** 9 else t % 7]

    assert wraps(src_of(stencil, F32, F32)) == 0
    assert wraps(src_of(stencil_exit, F32, F32)) == 0
    assert wraps(src_of(stencil2d, M32, M32)) == 0
    assert wraps(src_of(matmul, M32, M32, M32)) == 0
    assert wraps(src_of(tiled, M32, M32, M32)) == 0
    assert wraps(src_of(grid_stride, np.float32(2), F32, F32, F32)) == 0
    assert wraps(src_of(counters, F32, F32, np.int32(3))) == 0


def test_wrap_where_not_proven():
    """a parameter, a difference, a count down, an array's value, a
    variable a def rebinds through nonlocal: each keeps its wrap"""
    def param(u, out, k):
        out[0] = u[k]

    def diff(u, out):
        i = cuda.grid(1)
        out[i] = u[i - 1]

    def down(u, out):
        i = cuda.grid(1)
        j = 5
        while j > -3:
            j -= 1
        out[i] = u[j]

    def value(u, idx, out):
        i = cuda.grid(1)
        out[i] = u[idx[i]]

    def rebound(u, out):
        i = cuda.grid(1)
        k = 0

        def move():
            nonlocal k
            k = -1
        move()
        out[i] = u[k]

    assert wraps(src_of(param, F32, F32, np.int32(1))) == 1
    assert wraps(src_of(param, F32, F32, np.uint32(1))) == 0       # unsigned: >= 0
    assert wraps(src_of(diff, F32, F32)) == 1
    assert wraps(src_of(down, F32, F32)) == 1
    assert wraps(src_of(value, F32, np.zeros(64, np.int32), F32)) == 1
    assert wraps(src_of(rebound, F32, F32)) == 1


def test_guard_holds_until_assigned():
    """a guard's bound (of a variable, or of an expression such as i - k)
    holds only until what it reads is assigned again, and not in a loop
    whose body assigns it; an array element's value is not one"""
    def after(u, out):
        i = cuda.grid(1)
        if i > 0:
            out[0] = u[i - 1]        # proven
            i = i - 5
            out[1] = u[i - 1]        # not
        return

    def loop(u, out):
        i = cuda.grid(1)
        if i > 0:
            for k in range(3):
                out[k] = u[i - 1]    # not: the body assigns i
                i = i - 5

    def expr_guard(u, out, k):
        i = cuda.grid(1)
        out[0] = u[i - k] if i - k >= 0 else 0.0     # proven: the guard's expression
        if i - k > 0:
            out[1] = u[i - k - 1]                    # proven: >= 1, less 1
            k = k - 9
            out[2] = u[i - k]                        # not: k assigned since

    def element_guard(u, idx, out):
        i = cuda.grid(1)
        if idx[i] >= 0:
            idx[i] = -1
            out[0] = u[idx[i]]                       # not: an element may change

    assert wraps(src_of(after, F32, F32)) == 1
    assert wraps(src_of(loop, F32, F32)) == 1
    assert wraps(src_of(expr_guard, F32, F32, np.int64(2))) == 1
    assert wraps(src_of(element_guard, F32, np.zeros(64, np.int64), F32)) >= 1


def test_rawkernel_keeps_its_index():
    """cujit's own dialect is unchanged: an index written from the end
    (a[-k - 1]) counts from the end, a[i - 1] is taken as it is"""
    nvrtc_or_skip()

    @jit.rawkernel()
    def k(u, out, n):
        i = jit.grid(1)
        out[i] = u[i - 1] + u[-n - 1]
    src = k.inspect_cuda(F32, F32, np.int32(1))
    assert wraps(src) == 0 and " < 0 ? " in src, src
