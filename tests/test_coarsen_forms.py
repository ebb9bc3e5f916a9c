"""The spellings of an elementwise kernel that get the coarsened entry
<kernel>_x<vec> (codegen/coarsen.c, ARCHITECTURE.md section 3): the index
as jit.grid(1), cuda.grid(1) or blockIdx.x * blockDim.x + threadIdx.x in any
operand order; the bound as `if i < n:` (n an integer parameter), `i <
x.shape[0]`, `i < len(x)`, `i < x.size`, or `if i >= n: return` before the
body.  Variants that are not the same kernel keep one element per thread.

Both entries also run here on the CPU through the host shim of
test_kernels_host.py (one thread after another), against NumPy, with n
smaller than the arrays and sizes that are not a multiple of the pack; the GPU
runs are in tests/gpu/test_coarsen_gpu.py."""
import ctypes
import hashlib
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from cujit import cuda, jit

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_kernels_host import (CXX, SHIM, dim3, host_source, marshal,  # noqa: E402
                               param_type, split_params)

rng = np.random.default_rng()


@jit.rawkernel()
def grid_n(a, x, y, out, n):
    i = jit.grid(1)
    if i < n:
        out[i] = a * x[i] + y[i]


@jit.rawkernel()
def bdt_n(a, x, y, out, n):
    i = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x
    if i < n:
        out[i] = a * x[i] + y[i]


@jit.rawkernel()
def dbt_n(a, x, y, out, n):
    i = jit.blockDim.x * jit.blockIdx.x + jit.threadIdx.x
    if n > i:
        out[i] = a * x[i] + y[i]


@jit.rawkernel()
def tbd_shape(a, x, y, out):
    i = jit.threadIdx.x + jit.blockIdx.x * jit.blockDim.x
    if i < x.shape[0]:
        out[i] = a * x[i] + y[i]


@jit.rawkernel()
def tdb_len(a, x, y, out):
    i = jit.threadIdx.x + jit.blockDim.x * jit.blockIdx.x
    if i < len(x):
        out[i] = a * x[i] + y[i]


@jit.rawkernel()
def exit_n(a, x, y, out, n):
    i = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x
    if i >= n:
        return
    t = a * x[i]
    out[i] = t + y[i]


@jit.rawkernel()
def exit_two(a, x, y, out, n):
    i = jit.grid(1)
    if n <= i or i >= out.size:
        return
    out[i] = a * x[i] + y[i]


@cuda.jit
def numba_bdt(a, x, y, out, n):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if i < n:
        out[i] = a * x[i] + y[i]


@cuda.jit
def numba_grid(a, x, y, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a * x[i] + y[i]


@cuda.jit
def numba_exit(a, x, y, out):
    i = cuda.grid(1)
    if i >= x.shape[0]:
        return
    out[i] = a * x[i] + y[i]


@jit.rawkernel()
def documented_bdt(a, x, y, out, n):
    """a docstring first: no statement, the same kernel (bench/benchlib.py's
    saxpy_cujit_bdt has one, and lost its multi-element entry to it)"""
    i = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x
    if i < n:
        out[i] = a * x[i] + y[i]


# not the same kernel with several elements per thread
@jit.rawkernel()
def wrong_axis(a, x, y, out, n):
    i = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.y
    if i < n:
        out[i] = a * x[i] + y[i]


@jit.rawkernel()
def wrong_dim(a, x, y, out, n):
    i = jit.blockIdx.x * jit.blockDim.y + jit.threadIdx.x
    if i < n:
        out[i] = a * x[i] + y[i]


@jit.rawkernel()
def no_thread(a, x, y, out, n):
    i = jit.blockIdx.x * jit.blockDim.x
    if i < n:
        out[i] = a * x[i] + y[i]


@jit.rawkernel()
def exit_on_data(a, x, y, out, n):
    i = jit.grid(1)
    if x[i] < 0:
        return
    out[i] = a * x[i] + y[i]


@jit.rawkernel()
def exit_else(a, x, y, out, n):
    i = jit.grid(1)
    if i >= n:
        return
    else:
        out[i] = a * x[i] + y[i]


@jit.rawkernel()
def exit_then_return(a, x, y, out, n):
    i = jit.grid(1)
    if i >= n:
        return
    if x[i] < 0:
        return
    out[i] = a * x[i] + y[i]


@jit.rawkernel()
def param_assigned(a, x, y, out, n):
    i = jit.grid(1)
    if i < n:
        if x[i] > 0.5:
            a = a + 1
        out[i] = a * x[i] + y[i]


@jit.rawkernel()
def exit_float_bound(a, x, y, out, n):
    i = jit.grid(1)
    if i >= a:
        return
    out[i] = a * x[i] + y[i]


@jit.rawkernel()
def exit_bound_of_element(a, x, y, out, n):
    i = jit.grid(1)
    if i >= x[0]:
        return
    out[i] = a * x[i] + y[i]


@jit.rawkernel()
def exit_float_const(a, x, y, out, n):
    i = jit.grid(1)
    if i >= 1e30:
        return
    out[i] = a * x[i] + y[i]


@jit.rawkernel()
def float_const_bound(a, x, y, out, n):
    i = jit.grid(1)
    if i < 100.5:
        out[i] = a * x[i] + y[i]


@jit.rawkernel()
def const_loop(a, x, y, out, n):
    i = jit.grid(1)
    if i < n:
        v = y[i]
        for _ in range(3):
            v = a * x[i] + v
        out[i] = v


@jit.rawkernel()
def runtime_loop(a, x, y, out, n):
    i = jit.grid(1)
    if i < n:
        v = y[i]
        for _ in range(n % 5):
            v = a * x[i] + v
        out[i] = v


@jit.rawkernel()
def while_loop(a, x, y, out, n):
    i = jit.grid(1)
    if i < n:
        v = y[i]
        k = 0
        while k < 3:
            v = a * x[i] + v
            k += 1
        out[i] = v


SN = "(float32, float32[::1], float32[::1], float32[::1], int64)"
S3 = "(float32, float32[::1], float32[::1], float32[::1])"
# kernel, signature, takes n, coarsened
CASES = [
    (grid_n, SN, True, True), (bdt_n, SN, True, True), (dbt_n, SN, True, True),
    (tbd_shape, S3, False, True), (tdb_len, S3, False, True), (exit_n, SN, True, True),
    (exit_two, SN, True, True), (numba_bdt, SN, True, True), (numba_grid, S3, False, True),
    (numba_exit, S3, False, True), (documented_bdt, SN, True, True),
    (wrong_axis, SN, True, False), (wrong_dim, SN, True, False), (no_thread, SN, True, False),
    (exit_on_data, SN, True, False), (exit_else, SN, True, False),
    (exit_then_return, SN, True, False), (param_assigned, SN, True, False),
    (exit_float_bound, SN, True, False), (exit_bound_of_element, SN, True, False),
    (exit_float_const, SN, True, False),
    # a loop of a constant trip count keeps the entry; one bounded at run
    # time (range(n % 5), while) gives a thread long work of its own, where
    # packing halves the threads that keep memory busy (bench section 15 c)
    (const_loop, SN, True, True), (runtime_loop, SN, True, False),
    (while_loop, SN, True, False),
]
IDS = [c[0].__name__ for c in CASES]


def coarse_entry(src):
    m = re.search(r'extern "C" __global__ void \w+_x\d+\(.*', src, re.S)
    return m.group(0) if m else None


@pytest.mark.parametrize("kernel,sig,takes_n,coarse", CASES, ids=IDS)
def test_which_forms_get_the_entry(kernel, sig, takes_n, coarse):
    src = kernel.inspect_cuda(sig)
    entry = coarse_entry(src)
    assert (entry is not None) == coarse, src
    if coarse:
        # the whole pack is checked against the kernel's own bound
        guard = re.search(r"if \(cj_i0 \+ 4 <= cj_nthreads[^\n]*", entry).group(0)
        if takes_n:
            assert re.search(r"cj_i0 \+ 4 <= n\b", guard), guard
        else:
            assert "<= x.shape[0]" in guard and "<= out.shape[0]" in guard, guard


def test_float_bound_is_checked_per_element():
    """a float bound is no pack bound (1e30 does not convert to an integer):
    the entry tests the condition for each element"""
    entry = coarse_entry(float_const_bound.inspect_cuda(SN))
    guard = re.search(r"if \(cj_i0 \+ 4 <= cj_nthreads[^\n]*", entry).group(0)
    assert "100" not in guard, guard
    loop = entry.split("for (int cj_e = 0; cj_e < 4; cj_e++) {", 1)[1]
    assert re.search(r"if \(\(?\(?\w*\)?i < 100\.5", loop.replace("(double)", "")), loop


def test_exit_form_is_compiled_by_nvrtc():
    ptx = exit_n.inspect_ptx(SN)
    assert re.search(r"\.entry \w+_x4\(", ptx)


def test_int64_bound_in_32_bit_indexing():
    """with 32-bit indices an int64 n is compared in 64 bits (cut to 32 bits
    a large n could wrap to a small or negative number)"""
    x = np.ones(8, np.float32)
    src = bdt_n.inspect_cuda(np.float32(1), x, x, x, np.int64(8))
    entry = coarse_entry(src)
    assert "const int cj_i0" in entry, entry
    assert "(long long)cj_i0 + 4 <= n" in entry, entry


# ---- both entries run on the CPU ----

LAUNCH = r"""
extern "C" void cj_host_launch(void **args, const unsigned *grid, const unsigned *block)
{
    gridDim = {grid[0], 1, 1};
    blockDim = {block[0], 1, 1};
    for (unsigned bx = 0; bx < grid[0]; bx++)
    for (unsigned tx = 0; tx < block[0]; tx++) {
        blockIdx = {bx, 0, 0};
        threadIdx = {tx, 0, 0};
        %s(%s);
    }
}
"""
ENTRY = re.compile(r'extern "C" __global__ void (\w+)\((.*)\)\s*$', re.M)


def host_entry(src, which, tmp):
    """the entry `which` ("" plain, "_x4" coarsened) as a callable on the CPU:
    run(args, grid, block)"""
    entries = {m.group(1): m.group(2) for m in ENTRY.finditer(src)}
    name = next(n for n in entries if (n.endswith(which) if which else not re.search(r"_x\d+$", n)))
    types = [param_type(p) for p in split_params(entries[name])]
    call = ", ".join("*(P%d *)args[%d]" % (k, k) for k in range(len(types)))
    typedefs = "".join("typedef %s P%d;\n" % (t, k) for k, t in enumerate(types))
    key = hashlib.sha1((src + name).encode()).hexdigest()[:16]
    cpp, so = os.path.join(tmp, key + ".cpp"), os.path.join(tmp, key + ".so")
    with open(cpp, "w") as f:
        f.write(SHIM + host_source(src) + "\n" + typedefs + LAUNCH % (name, call))
    r = subprocess.run([CXX, "-std=c++17", "-O1", "-w", "-shared", "-fPIC", "-o", so, cpp],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    lib = ctypes.CDLL(so)

    def run(args, grid, block):
        objs = [marshal(t, a) for t, a in zip(types, args)]
        ptrs = (ctypes.c_void_p * len(objs))(*[ctypes.addressof(o) for o in objs])
        lib.cj_host_launch(ptrs, dim3(grid), dim3(block))
    return run, types


def aligned(a):
    """a copy of a whose data is 64-byte aligned (the packs need 16)"""
    buf = np.empty(a.nbytes + 64, np.uint8)
    off = (-buf.ctypes.data) % 64
    out = buf[off:off + a.nbytes].view(a.dtype)
    out[...] = a
    return out


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler (g++ or clang++)")
@pytest.mark.parametrize("kernel,sig,takes_n,coarse", [c for c in CASES if c[3]],
                         ids=[c[0].__name__ for c in CASES if c[3]])
def test_both_entries_on_host(kernel, sig, takes_n, coarse, tmp_path):
    src = kernel.inspect_cuda(sig)
    plain, _ = host_entry(src, "", str(tmp_path))
    packed, types = host_entry(src, "_x4", str(tmp_path))
    block = 32
    for size in (1, 3, 4, 5, 37, 130, 257):
        for n in ((size, size - 1, size // 2, 0) if takes_n else (size,)):
            if n < 0:
                continue
            a = np.float32(rng.standard_normal())
            x = aligned(rng.standard_normal(size).astype(np.float32))
            y = aligned(rng.standard_normal(size).astype(np.float32))
            init = rng.standard_normal(size).astype(np.float32)
            ref = init.copy()
            ref[:n] = a * x[:n] + y[:n]
            if kernel is const_loop:
                ref[:n] = y[:n]
                for _ in range(3):
                    ref[:n] = a * x[:n] + ref[:n]
            threads = size + 5               # more threads than elements, not whole packs
            for run, grid, extra in (
                    (plain, (threads + block - 1) // block, ()),
                    (packed, ((threads + 3) // 4 + block - 1) // block, (threads,))):
                out = aligned(init)
                args = (a, x, y, out) + ((np.int64(n),) if takes_n else ()) + extra
                run(args, grid, block)
                np.testing.assert_allclose(out, ref, rtol=1e-6, atol=1e-5,
                                           err_msg="%s size %d n %d" % (kernel, size, n))
