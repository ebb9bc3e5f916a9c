"""jit.cg (cupyx.jit.cg's cooperative groups), Numba's cuda.cg, the
atomics cuda.atomic.nanmax / nanmin and match_any_sync / match_all_sync,
without a GPU: the CUDA C++ each compiles to, its PTX for sm_90 through
NVRTC, and the errors at the user's line.  The launch path (cooperative
launches and their residency check) runs against the fake driver in
test_runtime_nogpu.py; the results against NumPy in tests/gpu/test_cg_gpu.py."""
import numpy as np
import pytest

import cujit
from cujit import cuda, jit
from cujit.jit import cg
from test_runtime_nogpu import nvrtc_or_skip

F32 = "(float32[::1], float32[::1])"


def ptx(k, sig):
    nvrtc_or_skip()
    p = k.inspect_ptx(sig)
    assert ".entry" in p
    return p


def error_at(k, sig, exc, text):
    """k's compile error: the exception type, a message with `text`, and the
    line of the marked statement (# <- here)"""
    with pytest.raises(exc) as ei:
        k.inspect_cuda(sig)
    e = ei.value
    assert isinstance(e, cujit.CompileError) and text in str(e), str(e)
    import inspect
    src, first = inspect.getsourcelines(k.py_func if hasattr(k, "py_func") else k.__wrapped__)
    marked = [first + i for i, line in enumerate(src) if "# <- here" in line]
    assert e.lineno == marked[0], (e.lineno, marked)
    return e


# ---- the groups ----

def test_thread_block_methods():
    @jit.rawkernel()
    def k(x, out):
        g = cg.this_thread_block()
        i = g.thread_rank()
        x[i] = g.size() + g.num_threads()
        g.sync()
        cg.sync(g)
        gi = g.group_index()
        ti = g.thread_index()
        d = g.dim_threads()
        e = g.group_dim()
        out[i] = gi.x + gi.y + gi.z + ti.x + d.y + e.z
        a, b, c = g.thread_index()
        out[0] = a + b + c
    src = k.inspect_cuda(F32)
    assert "cooperative_groups" not in src        # cujit's own structs, no header
    assert "struct cj_cg_block" in src and "g.sync();" in src
    # only the groups a kernel uses are in its prelude (NVRTC time)
    assert "cj_cg_grid" not in src and "cj_cg_tile" not in src and "cj_coalesced" not in src
    ptx(k, F32)


def test_grid_group_methods():
    @jit.rawkernel()
    def k(x, out):
        g = cg.this_grid()
        r = g.thread_rank()
        if r < x.size:
            x[r] = g.size() + g.num_blocks() + g.block_rank()
        g.sync()
        out[0] = g.is_valid()
        out[1] = g.dim_blocks().x + g.block_index().y + g.group_dim().z
    src = k.inspect_cuda(F32)
    assert "%%envreg1" in src and "atom.add.release.gpu" in src
    ptx(k, F32)
    # the thread ranks of a grid are uint64, as in cupyx.jit
    assert "unsigned long long r;" in src


def test_tiles():
    @jit.rawkernel()
    def k(x, out):
        b = cg.this_thread_block()
        t = cg.tiled_partition(b, 16)
        q = cg.tiled_partition(t, 4)
        i = jit.grid(1)
        v = x[i]
        v += t.shfl_down(v, 8)
        v += t.shfl_xor(v, 4)
        v += q.shfl_up(v, 1)
        v += t.shfl(v, 0)
        t.sync()
        if t.any(v > 0) and q.all(v > 0):
            out[i] = t.ballot(v > 1) + q.meta_group_rank() + q.meta_group_size()
        out[i] += t.thread_rank() + t.size() + t.num_threads() + t.match_any(i)
        m, p = t.match_all(i)
        if p:
            out[i] += m
    src = k.inspect_cuda(F32)
    assert "cj_cg_tile<16, 0>" in src and "cj_cg_tile<4, 16>" in src
    ptx(k, F32)


def test_coalesced_group():
    @jit.rawkernel()
    def k(x, out):
        i = jit.grid(1)
        if x[i] > 0.5:
            c = cg.coalesced_threads()
            v = x[i]
            v += c.shfl_down(v, 1) + c.shfl_up(v, 1) + c.shfl(v, 0)
            out[i] = v + c.thread_rank() + c.size() + c.ballot(v > 1) + c.match_any(i)
            c.sync()
            m, p = c.match_all(i)
            out[i] += m + c.meta_group_rank() + c.meta_group_size() + c.any(p) + c.all(p)
    ptx(k, F32)


def test_memcpy_async_and_wait():
    @jit.rawkernel()
    def k(x, out):
        g = cg.this_thread_block()
        s = jit.shared_memory(np.float32, 256)
        cg.memcpy_async(g, s, 0, x, g.group_index().x * 256, 256 * 4)
        cg.wait(g)
        cg.wait_prior(g, 1)
        cg.memcpy_async(g, out, jit.blockIdx.x * 256, s, 0, 1024, aligned_size=16)
        cg.wait(g)
    src = k.inspect_cuda(F32)
    assert "cj_cg_copy(g, &s[" in src
    ptx(k, F32)


def test_group_passed_to_a_device_function():
    @jit.rawkernel(device=True)
    def total(t, v):
        v += t.shfl_down(v, 2)
        v += t.shfl_down(v, 1)
        return v

    @jit.rawkernel()
    def k(x, out):
        t = cg.tiled_partition(cg.this_thread_block(), 4)
        i = jit.grid(1)
        out[i] = total(t, x[i])
    ptx(k, F32)


def test_numba_cuda_cg_this_grid():
    @cuda.jit
    def k(x):
        g = cuda.cg.this_grid()
        i = cuda.grid(1)
        x[i] += 1
        g.sync()
    assert "cj_cg_grid" in k.inspect_cuda("(float32[::1],)")
    ptx(k, "(float32[::1],)")


def test_grid_sync_marks_a_cooperative_kernel_only():
    @jit.rawkernel()
    def block_only(x):
        cg.this_thread_block().sync()
        x[0] = 1

    @jit.rawkernel()
    def grid_sync(x):
        cg.sync(cg.this_grid())
        x[0] = 1
    # the mark is a launch property; both compile, only grid_sync needs the
    # cooperative launch (the fake-driver scenario 'cooperative' checks it)
    ptx(block_only, "(float32[::1],)")
    ptx(grid_sync, "(float32[::1],)")


def test_outside_a_kernel():
    with pytest.raises(RuntimeError, match="only be used inside"):
        cg.this_thread_block()
    assert "this_grid" in cg.__all__ and repr(cg) == "<cujit namespace jit.cg>"


# ---- errors at the line ----

def test_method_not_of_this_group():
    @jit.rawkernel()
    def k(x, out):
        g = cg.this_thread_block()
        out[0] = g.shfl_down(x[0], 1)     # <- here
    error_at(k, F32, TypeError, "thread_block has no method shfl_down()")


def test_method_on_an_array():
    @jit.rawkernel()
    def k(x, out):
        x.sync()     # <- here
    error_at(k, F32, TypeError, "float32[::1] has no method sync()")


def test_tile_size_not_a_power_of_two():
    @jit.rawkernel()
    def k(x, out):
        t = cg.tiled_partition(cg.this_thread_block(), 12)     # <- here
        x[0] = t.size()
    error_at(k, F32, ValueError, "power of 2 from 1 to 32, got 12")


def test_tile_of_a_smaller_tile():
    @jit.rawkernel()
    def k(x, out):
        t = cg.tiled_partition(cg.this_thread_block(), 8)
        u = cg.tiled_partition(t, 16)     # <- here
        x[0] = u.size()
    error_at(k, F32, ValueError, "from 1 to 8, got 16")


def test_tile_size_not_constant():
    @jit.rawkernel()
    def k(x, n):
        t = cg.tiled_partition(cg.this_thread_block(), n[0])     # <- here
        x[0] = t.size()
    error_at(k, "(float32[::1], int32[::1])", TypeError, "must be a constant")


def test_tiled_partition_of_the_grid():
    @jit.rawkernel()
    def k(x, out):
        t = cg.tiled_partition(cg.this_grid(), 4)     # <- here
        x[0] = t.size()
    error_at(k, F32, TypeError, "does not take a grid group")


def test_sync_of_a_number():
    @jit.rawkernel()
    def k(x, out):
        cg.sync(x[0])     # <- here
    error_at(k, F32, TypeError, "needs a cooperative group")


def test_shuffle_of_a_narrow_type():
    @jit.rawkernel()
    def k(x, out):
        t = cg.tiled_partition(cg.this_thread_block(), 8)
        out[0] = t.shfl(np.int8(x[0]), 0)     # <- here
    error_at(k, F32, TypeError, "32- or 64-bit integer or float, got int8")


def test_wrong_argument_count():
    @jit.rawkernel()
    def k(x, out):
        t = cg.tiled_partition(cg.this_thread_block(), 8)
        out[0] = t.shfl_down(x[0])     # <- here
    error_at(k, F32, TypeError, "expects 2 arguments, got 1")


def test_memcpy_async_of_a_number():
    @jit.rawkernel()
    def k(x, out):
        g = cg.this_thread_block()
        cg.memcpy_async(g, out, 0, x[0], 0, 4)     # <- here
    error_at(k, F32, TypeError, "src must be an array")


def test_xyz_of_a_number():
    @jit.rawkernel()
    def k(x, out):
        out[0] = x[0].x     # <- here
    error_at(k, F32, cujit.CompileError, "has .x, .y and .z")


# ---- atomics nanmax / nanmin ----

@pytest.mark.parametrize("dt", ["float32", "float64", "int32", "uint64", "int64"])
def test_atomic_nanmax_nanmin(dt):
    @cuda.jit
    def k(r, x):
        i = cuda.grid(1)
        if i < x.size:
            cuda.atomic.nanmax(r, 0, x[i])
            cuda.atomic.nanmin(r, 1, x[i])
    sig = "(%s[::1], %s[::1])" % (dt, dt)
    src = k.inspect_cuda(sig)
    if dt.startswith("float"):
        assert "cj_atomic_nanmax(&" in src and "cj_atomic_nanmin(&" in src
    else:       # no NaN among integers: max and min
        assert "cj_atomic_max(&" in src and "cj_atomic_min(&" in src
    ptx(k, sig)
    assert jit.atomic_nanmax.__cujit_builtin__ == "atomic_nanmax"


def test_atomic_nanmax_returns_the_old_value_and_takes_tuple_indices():
    @cuda.jit
    def k(r, x, old):
        i = cuda.grid(1)
        old[i] = cuda.atomic.nanmax(r, (0, 1), x[i])
    ptx(k, "(float32[:, ::1], float32[::1], float32[::1])")


def test_atomic_nanmax_of_complex():
    @cuda.jit
    def k(r, x):
        cuda.atomic.nanmax(r, 0, x[0])     # <- here
    error_at(k, "(complex64[::1], complex64[::1])", cujit.CompileError,
             "cuda.atomic.nanmax() is not supported on complex64 arrays")


# ---- match_any_sync / match_all_sync ----

@pytest.mark.parametrize("dt", ["int32", "uint32", "int64", "float32", "float64"])
def test_match_sync(dt):
    @cuda.jit
    def k(x, out, pred):
        i = cuda.grid(1)
        out[i] = cuda.match_any_sync(0xffffffff, x[i])
        m, p = cuda.match_all_sync(0xffffffff, x[i])
        out[i] += m
        pred[i] = p
    sig = "(%s[::1], uint32[::1], bool[::1])" % dt
    src = k.inspect_cuda(sig)
    assert "__match_any_sync(" in src and "cj_match_all<" in src
    ptx(k, sig)


def test_match_all_is_a_tuple():
    @jit.rawkernel()
    def k(x, out):
        r = jit.match_all_sync(0xffffffff, x[0])
        out[0] = r[0]
        out[1] = r[1]
    ptx(k, "(int32[::1], uint32[::1])")


def test_match_of_a_float16():
    @cuda.jit
    def k(x, out):
        out[0] = cuda.match_any_sync(0xffffffff, x[0])     # <- here
    error_at(k, "(float16[::1], uint32[::1])", TypeError, "got float16")


def test_cg_is_not_a_value():
    @jit.rawkernel()
    def k(x, out):
        c = cg     # <- here
        x[0] = 1
    error_at(k, F32, cujit.CompileError, "jit.cg is a namespace")


def test_cupyx_spelling_through_jit_cg():
    """cupyx.jit code moves over unchanged: jit.cg.this_grid() and friends
    through the jit module, as `from cupyx import jit` users write them"""
    @jit.rawkernel()
    def k(x, out):
        g = jit.cg.this_thread_block()
        grid = jit.cg.this_grid()
        i = jit.grid(1)
        out[i] = x[i] + g.thread_rank()
        jit.cg.sync(grid)
        if grid.is_valid():
            out[i] += grid.num_threads()
    ptx(k, F32)
