"""Block and warp collectives on the GPU, in each spelling (cujit's own
jit.block_reduce / warp_reduce / block_scan / warp_scan, cupyx.jit.cub's
WarpReduce / BlockReduce, cuda.coop's block / warp algorithms through
cujit.cuda.cooperative), against NumPy on fresh random data per block, for
block sizes that are and are not multiples of 32, 2-D blocks, and every
numeric dtype family.  Threads are ranked x fastest (the hardware's warps)."""
import numpy as np
import pytest

from cujit import cuda, jit
from cujit.cuda import cooperative as coop

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()
SIZES = [32, 96, 128, 1000, 1024]
DTYPES = [np.int8, np.int32, np.int64, np.uint32, np.float16, np.float32, np.float64,
          np.complex64]
NBLOCKS = 5


def run(kernel, grid, block, *args):
    """kernel[grid, block](*args); tests/test_collectives_host.py replaces it
    with a launch on the CPU, one OS thread per CUDA thread"""
    kernel[grid, block](*args)


def rand(shape, dt):
    dt = np.dtype(dt)
    if dt.kind == "u":
        return rng.integers(0, 50, shape).astype(dt)
    if dt.kind == "i":
        return rng.integers(-50, 50, shape).astype(dt)
    if dt == np.float16:                    # small integers: exact in float16 sums
        return rng.integers(-2, 3, shape).astype(dt)
    if dt.kind == "f":
        return rng.standard_normal(shape).astype(dt)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)


def close(got, want, dt):
    """Sums in another order: exact for integers (wrapping as NumPy's
    dtype= sums do), to rounding for floats."""
    dt = np.dtype(dt)
    if dt.kind in "iub" or dt == np.float16:
        np.testing.assert_array_equal(got, np.asarray(want).astype(dt))
    else:
        tol = 1e-12 if dt in (np.float64, np.complex128) else 2e-5
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * 100)


def wsum(x, dt):
    return np.sum(x, axis=-1, dtype=dt if np.dtype(dt).kind in "iu" else None)


def first(a, b):
    return a


def last(a, b):
    return b


@jit.rawkernel(device=True)
def bigger(a, b):
    return a if a > b else b


@jit.rawkernel(device=True)
def keep_first(a, b):
    return a


@jit.rawkernel(device=True)
def keep_last(a, b):
    return b


# ---- cujit's own spelling ----

@jit.rawkernel()
def own_reduce(x, out, valid):
    b, t = jit.blockIdx.x, jit.threadIdx.x
    v = x[b, t]
    out[b, t, 0] = jit.block_reduce(v)
    out[b, t, 1] = jit.block_reduce(v, "max")
    out[b, t, 2] = jit.block_reduce(v, min)
    out[b, t, 3] = jit.block_reduce(v, keep_first)
    out[b, t, 4] = jit.block_reduce(v, op=keep_last)
    out[b, t, 5] = jit.block_reduce(v, valid=valid)
    out[b, t, 6] = jit.block_reduce(v, bigger, valid)


@pytest.mark.parametrize("bs", SIZES)
@pytest.mark.parametrize("dt", [d for d in DTYPES if np.dtype(d).kind != "c"])
def test_block_reduce(bs, dt):
    x = rand((NBLOCKS, bs), dt)
    out = np.zeros((NBLOCKS, bs, 7), dt)
    valid = int(rng.integers(1, bs + 1))
    run(own_reduce, NBLOCKS, bs, x, out, valid)
    for b in range(NBLOCKS):
        xs = x[b]
        close(out[b, :, 0], np.full(bs, wsum(xs, dt)), dt)
        np.testing.assert_array_equal(out[b, :, 1], xs.max())
        np.testing.assert_array_equal(out[b, :, 2], xs.min())
        np.testing.assert_array_equal(out[b, :, 6], xs[:valid].max())
        np.testing.assert_array_equal(out[b, :, 3], xs[0])
        np.testing.assert_array_equal(out[b, :, 4], xs[-1])
        close(out[b, :, 5], np.full(bs, wsum(xs[:valid], dt)), dt)


@jit.rawkernel()
def own_complex(x, out):
    b, t = jit.blockIdx.x, jit.threadIdx.x
    out[b, t, 0] = jit.block_reduce(x[b, t], max)
    out[b, t, 1] = jit.block_reduce(x[b, t], min)
    out[b, t, 2] = jit.block_reduce(x[b, t])
    out[b, t, 3] = jit.warp_reduce(x[b, t], keep_last)


@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
@pytest.mark.parametrize("bs", [96, 1000])
def test_block_reduce_complex_numpy_order(dt, bs):
    x = rand((NBLOCKS, bs), dt)
    x.real[:, 1::2] = x.real[:, ::2]            # ties in the real part: imag decides
    out = np.zeros((NBLOCKS, bs, 4), dt)
    run(own_complex, NBLOCKS, bs, x, out)
    for b in range(NBLOCKS):
        np.testing.assert_array_equal(out[b, :, 0], np.max(x[b]))
        np.testing.assert_array_equal(out[b, :, 1], np.min(x[b]))
        close(out[b, :, 2], np.full(bs, x[b].sum()), dt)
        for w, xs in enumerate(warps(x[b])):
            np.testing.assert_array_equal(out[b, 32 * w:32 * w + len(xs), 3], xs[-1])


@jit.rawkernel()
def own_scan(x, out, init):
    b, t = jit.blockIdx.x, jit.threadIdx.x
    v = x[b, t]
    out[b, t, 0] = jit.block_scan(v)
    out[b, t, 1] = jit.block_scan(v, inclusive=False)
    out[b, t, 2] = jit.block_scan(v, "max")
    out[b, t, 3] = jit.block_scan(v, keep_last, False, init)
    out[b, t, 4] = jit.block_scan(v, keep_first)
    out[b, t, 5] = jit.block_scan(v, op="sum", inclusive=False, initial=init)


@pytest.mark.parametrize("bs", SIZES)
@pytest.mark.parametrize("dt", DTYPES)
def test_block_scan(bs, dt):
    x = rand((NBLOCKS, bs), dt)
    init = rand((1,), dt)[0]
    out = np.zeros((NBLOCKS, bs, 6), dt)
    run(own_scan, NBLOCKS, bs, x, out, init)
    for b in range(NBLOCKS):
        xs = x[b]
        inc = np.cumsum(xs, dtype=dt if np.dtype(dt).kind in "iu" else None)
        close(out[b, :, 0], inc, dt)
        close(out[b, :, 1], np.concatenate([[0], inc[:-1]]), dt)
        close(out[b, :, 5], init + np.concatenate([[0], inc[:-1]]).astype(dt), dt)
        if np.dtype(dt).kind != "c":
            np.testing.assert_array_equal(out[b, :, 2], np.maximum.accumulate(xs))
        np.testing.assert_array_equal(out[b, :, 3], np.concatenate([[init], xs[:-1]]))
        np.testing.assert_array_equal(out[b, :, 4], xs[0])


@jit.rawkernel()
def own_warp(x, out, valid, init):
    b, t = jit.blockIdx.x, jit.threadIdx.x
    v = x[b, t]
    out[b, t, 0] = jit.warp_reduce(v)
    out[b, t, 1] = jit.warp_reduce(v, max)
    out[b, t, 2] = jit.warp_reduce(v, "sum", valid)
    out[b, t, 3] = jit.warp_scan(v)
    out[b, t, 4] = jit.warp_scan(v, inclusive=False, initial=init)
    out[b, t, 5] = jit.warp_reduce(v, keep_last)


def warps(xs):
    return [xs[i:i + 32] for i in range(0, len(xs), 32)]


@pytest.mark.parametrize("bs", SIZES)
@pytest.mark.parametrize("dt", [np.int32, np.uint32, np.float32, np.float64])
def test_warp_reduce_and_scan(bs, dt):
    x = rand((NBLOCKS, bs), dt)
    valid = int(rng.integers(1, 33))
    init = rand((1,), dt)[0]
    out = np.zeros((NBLOCKS, bs, 6), dt)
    run(own_warp, NBLOCKS, bs, x, out, valid, init)
    for b in range(NBLOCKS):
        for w, xs in enumerate(warps(x[b])):
            o = out[b, 32 * w:32 * w + len(xs)]
            close(o[:, 0], np.full(len(xs), wsum(xs, dt)), dt)
            np.testing.assert_array_equal(o[:, 1], xs.max())
            close(o[:, 2], np.full(len(xs), wsum(xs[:valid], dt)), dt)
            inc = np.cumsum(xs, dtype=dt if np.dtype(dt).kind in "iu" else None)
            close(o[:, 3], inc, dt)
            close(o[:, 4], init + np.concatenate([[0], inc[:-1]]).astype(dt), dt)
            np.testing.assert_array_equal(o[:, 5], xs[-1])


@pytest.mark.parametrize("block", [(32, 4), (10, 10), (7, 9, 3)])
def test_2d_and_3d_blocks_rank_x_fastest(block):
    @jit.rawkernel()
    def k(x, out):
        b = jit.blockIdx.x
        t = jit.threadIdx.x + jit.blockDim.x * (jit.threadIdx.y
                                               + jit.blockDim.y * jit.threadIdx.z)
        v = x[b, t]
        out[b, t, 0] = jit.block_reduce(v)
        out[b, t, 1] = jit.block_scan(v, keep_last, False, -1.0)
        out[b, t, 2] = jit.warp_reduce(v, keep_first)
    n = int(np.prod(block))
    x = rand((NBLOCKS, n), np.float64)
    out = np.zeros((NBLOCKS, n, 3))
    run(k, NBLOCKS, block, x, out)
    for b in range(NBLOCKS):
        close(out[b, :, 0], np.full(n, x[b].sum()), np.float64)
        np.testing.assert_array_equal(out[b, :, 1], np.concatenate([[-1.0], x[b, :-1]]))
        np.testing.assert_array_equal(out[b, :, 2], np.repeat(x[b, ::32], 32)[:n])


@jit.rawkernel()
def two_calls_in_a_loop(x, out):
    b, t = jit.blockIdx.x, jit.threadIdx.x
    acc = x[b, t, 0] * 0
    for k in range(x.shape[2]):
        acc += jit.block_reduce(x[b, t, k]) + jit.block_scan(x[b, t, k])
    out[b, t] = acc


def test_back_to_back_calls_reuse_storage():
    bs = 1000
    x = rand((NBLOCKS, bs, 6), np.int64)
    out = np.zeros((NBLOCKS, bs), np.int64)
    run(two_calls_in_a_loop, NBLOCKS, bs, x, out)
    want = x.sum(axis=1)[:, None, :] + np.cumsum(x, axis=1)
    np.testing.assert_array_equal(out, want.sum(axis=2))


@jit.rawkernel()
def half_sums(x, out):
    b, t = jit.blockIdx.x, jit.threadIdx.x
    v = x[b, t]
    out[b, t, 0] = jit.block_reduce(v)
    out[b, t, 1] = jit.warp_reduce(v)
    WarpReduce = jit.cub.WarpReduce[np.float16]
    temp_storage = jit.shared_memory(dtype=WarpReduce.TempStorage, size=1)
    out[b, t, 2] = WarpReduce(temp_storage[0]).Sum(v)


@pytest.mark.parametrize("bs", [96, 1024])
def test_float16_sums_round_once(bs):
    """A float16 sum adds in float32 and rounds once, as NumPy's does
    (CuPy's own test_cub checks it with rtol 1e-6): eighths up to 10 sum
    exactly in float32, while float16 partial sums above 256 would not."""
    x = (rng.integers(0, 81, (NBLOCKS, bs)) / 8).astype(np.float16)
    out = np.zeros((NBLOCKS, bs, 3), np.float16)
    run(half_sums, NBLOCKS, bs, x, out)
    for b in range(NBLOCKS):
        np.testing.assert_array_equal(out[b, :, 0], np.sum(x[b]))
        for w, xs in enumerate(warps(x[b])):
            np.testing.assert_array_equal(out[b, 32 * w, 1], np.sum(xs))
            np.testing.assert_array_equal(out[b, 32 * w, 2], np.sum(xs))


# ---- cupyx.jit.cub's spelling (as CuPy's own tests write it) ----

@pytest.mark.parametrize("bs", SIZES)
@pytest.mark.parametrize("dt", DTYPES)
def test_cupyx_warp_reduce(bs, dt):
    dtype = dt

    @jit.rawkernel()
    def warp_reduce(x, y):
        WarpReduce = jit.cub.WarpReduce[dtype]
        temp_storage = jit.shared_memory(dtype=WarpReduce.TempStorage, size=1)
        i, j = jit.blockIdx.x, jit.threadIdx.x
        value = x[i, j]
        aggregator = WarpReduce(temp_storage[0])
        y[i, j, 0] = aggregator.Sum(value)
        y[i, j, 1] = aggregator.Reduce(value, jit.cub.Sum())
        y[i, j, 2] = WarpReduce(temp_storage[0]).Reduce(value, jit.cub.Max())

    x = rand((NBLOCKS, bs), dt)
    y = np.zeros((NBLOCKS, bs, 3), dt)
    run(warp_reduce, NBLOCKS, bs, x, y)
    for b in range(NBLOCKS):
        for w, xs in enumerate(warps(x[b])):
            lane0 = y[b, 32 * w]
            close(lane0[0], wsum(xs, dt), dt)
            close(lane0[1], wsum(xs, dt), dt)
            np.testing.assert_array_equal(lane0[2], np.max(xs))


@pytest.mark.parametrize("bs", SIZES)
@pytest.mark.parametrize("dt", DTYPES)
def test_cupyx_block_reduce(bs, dt):
    dtype, size = dt, bs

    @jit.rawkernel()
    def block_reduce(x, y, n):
        BlockReduce = jit.cub.BlockReduce[dtype, size]
        temp_storage = jit.shared_memory(dtype=BlockReduce.TempStorage, size=1)
        i, j = jit.blockIdx.x, jit.threadIdx.x
        value = x[i, j]
        aggregator = BlockReduce(temp_storage[0])
        s = aggregator.Sum(value)
        m = aggregator.Reduce(value, jit.cub.Min())
        f = aggregator.Reduce(value, keep_first)
        v = aggregator.Sum(value, n)
        if j == 0:
            y[i, 0] = s
            y[i, 1] = m
            y[i, 2] = f
            y[i, 3] = v

    x = rand((NBLOCKS, bs), dt)
    y = np.zeros((NBLOCKS, 4), dt)
    n = int(rng.integers(1, bs + 1))
    run(block_reduce, NBLOCKS, bs, x, y, n)
    close(y[:, 0], wsum(x, dt), dt)
    np.testing.assert_array_equal(y[:, 1], np.min(x, axis=1))
    np.testing.assert_array_equal(y[:, 2], x[:, 0])
    close(y[:, 3], wsum(x[:, :n], dt), dt)


# ---- cuda.coop's spelling (as CCCL's own tests write it) ----

@pytest.mark.parametrize("bs", SIZES)
@pytest.mark.parametrize("dt", [np.int32, np.uint32, np.uint64, np.float32, np.float64])
def test_coop_block_reduce_and_sum(bs, dt):
    def op(a, b):
        return a if a < b else b

    block_reduce = coop.block.reduce(dt, bs, op)
    block_sum = coop.block.sum(dt, bs)
    temp_storage_bytes = block_reduce.temp_storage_bytes
    half = bs // 2 + 1

    @cuda.jit(link=block_reduce.files + block_sum.files)
    def kernel(input, output):
        tid = cuda.threadIdx.x
        b = cuda.blockIdx.x
        temp_storage = cuda.shared.array(shape=temp_storage_bytes, dtype="uint8")
        r1 = block_reduce(temp_storage, input[b, tid])
        r2 = block_reduce(input[b, tid])
        r3 = block_reduce(temp_storage, input[b, tid], half)
        s1 = block_sum(temp_storage, input[b, tid])
        s2 = block_sum(input[b, tid], half)
        if tid == 0:
            output[b, 0] = r1
            output[b, 1] = r2
            output[b, 2] = r3
            output[b, 3] = s1
            output[b, 4] = s2

    x = rand((NBLOCKS, bs), dt)
    out = np.zeros((NBLOCKS, 5), dt)
    run(kernel, NBLOCKS, bs, x, out)
    np.testing.assert_array_equal(out[:, 0], x.min(axis=1))
    np.testing.assert_array_equal(out[:, 1], x.min(axis=1))
    np.testing.assert_array_equal(out[:, 2], x[:, :half].min(axis=1))
    close(out[:, 3], wsum(x, dt), dt)
    close(out[:, 4], wsum(x[:, :half], dt), dt)


@pytest.mark.parametrize("bs", SIZES)
@pytest.mark.parametrize("mode", ["inclusive", "exclusive"])
@pytest.mark.parametrize("dt", [np.int32, np.uint64, np.float32])
def test_coop_block_scans(bs, mode, dt):
    block_sum = getattr(coop.block, f"{mode}_sum")(dt, bs)
    init = dt(3)
    block_scan = getattr(coop.block, f"{mode}_scan")(dt, bs, last, initial_value=init)
    temp_storage_bytes = block_sum.temp_storage_bytes

    @cuda.jit(link=block_sum.files)
    def kernel(input, output):
        tid = cuda.threadIdx.x
        b = cuda.blockIdx.x
        temp_storage = cuda.shared.array(shape=temp_storage_bytes, dtype="uint8")
        output[b, tid, 0] = block_sum(temp_storage, input[b, tid])
        output[b, tid, 1] = block_scan(input[b, tid])

    x = rand((NBLOCKS, bs), dt)
    out = np.zeros((NBLOCKS, bs, 2), dt)
    run(kernel, NBLOCKS, bs, x, out)
    inc = np.cumsum(x, axis=1, dtype=dt if np.dtype(dt).kind in "iu" else None)
    if mode == "inclusive":
        close(out[:, :, 0], inc, dt)
        np.testing.assert_array_equal(out[:, :, 1], x)          # last(init, ..., x_i) = x_i
    else:
        close(out[:, :, 0], inc - x, dt)
        want = np.concatenate([np.full((NBLOCKS, 1), init, dt), x[:, :-1]], axis=1)
        np.testing.assert_array_equal(out[:, :, 1], want)


@pytest.mark.parametrize("dt", [np.uint32, np.uint64, np.float64])
def test_coop_warp(dt):
    def op(a, b):
        return a if a < b else b

    warp_reduce = coop.warp.reduce(dt, op)
    warp_sum = coop.warp.sum(dt)
    warp_scan = coop.warp.exclusive_sum(dt)
    temp_storage_bytes = warp_reduce.temp_storage_bytes

    @cuda.jit(link=warp_reduce.files)
    def kernel(input, output):
        t = cuda.threadIdx.x
        temp_storage = cuda.shared.array(shape=temp_storage_bytes, dtype="uint8")
        output[t, 0] = warp_reduce(temp_storage, input[t])
        output[t, 1] = warp_sum(temp_storage, input[t])
        output[t, 2] = warp_scan(input[t])

    x = rand(96, dt)
    out = np.zeros((96, 3), dt)
    run(kernel, 1, 96, x, out)
    for w, xs in enumerate(warps(x)):
        o = out[32 * w:32 * w + 32]
        np.testing.assert_array_equal(o[0, 0], xs.min())
        close(o[0, 1], wsum(xs, dt), dt)
        inc = np.cumsum(xs, dtype=dt if np.dtype(dt).kind in "iu" else None)
        close(o[:, 2], inc - xs, dt)
