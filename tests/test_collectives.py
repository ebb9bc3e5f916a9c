"""Block and warp collectives without a GPU: each spelling (cujit's own,
cupyx.jit.cub's, cuda.coop's) compiles to the same calls and through NVRTC
to PTX for every numeric dtype; a kernel that uses none pays nothing; bad
uses raise at the user's line or, for the peers' factories, when they are
made.  (Semantics: test_collectives_host.py; hardware: tests/gpu.)"""
import numpy as np
import pytest

import cujit
from cujit import cuda, jit
from cujit.cuda import cooperative as coop

ALL = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
       np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]


def body(src):
    """the kernel's own text, after the prelude and the device functions"""
    return src[src.index('extern "C"'):]


@jit.rawkernel(device=True)
def bigger(a, b):
    return a if a > b else b


def plain_min(a, b):
    return a if a < b else b


@jit.rawkernel()
def every_form(x, y, init):
    i = jit.threadIdx.x
    v = x[i]
    y[i] = (jit.block_reduce(v) + jit.block_reduce(v, "max") + jit.block_reduce(v, min)
            + jit.block_reduce(v, valid=3) + jit.warp_reduce(v) + jit.warp_reduce(v, "min", 5)
            + jit.block_scan(v) + jit.block_scan(v, inclusive=False)
            + jit.block_scan(v, "max", False, init) + jit.warp_scan(v, initial=init)
            + jit.warp_scan(v, op="min", inclusive=False))


@pytest.mark.parametrize("dt", ALL, ids=lambda d: np.dtype(d).name)
def test_every_dtype_compiles_to_ptx(dt):
    x = np.zeros(64, dt)
    src = every_form.inspect_cuda(x, x, dt(0))
    for fn in ("cj_coll_block_reduce(", "cj_coll_warp_reduce(", "cj_coll_block_scan(",
               "cj_coll_warp_scan("):
        assert fn in src
    assert ".entry" in every_form.inspect_ptx(x, x, dt(0))


@jit.rawkernel()
def with_functions(x, y):
    i = jit.threadIdx.x
    y[i] = jit.block_reduce(x[i], bigger) + jit.block_scan(x[i], op=plain_min)


@pytest.mark.parametrize("dt", [np.int32, np.float64, np.float16])
def test_function_combiners(dt):
    x = np.zeros(64, dt)
    src = with_functions.inspect_cuda(x, x)
    assert src.count("[](") == 2                  # each combiner wrapped in a lambda
    assert "cj_dev_bigger" in src and "plain_min" in src
    assert ".entry" in with_functions.inspect_ptx(x, x)


@jit.rawkernel()
def no_collective(x, y):
    i = jit.threadIdx.x
    y[i] = x[i] * 2


def test_no_cost_when_unused():
    x = np.zeros(8, np.float32)
    src = no_collective.inspect_cuda(x, x)
    assert "cj_coll" not in src and "cj_op_sum" not in src


def test_inclusive_and_initial_reach_the_call():
    x = np.zeros(8, np.float32)
    src = every_form.inspect_cuda(x, x, np.float32(0))
    assert "cj_coll_block_scan(v, cj_op_sum(), true, false" in src
    assert "cj_coll_block_scan(v, cj_op_sum(), false, false" in src
    assert "cj_coll_block_scan(v, cj_op_max(), false, true, init)" in src
    assert "cj_coll_warp_reduce(v, cj_op_min(), 5LL)" in src


def test_numba_spelling_calls_jit_collectives():
    @cuda.jit
    def k(x, y):
        i = cuda.threadIdx.x
        y[i] = jit.block_reduce(x[i], max)
    x = np.zeros(8, np.int32)
    assert "cj_coll_block_reduce(" in k.inspect_cuda(x, x)


# ---- cupyx.jit.cub ----

def cupyx_kernel(dtype, size):
    @jit.rawkernel()
    def k(x, y):
        BlockReduce = jit.cub.BlockReduce[dtype, size]
        temp_storage = jit.shared_memory(dtype=BlockReduce.TempStorage, size=1)
        WarpReduce = jit.cub.WarpReduce[dtype]
        i, j = jit.blockIdx.x, jit.threadIdx.x
        value = x[i, j]
        aggregator = BlockReduce(temp_storage[0])
        a = aggregator.Sum(value)
        b = aggregator.Reduce(value, jit.cub.Max())
        c = WarpReduce(temp_storage[0]).Reduce(value, jit.cub.Min())
        d = WarpReduce(temp_storage[0]).Sum(value, 7)
        e = aggregator.Reduce(value, bigger)
        if j == 0:
            y[i] = a + b + c + d + e
    return k


@pytest.mark.parametrize("dt", [np.int8, np.uint16, np.int64, np.float16, np.float32,
                                np.float64])
def test_cupyx_spelling(dt):
    k = cupyx_kernel(dt, 256)
    x = np.zeros((4, 256), dt)
    y = np.zeros(4, dt)
    src = body(k.inspect_cuda(x, y))
    assert src.count("cj_coll_block_reduce(") == 3
    assert "cj_coll_warp_reduce(value, cj_op_min()" in src
    if dt == np.float16:        # a float16 sum adds in float32 and rounds once
        assert "cj_half(cj_coll_warp_reduce((float)value, cj_op_sum(), 7LL))" in src
    else:
        assert "cj_coll_warp_reduce(value, cj_op_sum(), 7LL)" in src
    assert ".entry" in k.inspect_ptx(x, y)


def test_cupyx_value_converted_to_class_type():
    k = cupyx_kernel(np.float64, 128)
    x = np.zeros((4, 128), np.float32)
    y = np.zeros(4, np.float64)
    assert "cj_coll_block_reduce((double)value" in k.inspect_cuda(x, y)


def test_cupyx_objects_on_the_host():
    br = jit.cub.BlockReduce[np.float32, 128]
    assert br.TempStorage is np.uint8 and br(None) is br
    with pytest.raises(TypeError, match="block size"):
        jit.cub.BlockReduce[np.float32]
    with pytest.raises(TypeError, match="32 lanes"):
        jit.cub.WarpReduce[np.float32, 16]
    with pytest.raises(TypeError, match="numeric"):
        jit.cub.WarpReduce[object]
    with pytest.raises(RuntimeError, match="inside a kernel"):
        br.Sum(1.0)


def test_cupyx_template_of_a_local_is_an_error():
    @jit.rawkernel()
    def k(x, y):
        n = 128
        BR = jit.cub.BlockReduce[np.float32, n]
        y[0] = BR(None).Sum(x[0])
    x = np.zeros(8, np.float32)
    with pytest.raises(cujit.CompileError, match="known when the kernel compiles") as e:
        k.inspect_cuda(x, x)
    assert "BR = jit.cub.BlockReduce" in e.value.text


def test_cupyx_bad_template_arguments_raise_at_the_line():
    @jit.rawkernel()
    def k(x, y):
        WR = jit.cub.WarpReduce[np.float32, 16]
        y[0] = WR(None).Sum(x[0])
    x = np.zeros(8, np.float32)
    with pytest.raises(cujit.CompileError, match="does not take these"):
        k.inspect_cuda(x, x)


# ---- cuda.coop ----

def coop_kernel(*algos):
    a, b, c = algos
    temp_storage_bytes = max(x.temp_storage_bytes for x in algos)

    @cuda.jit(link=a.files + b.files + c.files)
    def k(input, output):
        tid = cuda.threadIdx.x
        temp_storage = cuda.shared.array(shape=temp_storage_bytes, dtype="uint8")
        output[tid] = (a(temp_storage, input[tid]) + a(input[tid]) + a(temp_storage, input[tid], 9)
                       + b(input[tid]) + c(temp_storage, input[tid]))
    return k


@pytest.mark.parametrize("dt", [np.int32, np.uint64, np.float32, np.float64])
def test_coop_spelling(dt):
    k = coop_kernel(coop.block.reduce(dt, 128, plain_min), coop.block.exclusive_sum(dt, 128),
                    coop.warp.inclusive_scan(dt, "max", initial_value=dt(1)))
    x = np.zeros(128, dt)
    src = body(k.inspect_cuda(x, x))
    assert src.count("cj_coll_block_reduce(") == 3 and "9LL)" in src
    assert "cj_coll_block_scan(input.data[tid], cj_op_sum(), false, false" in src
    assert "cj_coll_warp_scan(input.data[tid], cj_op_max(), true, true" in src
    assert ".entry" in k.inspect_ptx(x, x)


def test_coop_objects_on_the_host():
    r = coop.block.reduce(np.int32, (8, 16), plain_min)
    assert r.files == [] and r.temp_storage_bytes > 0
    assert coop.block.sum("float32", 64).dtype == np.float32
    with pytest.raises(RuntimeError, match="inside a kernel"):
        r(1)
    with pytest.raises(NotImplementedError, match="items_per_thread"):
        coop.block.sum(np.int32, 128, items_per_thread=4)
    with pytest.raises(ValueError, match="items_per_thread"):
        coop.block.sum(np.int32, 128, items_per_thread=0)
    with pytest.raises(NotImplementedError, match="prefix"):
        coop.block.exclusive_sum(np.int32, 128, prefix_op=object())
    with pytest.raises(NotImplementedError, match="user-defined"):
        coop.block.reduce(np.int32, 128, plain_min, methods={})
    with pytest.raises(NotImplementedError, match="32 lanes"):
        coop.warp.sum(np.int32, threads_in_warp=16)
    with pytest.raises(ValueError, match="1024"):
        coop.block.sum(np.int32, 2048)
    with pytest.raises(TypeError, match="operator"):
        coop.block.reduce(np.int32, 128, 3)
    with pytest.raises(ValueError, match="algorithm"):
        coop.block.exclusive_sum(np.int32, 128, algorithm="invalid_algorithm")
    with pytest.raises(ValueError, match="algorithm"):
        coop.block.reduce(np.int32, 128, plain_min, algorithm="warp_scans")
    assert coop.block.sum(np.int32, 128, algorithm="raking").files == []


def test_coop_too_many_arguments():
    r = coop.block.sum(np.int32, 32)

    @cuda.jit
    def k(x, y):
        i = cuda.threadIdx.x
        y[i] = r(x, x[i], 3, 4)
    x = np.zeros(32, np.int32)
    with pytest.raises(cujit.CompileError, match="temp_storage"):
        k.inspect_cuda(x, x)


def test_collective_as_a_value_is_an_error():
    r = coop.block.sum(np.int32, 32)

    @cuda.jit
    def k(x, y):
        f = r
        y[0] = x[0]
    x = np.zeros(32, np.int32)
    with pytest.raises(cujit.CompileError, match="can only be called"):
        k.inspect_cuda(x, x)


def test_cupyx_shared_memory_size_keyword():
    @jit.rawkernel()
    def k(x):
        s = jit.shared_memory(dtype=np.float32, size=64)
        s[jit.threadIdx.x] = x[jit.threadIdx.x]
        x[jit.threadIdx.x] = s[63 - jit.threadIdx.x]
    assert "__shared__ float s[64];" in k.inspect_cuda(np.zeros(64, np.float32))
