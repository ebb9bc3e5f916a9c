"""A second corpus of cupyx.jit kernels written the way users write them for
``from cupyx import jit`` with CuPy arrays, on what cupyx_kernels.py leaves
out: layer norm, CSR SpMV (a thread and a warp per row), Monte-Carlo and
random walks with hand-written PRNGs, bitonic sort over global memory,
Blelloch scans, order-preserving compaction, k-means, n-body tiles,
Black-Scholes, Game of Life, Jacobi ping-pong on a stream, convolutions,
arg-max pairs, rectangular tiled matmul in dynamic shared memory, 3-D
permutes of Fortran arrays, online softmax per warp, DFTs in complex128,
Mandelbrot with break, Kahan sums; every atomic on the dtypes cupyx.jit
gives it, shuffles with width=, laneid / warpsize, cub warp and block
reductions, cooperative groups (memcpy_async, a grid sync launched
cooperatively, tiled_partition), device-function factories over captured
dtypes, NumPy scalar arguments, non-contiguous and Fortran-ordered views.

Like cupyx_kernels.py (whose Case and blocks_for it uses) the module imports
neither cujit nor CuPy: each case is ``build(jit, cupy)`` returning a Case
(inputs(rng), run(xp, d), ref(h)); cupyx_harness.py runs them.  The typing
is cupyx.jit's: NumPy 2's with weak Python scalars, thread indices uint32,
a store or an atomic converting with same_kind casting (so a signed value
goes into an unsigned array through an explicit ``cupy.uint32(...)``).

tests/gpu/test_unseen_cupyx_more.py runs every case under cujit and, where
CuPy is installed, under cupyx.jit; tests/test_unseen_cupyx_more_nogpu.py
runs them on the fake driver (values on the CPU where the kernels' threads
need not run in lock-step)."""
import math

import numpy

from cupyx_kernels import Case, blocks_for

CASES = {}

FULL = 0xffffffff
EPS = 1e-5               # layer norm's epsilon
NB = 32                  # bins of the weighted histogram
RADIUS = 3               # of the 1-d stencil
SOFTENING = 0.01         # n-body
NB_TILE = 64             # n-body tile
ALPHA = numpy.float32(0.75)
OFFSET = numpy.float32(-1.25)
RISKFREE = 0.03
VOLATILITY = 0.25


def case(fn):
    CASES[fn.__name__] = fn
    return fn


# ------------------------------------------------------------ normalizations

@case
def layer_norm_rows_shared(jit, cupy):
    THREADS = 128

    @jit.rawkernel()
    def layer_norm(x, gamma, beta, y, ncols):
        row = jit.blockIdx.x
        tid = jit.threadIdx.x
        buf = jit.shared_memory(cupy.float32, THREADS)
        part = cupy.float32(0)
        for c in range(tid, ncols, THREADS):
            part += x[row, c]
        buf[tid] = part
        jit.syncthreads()
        step = THREADS // 2
        while step > 0:
            if tid < step:
                buf[tid] += buf[tid + step]
            jit.syncthreads()
            step //= 2
        mean = buf[0] / ncols
        jit.syncthreads()
        part = cupy.float32(0)
        for c in range(tid, ncols, THREADS):
            d = x[row, c] - mean
            part += d * d
        buf[tid] = part
        jit.syncthreads()
        step = THREADS // 2
        while step > 0:
            if tid < step:
                buf[tid] += buf[tid + step]
            jit.syncthreads()
            step //= 2
        inv = 1.0 / cupy.sqrt(buf[0] / ncols + EPS)
        for c in range(tid, ncols, THREADS):
            y[row, c] = (x[row, c] - mean) * inv * gamma[c] + beta[c]

    def inputs(rng):
        rows, cols = 12, 300
        return dict(x=rng.normal(3.0, 2.0, (rows, cols)).astype(numpy.float32),
                    gamma=rng.uniform(0.5, 1.5, cols).astype(numpy.float32),
                    beta=rng.uniform(-1, 1, cols).astype(numpy.float32),
                    y=numpy.full((rows, cols), numpy.nan, numpy.float32))

    def run(xp, d):
        layer_norm[12, THREADS](d["x"], d["gamma"], d["beta"], d["y"], 300)
        return {"y": d["y"]}

    def ref(h):
        x = h["x"].astype(numpy.float64)
        mu = x.mean(axis=1, keepdims=True)
        var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
        return {"y": (x - mu) / numpy.sqrt(var + EPS) * h["gamma"] + h["beta"]}

    return Case(inputs, run, ref, rtol=2e-4, atol=2e-4)


@case
def softmax_warp_per_row_online(jit, cupy):
    @jit.rawkernel(device=True)
    def combine(m, s, lane_mask):
        """the running (max, sum of exp(x - max)) of this lane and its partner"""
        om = jit.shfl_xor_sync(FULL, m, lane_mask)
        os_ = jit.shfl_xor_sync(FULL, s, lane_mask)
        mm = max(m, om)
        return mm, s * cupy.exp(m - mm) + os_ * cupy.exp(om - mm)

    @jit.rawkernel()
    def softmax(x, y, nrows, ncols):
        warp = (jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x) // 32
        lane = jit.threadIdx.x % 32
        if warp < nrows:
            m = cupy.float32(-cupy.inf)
            s = cupy.float32(0)
            for c in range(lane, ncols, 32):
                v = x[warp, c]
                if v > m:
                    s = s * cupy.exp(m - v) + 1
                    m = v
                else:
                    s += cupy.exp(v - m)
            m, s = combine(m, s, 16)
            m, s = combine(m, s, 8)
            m, s = combine(m, s, 4)
            m, s = combine(m, s, 2)
            m, s = combine(m, s, 1)
            for c in range(lane, ncols, 32):
                y[warp, c] = cupy.exp(x[warp, c] - m) / s

    def inputs(rng):
        return dict(x=rng.normal(0, 3, (10, 200)).astype(numpy.float32),
                    y=numpy.full((10, 200), numpy.nan, numpy.float32))

    def run(xp, d):
        softmax[5, 64](d["x"], d["y"], 10, 200)
        return {"y": d["y"]}

    def ref(h):
        x = h["x"].astype(numpy.float64)
        e = numpy.exp(x - x.max(axis=1, keepdims=True))
        return {"y": e / e.sum(axis=1, keepdims=True)}

    return Case(inputs, run, ref, rtol=1e-4, atol=1e-7)


# ------------------------------------------------------------ sparse, graphs

def _csr(rng, nrows, ncols, per_row_max):
    counts = rng.integers(0, per_row_max + 1, nrows)
    indptr = numpy.concatenate([[0], numpy.cumsum(counts)]).astype(numpy.int32)
    indices = numpy.concatenate([numpy.sort(rng.choice(ncols, c, replace=False))
                                 for c in counts]).astype(numpy.int32)
    data = rng.standard_normal(indptr[-1])
    return indptr, indices, data


def _csr_dense(indptr, indices, data, ncols):
    dense = numpy.zeros((indptr.size - 1, ncols))
    for r in range(indptr.size - 1):
        dense[r, indices[indptr[r]:indptr[r + 1]]] = data[indptr[r]:indptr[r + 1]]
    return dense


@case
def spmv_csr_thread_per_row(jit, cupy):
    @jit.rawkernel()
    def spmv(indptr, indices, data, x, y, nrows):
        row = jit.grid(1)
        if row >= nrows:
            return
        acc = 0.0
        for k in range(indptr[row], indptr[row + 1]):
            acc += data[k] * x[indices[k]]
        y[row] = acc

    def inputs(rng):
        indptr, indices, data = _csr(rng, 500, 300, 12)
        return dict(indptr=indptr, indices=indices, data=data, x=rng.standard_normal(300),
                    y=numpy.full(500, numpy.nan))

    def run(xp, d):
        spmv[blocks_for(500, 128), 128](d["indptr"], d["indices"], d["data"], d["x"],
                                        d["y"], 500)
        return {"y": d["y"]}

    def ref(h):
        return {"y": _csr_dense(h["indptr"], h["indices"], h["data"], 300) @ h["x"]}

    return Case(inputs, run, ref, rtol=1e-12, atol=1e-12)


@case
def spmv_csr_warp_per_row(jit, cupy):
    @jit.rawkernel()
    def spmv_vector(indptr, indices, data, x, y, nrows):
        gid = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x
        row = gid // 32
        lane = jit.laneid()
        acc = cupy.float32(0)
        if row < nrows:
            start = indptr[row]
            stop = indptr[row + 1]
            for k in range(start + lane, stop, 32):
                acc += data[k] * x[indices[k]]
        acc += jit.shfl_down_sync(FULL, acc, 16)
        acc += jit.shfl_down_sync(FULL, acc, 8)
        acc += jit.shfl_down_sync(FULL, acc, 4)
        acc += jit.shfl_down_sync(FULL, acc, 2)
        acc += jit.shfl_down_sync(FULL, acc, 1)
        if lane == 0 and row < nrows:
            y[row] = acc

    def inputs(rng):
        indptr, indices, data = _csr(rng, 70, 400, 150)
        return dict(indptr=indptr, indices=indices, data=data.astype(numpy.float32),
                    x=rng.standard_normal(400).astype(numpy.float32),
                    y=numpy.full(70, numpy.nan, numpy.float32))

    def run(xp, d):
        # 70 rows, 4 warps a block: 18 blocks, the last warps idle but in the shuffles
        spmv_vector[18, 128](d["indptr"], d["indices"], d["data"], d["x"], d["y"], 70)
        return {"y": d["y"]}

    def ref(h):
        dense = _csr_dense(h["indptr"], h["indices"], h["data"].astype(numpy.float64), 400)
        return {"y": dense @ h["x"].astype(numpy.float64)}

    return Case(inputs, run, ref, rtol=1e-4, atol=1e-4)


@case
def kmeans_assign_and_accumulate(jit, cupy):
    @jit.rawkernel()
    def assign(pts, cent, labels, sums, counts, n, k):
        i = jit.grid(1)
        if i < n:
            px = pts[i, 0]
            py = pts[i, 1]
            best = 0
            bestd = cupy.inf
            for c in range(k):
                dx = px - cent[c, 0]
                dy = py - cent[c, 1]
                dist = dx * dx + dy * dy
                if dist < bestd:
                    bestd = dist
                    best = c
            labels[i] = best
            jit.atomic_add(sums, (best, 0), px)
            jit.atomic_add(sums, (best, 1), py)
            jit.atomic_add(counts, best, 1)

    @jit.rawkernel()
    def update(cent, sums, counts, k):
        c = jit.threadIdx.x
        if c < k:
            if counts[c] > 0:
                cent[c, 0] = sums[c, 0] / counts[c]
                cent[c, 1] = sums[c, 1] / counts[c]

    def inputs(rng):
        centers = rng.uniform(-10, 10, (5, 2))
        pts = numpy.concatenate([c + rng.normal(0, 0.6, (200, 2)) for c in centers])
        cent = pts[rng.choice(pts.shape[0], 5, replace=False)].copy()
        return dict(pts=pts, cent=cent, labels=numpy.full(1000, -1, numpy.int32),
                    sums=numpy.zeros((5, 2)), counts=numpy.zeros(5, numpy.int32))

    def run(xp, d):
        assign[blocks_for(1000, 128), 128](d["pts"], d["cent"], d["labels"], d["sums"],
                                           d["counts"], 1000, 5)
        update[1, 32](d["cent"], d["sums"], d["counts"], 5)
        return {"labels": d["labels"], "cent": d["cent"], "counts": d["counts"]}

    def ref(h):
        dist = ((h["pts"][:, None, :] - h["cent"][None, :, :]) ** 2).sum(axis=2)
        labels = dist.argmin(axis=1).astype(numpy.int32)
        counts = numpy.bincount(labels, minlength=5).astype(numpy.int32)
        cent = h["cent"].copy()
        for c in range(5):
            if counts[c]:
                cent[c] = h["pts"][labels == c].mean(axis=0)
        return {"labels": labels, "cent": cent, "counts": counts}

    return Case(inputs, run, ref, rtol=1e-9, atol=1e-9)


# ------------------------------------------------------------ random numbers

@case
def monte_carlo_pi_xorshift32(jit, cupy):
    @jit.rawkernel(device=True)
    def xorshift(s):
        s ^= s << 13
        s ^= s >> 17
        s ^= s << 5
        return s

    @jit.rawkernel()
    def throw(state, hits, total, samples):
        i = jit.grid(1)
        s = state[i]
        inside = 0
        for _ in range(samples):
            s = xorshift(s)
            x = (s >> 8) * (1.0 / 16777216.0)
            s = xorshift(s)
            y = (s >> 8) * (1.0 / 16777216.0)
            if x * x + y * y < 1.0:
                inside += 1
        state[i] = s
        hits[i] = inside
        jit.atomic_add(total, 0, cupy.uint64(inside))

    def inputs(rng):
        n = 512
        return dict(state=rng.integers(1, 2 ** 32, n, dtype=numpy.uint32),
                    hits=numpy.full(n, -1, numpy.int64), total=numpy.zeros(1, numpy.uint64))

    def run(xp, d):
        throw[4, 128](d["state"], d["hits"], d["total"], 64)
        return {"state": d["state"], "hits": d["hits"], "total": d["total"]}

    def ref(h):
        s = h["state"].copy()
        inside = numpy.zeros(s.size, numpy.int64)

        def step(s):
            s ^= s << numpy.uint32(13)
            s ^= s >> numpy.uint32(17)
            s ^= s << numpy.uint32(5)
            return s
        for _ in range(64):
            s = step(s)
            x = (s >> numpy.uint32(8)) * (1.0 / 16777216.0)
            s = step(s)
            y = (s >> numpy.uint32(8)) * (1.0 / 16777216.0)
            inside += x * x + y * y < 1.0
        return {"state": s, "hits": inside,
                "total": numpy.array([inside.sum()], numpy.uint64)}

    return Case(inputs, run, ref)


@case
def lcg_uint64_random_walk(jit, cupy):
    MUL = numpy.uint64(6364136223846793005)
    INC = numpy.uint64(1442695040888963407)

    @jit.rawkernel()
    def walk(seed, pos, steps):
        i = jit.grid(1)
        if i < pos.size:
            s = seed[i]
            p = 0.0
            for _ in range(steps):
                s = s * MUL + INC
                u = (s >> 11) * (1.0 / 9007199254740992.0)
                if u < 0.5:
                    p -= u
                else:
                    p += 1.0 - u
            pos[i] = p
            seed[i] = s

    def inputs(rng):
        n = 300
        return dict(seed=rng.integers(0, 2 ** 63, n, dtype=numpy.uint64),
                    pos=numpy.full(n, numpy.nan))

    def run(xp, d):
        walk[3, 128](d["seed"], d["pos"], 100)
        return {"pos": d["pos"], "seed": d["seed"]}

    def ref(h):
        s = h["seed"].copy()
        p = numpy.zeros(s.size)
        with numpy.errstate(over="ignore"):
            for _ in range(100):
                s = s * MUL + INC
                u = (s >> numpy.uint64(11)) * (1.0 / 9007199254740992.0)
                p = numpy.where(u < 0.5, p - u, p + (1.0 - u))
        return {"pos": p, "seed": s}

    return Case(inputs, run, ref, rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------ sorting, scans

@case
def bitonic_sort_global_launches(jit, cupy):
    @jit.rawkernel()
    def bitonic_step(a, j, k):
        i = jit.grid(1)
        partner = i ^ j
        if partner > i:
            up = (i & k) == 0
            x = a[i]
            y = a[partner]
            if up:
                if x > y:
                    a[i] = y
                    a[partner] = x
            else:
                if x < y:
                    a[i] = y
                    a[partner] = x

    def inputs(rng):
        return dict(a=rng.standard_normal(1024).astype(numpy.float32))

    def run(xp, d):
        n = 1024
        k = 2
        while k <= n:
            j = k // 2
            while j > 0:
                bitonic_step[n // 256, 256](d["a"], j, k)
                j //= 2
            k *= 2
        return {"a": d["a"]}

    return Case(inputs, run, lambda h: {"a": numpy.sort(h["a"])})


@case
def blelloch_block_scan_exclusive(jit, cupy):
    N = 256            # elements a block scans, two a thread

    @jit.rawkernel()
    def scan(x, y, sums):
        temp = jit.shared_memory(numpy.int64, N)
        t = jit.threadIdx.x
        base = jit.blockIdx.x * N
        temp[2 * t] = x[base + 2 * t]
        temp[2 * t + 1] = x[base + 2 * t + 1]
        offset = 1
        d = N // 2
        while d > 0:
            jit.syncthreads()
            if t < d:
                ai = offset * (2 * t + 1) - 1
                bi = offset * (2 * t + 2) - 1
                temp[bi] += temp[ai]
            offset *= 2
            d //= 2
        if t == 0:
            sums[jit.blockIdx.x] = temp[N - 1]
            temp[N - 1] = 0
        d = 1
        while d < N:
            offset //= 2
            jit.syncthreads()
            if t < d:
                ai = offset * (2 * t + 1) - 1
                bi = offset * (2 * t + 2) - 1
                v = temp[ai]
                temp[ai] = temp[bi]
                temp[bi] += v
            d *= 2
        jit.syncthreads()
        y[base + 2 * t] = temp[2 * t]
        y[base + 2 * t + 1] = temp[2 * t + 1]

    def inputs(rng):
        return dict(x=rng.integers(-1000, 1000, 4 * N).astype(numpy.int64),
                    y=numpy.full(4 * N, 7, numpy.int64), sums=numpy.zeros(4, numpy.int64))

    def run(xp, d):
        scan[4, N // 2](d["x"], d["y"], d["sums"])
        return {"y": d["y"], "sums": d["sums"]}

    def ref(h):
        blocks = h["x"].reshape(4, N)
        incl = numpy.cumsum(blocks, axis=1)
        return {"y": (incl - blocks).ravel(), "sums": incl[:, -1]}

    return Case(inputs, run, ref)


@case
def compaction_keeps_order_three_kernels(jit, cupy):
    THREADS = 128

    @jit.rawkernel()
    def count(x, cut, counts):
        n_keep = jit.shared_memory(numpy.int32, 1)
        if jit.threadIdx.x == 0:
            n_keep[0] = 0
        jit.syncthreads()
        i = jit.grid(1)
        if i < x.size:
            if x[i] > cut:
                jit.atomic_add(n_keep, 0, 1)
        jit.syncthreads()
        if jit.threadIdx.x == 0:
            counts[jit.blockIdx.x] = n_keep[0]

    @jit.rawkernel()
    def exclusive(counts, offsets, nblocks):
        if jit.grid(1) == 0:
            run_sum = 0
            for b in range(nblocks):
                offsets[b] = run_sum
                run_sum += counts[b]
            offsets[nblocks] = run_sum

    @jit.rawkernel()
    def scatter(x, cut, offsets, out):
        if jit.threadIdx.x == 0:
            start = jit.blockIdx.x * THREADS
            stop = min(start + THREADS, x.size)
            o = offsets[jit.blockIdx.x]
            for k in range(start, stop):
                if x[k] > cut:
                    out[o] = x[k]
                    o += 1

    def inputs(rng):
        n = 2000
        return dict(x=rng.standard_normal(n), out=numpy.full(n, numpy.nan),
                    counts=numpy.zeros(16, numpy.int32),
                    offsets=numpy.zeros(17, numpy.int32))

    def run(xp, d):
        nb = blocks_for(2000, THREADS)
        count[nb, THREADS](d["x"], 0.25, d["counts"])
        exclusive[1, 32](d["counts"], d["offsets"], nb)
        scatter[nb, THREADS](d["x"], 0.25, d["offsets"], d["out"])
        return {"out": d["out"], "offsets": d["offsets"]}

    def ref(h):
        keep = h["x"][h["x"] > 0.25]
        out = numpy.full(2000, numpy.nan)
        out[:keep.size] = keep
        c = h["x"] > 0.25
        per = numpy.array([c[b * THREADS:(b + 1) * THREADS].sum() for b in range(16)])
        return {"out": out,
                "offsets": numpy.concatenate([[0], numpy.cumsum(per)]).astype(numpy.int32)}

    return Case(inputs, run, ref, rtol=0, atol=0)


@case
def warp_then_block_inclusive_scan(jit, cupy):
    THREADS = 256

    @jit.rawkernel()
    def scan(x, y):
        warp_sums = jit.shared_memory(numpy.float64, 8)
        tid = jit.threadIdx.x
        lane = tid % 32
        wid = tid // 32
        i = jit.blockIdx.x * THREADS + tid
        v = x[i]
        up = jit.shfl_up_sync(FULL, v, 1)
        if lane >= 1:
            v += up
        up = jit.shfl_up_sync(FULL, v, 2)
        if lane >= 2:
            v += up
        up = jit.shfl_up_sync(FULL, v, 4)
        if lane >= 4:
            v += up
        up = jit.shfl_up_sync(FULL, v, 8)
        if lane >= 8:
            v += up
        up = jit.shfl_up_sync(FULL, v, 16)
        if lane >= 16:
            v += up
        if lane == 31:
            warp_sums[wid] = v
        jit.syncthreads()
        if wid == 0:
            run_total = 0.0
            if lane < 8:
                for k in range(lane):
                    run_total += warp_sums[k]
            jit.syncwarp()
            if lane < 8:
                warp_sums[lane] = run_total
        jit.syncthreads()
        y[i] = v + warp_sums[wid]

    def inputs(rng):
        return dict(x=rng.uniform(-1, 1, 3 * THREADS), y=numpy.full(3 * THREADS, numpy.nan))

    def run(xp, d):
        scan[3, THREADS](d["x"], d["y"])
        return {"y": d["y"]}

    return Case(inputs, run,
                lambda h: {"y": numpy.cumsum(h["x"].reshape(3, THREADS), axis=1).ravel()},
                rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------ histograms, atomics

@case
def weighted_histogram_float64(jit, cupy):
    @jit.rawkernel()
    def hist(x, w, bins, lo, hi):
        i = jit.grid(1)
        stride = jit.gridsize(1)
        scale = NB / (hi - lo)
        while i < x.size:
            b = int((x[i] - lo) * scale)
            if b < 0:
                b = 0
            if b > NB - 1:
                b = NB - 1
            jit.atomic_add(bins, b, w[i])
            i += stride

    def inputs(rng):
        n = 6000
        return dict(x=rng.normal(0, 1.2, n), w=rng.uniform(0.1, 2.0, n),
                    bins=numpy.zeros(NB))

    def run(xp, d):
        hist[8, 64](d["x"], d["w"], d["bins"], -3.0, 3.0)
        return {"bins": d["bins"]}

    def ref(h):
        b = numpy.clip(((h["x"] - -3.0) * (NB / 6.0)).astype(numpy.int64), 0, NB - 1)
        return {"bins": numpy.bincount(b, weights=h["w"], minlength=NB)}

    return Case(inputs, run, ref, rtol=1e-11, atol=1e-11)


@case
def radix_digit_counts_shared(jit, cupy):
    @jit.rawkernel()
    def digits(keys, counts, shift):
        local = jit.shared_memory(numpy.uint32, 16)
        t = jit.threadIdx.x
        if t < 16:
            local[t] = 0
        jit.syncthreads()
        i = jit.grid(1)
        if i < keys.size:
            digit = (keys[i] >> shift) & 15
            jit.atomic_add(local, digit, 1)
        jit.syncthreads()
        if t < 16:
            counts[jit.blockIdx.x, t] = local[t]

    def inputs(rng):
        return dict(keys=rng.integers(0, 2 ** 32, 1000, dtype=numpy.uint32),
                    c0=numpy.zeros((8, 16), numpy.uint32), c1=numpy.zeros((8, 16), numpy.uint32))

    def run(xp, d):
        digits[8, 128](d["keys"], d["c0"], 0)
        digits[8, 128](d["keys"], d["c1"], 28)
        return {"c0": d["c0"], "c1": d["c1"]}

    def ref(h):
        out = {}
        for name, shift in (("c0", 0), ("c1", 28)):
            k = numpy.concatenate([h["keys"], numpy.zeros(24, numpy.uint32)])
            dig = ((k >> numpy.uint32(shift)) & numpy.uint32(15)).reshape(8, 128)
            valid = (numpy.arange(1024) < 1000).reshape(8, 128)
            out[name] = numpy.array([numpy.bincount(dig[b][valid[b]], minlength=16)
                                     for b in range(8)], numpy.uint32)
        return out

    return Case(inputs, run, ref)


@case
def atomic_sub_budgets_int32_uint32(jit, cupy):
    @jit.rawkernel()
    def spend(bucket, cost, budget, left):
        i = jit.grid(1)
        if i < bucket.size:
            b = bucket[i]
            jit.atomic_sub(budget, b, cost[i])
            jit.atomic_sub(left, b, 1)

    def inputs(rng):
        n = 3000
        bucket = rng.integers(0, 10, n).astype(numpy.int32)
        return dict(bucket=bucket, cost=rng.integers(1, 50, n).astype(numpy.int32),
                    budget=rng.integers(10000, 40000, 10).astype(numpy.int32),
                    left=numpy.full(10, 5000, numpy.uint32))

    def run(xp, d):
        spend[blocks_for(3000, 256), 256](d["bucket"], d["cost"], d["budget"], d["left"])
        return {"budget": d["budget"], "left": d["left"]}

    def ref(h):
        spent = numpy.bincount(h["bucket"], weights=h["cost"], minlength=10).astype(numpy.int64)
        hits = numpy.bincount(h["bucket"], minlength=10)
        return {"budget": (h["budget"] - spent).astype(numpy.int32),
                "left": (5000 - hits).astype(numpy.uint32)}

    return Case(inputs, run, ref)


@case
def atomic_exch_keeps_every_value(jit, cupy):
    @jit.rawkernel()
    def swap_in(vals, slots, olds, keys, kslots, kolds):
        i = jit.grid(1)
        if i < vals.size:
            olds[i] = jit.atomic_exch(slots, i % 4, vals[i])
            kolds[i] = jit.atomic_exch(kslots, i % 3, keys[i])

    @jit.rawkernel()
    def append_slots(slots, olds, kslots, kolds, n):
        t = jit.threadIdx.x
        if t < 4:
            olds[n + t] = slots[t]
        if t < 3:
            kolds[n + t] = kslots[t]

    def inputs(rng):
        n = 700
        return dict(vals=rng.standard_normal(n).astype(numpy.float32),
                    slots=rng.uniform(10, 11, 4).astype(numpy.float32),
                    olds=numpy.full(n + 4, numpy.nan, numpy.float32),
                    keys=rng.integers(2 ** 62, 2 ** 64, n, dtype=numpy.uint64),
                    kslots=rng.integers(0, 2 ** 40, 3, dtype=numpy.uint64),
                    kolds=numpy.zeros(n + 3, numpy.uint64))

    def run(xp, d):
        swap_in[blocks_for(700, 128), 128](d["vals"], d["slots"], d["olds"], d["keys"],
                                           d["kslots"], d["kolds"])
        append_slots[1, 32](d["slots"], d["olds"], d["kslots"], d["kolds"], 700)
        return {"olds": d["olds"], "kolds": d["kolds"]}

    def ref(h):
        return {"olds": numpy.concatenate([h["vals"], h["slots"]]),
                "kolds": numpy.concatenate([h["keys"], h["kslots"]])}

    # which value each exchange gets back is open; that none is lost or doubled is not
    return Case(inputs, run, ref, canon={"olds": numpy.sort, "kolds": numpy.sort})


@case
def atomic_min_max_uint64_high_bit(jit, cupy):
    @jit.rawkernel()
    def extremes(keys, lo, hi, groups):
        i = jit.grid(1)
        if i < keys.size:
            g = i % groups
            jit.atomic_min(lo, g, keys[i])
            jit.atomic_max(hi, g, keys[i])

    def inputs(rng):
        n = 2500
        keys = rng.integers(2 ** 62, 2 ** 64, n, dtype=numpy.uint64)
        return dict(keys=keys, lo=numpy.full(7, 2 ** 64 - 1, numpy.uint64),
                    hi=numpy.zeros(7, numpy.uint64))

    def run(xp, d):
        extremes[blocks_for(2500, 256), 256](d["keys"], d["lo"], d["hi"], 7)
        return {"lo": d["lo"], "hi": d["hi"]}

    def ref(h):
        k = h["keys"]
        g = numpy.arange(k.size) % 7
        return {"lo": numpy.array([k[g == j].min() for j in range(7)], numpy.uint64),
                "hi": numpy.array([k[g == j].max() for j in range(7)], numpy.uint64)}

    return Case(inputs, run, ref)


@case
def atomic_and_or_xor_masks(jit, cupy):
    @jit.rawkernel()
    def fold(words, wide, band, bor, bxor, wor):
        i = jit.grid(1)
        if i < words.size:
            g = i % 5
            jit.atomic_and(band, g, words[i])
            jit.atomic_or(bor, g, words[i])
            jit.atomic_xor(bxor, g, words[i])
            jit.atomic_or(wor, g, wide[i])

    def inputs(rng):
        n = 1500
        return dict(words=rng.integers(-2 ** 31, 2 ** 31, n).astype(numpy.int32),
                    wide=(numpy.uint64(1) << rng.integers(0, 64, n).astype(numpy.uint64)),
                    band=numpy.full(5, -1, numpy.int32), bor=numpy.zeros(5, numpy.int32),
                    bxor=rng.integers(-2 ** 31, 2 ** 31, 5).astype(numpy.int32),
                    wor=numpy.zeros(5, numpy.uint64))

    def run(xp, d):
        fold[blocks_for(1500, 128), 128](d["words"], d["wide"], d["band"], d["bor"],
                                         d["bxor"], d["wor"])
        return {"band": d["band"], "bor": d["bor"], "bxor": d["bxor"], "wor": d["wor"]}

    def ref(h):
        g = numpy.arange(1500) % 5
        w = h["words"]
        return {"band": numpy.array([numpy.bitwise_and.reduce(w[g == j]) for j in range(5)],
                                    numpy.int32),
                "bor": numpy.array([numpy.bitwise_or.reduce(w[g == j]) for j in range(5)],
                                   numpy.int32),
                "bxor": numpy.array([numpy.bitwise_xor.reduce(w[g == j]) ^ h["bxor"][j]
                                     for j in range(5)], numpy.int32),
                "wor": numpy.array([numpy.bitwise_or.reduce(h["wide"][g == j])
                                    for j in range(5)], numpy.uint64)}

    return Case(inputs, run, ref)


@case
def atomic_inc_dec_wrap_around(jit, cupy):
    @jit.rawkernel()
    def tick(which, up, down, up_limit, down_limit):
        i = jit.grid(1)
        if i < which.size:
            jit.atomic_inc(up, which[i], up_limit)
            jit.atomic_dec(down, which[i], down_limit)

    def inputs(rng):
        n = 1000
        return dict(which=rng.integers(0, 6, n).astype(numpy.int32),
                    up=rng.integers(0, 10, 6).astype(numpy.uint32),
                    down=rng.integers(0, 6, 6).astype(numpy.uint32))

    def run(xp, d):
        tick[8, 128](d["which"], d["up"], d["down"], numpy.uint32(9), numpy.uint32(5))
        return {"up": d["up"], "down": d["down"]}

    def ref(h):
        hits = numpy.bincount(h["which"], minlength=6)
        # inc: old >= limit ? 0 : old + 1, counting modulo limit + 1;
        # dec: old == 0 or old > limit ? limit : old - 1, also modulo limit + 1
        up = (h["up"].astype(numpy.int64) + hits) % 10
        down = (h["down"].astype(numpy.int64) - hits) % 6
        return {"up": up.astype(numpy.uint32), "down": down.astype(numpy.uint32)}

    return Case(inputs, run, ref)


@case
def atomic_cas_saturating_add_loop(jit, cupy):
    @jit.rawkernel()
    def sat_add(which, amount, acc, cap):
        i = jit.grid(1)
        if i < which.size:
            slot = which[i]
            old = acc[slot]
            while True:
                new = old + amount[i]
                if new > cap:
                    new = cap
                prev = jit.atomic_cas(acc, slot, old, new)
                if prev == old:
                    break
                old = prev

    def inputs(rng):
        n = 2000
        return dict(which=rng.integers(0, 8, n).astype(numpy.int32),
                    amount=rng.integers(1, 1000, n).astype(numpy.uint32),
                    acc=rng.integers(0, 1000, 8).astype(numpy.uint32))

    def run(xp, d):
        sat_add[blocks_for(2000, 128), 128](d["which"], d["amount"], d["acc"],
                                            numpy.uint32(100000))
        return {"acc": d["acc"]}

    def ref(h):
        total = h["acc"].astype(numpy.int64) + numpy.bincount(
            h["which"], weights=h["amount"].astype(numpy.int64), minlength=8).astype(numpy.int64)
        return {"acc": numpy.minimum(total, 100000).astype(numpy.uint32)}

    return Case(inputs, run, ref)


# ------------------------------------------------------------ stencils, images

@case
def stencil_1d_shared_halo(jit, cupy):
    THREADS = 128

    @jit.rawkernel()
    def smooth(x, y, n):
        tile = jit.shared_memory(numpy.float64, THREADS + 2 * RADIUS)
        g = jit.grid(1)
        t = jit.threadIdx.x + RADIUS
        if g < n:
            tile[t] = x[g]
        else:
            tile[t] = 0.0
        if jit.threadIdx.x < RADIUS:
            left = jit.blockIdx.x * THREADS + jit.threadIdx.x
            tile[jit.threadIdx.x] = 0.0
            if left >= RADIUS:
                tile[jit.threadIdx.x] = x[left - RADIUS]
            right = g + THREADS
            tile[t + THREADS] = 0.0
            if right < n:
                tile[t + THREADS] = x[right]
        jit.syncthreads()
        if g < n:
            acc = 0.0
            for k in range(-RADIUS, RADIUS + 1):
                acc += tile[t + k]
            y[g] = acc / (2 * RADIUS + 1)

    def inputs(rng):
        return dict(x=rng.standard_normal(1000), y=numpy.full(1000, numpy.nan))

    def run(xp, d):
        smooth[blocks_for(1000, THREADS), THREADS](d["x"], d["y"], 1000)
        return {"y": d["y"]}

    def ref(h):
        p = numpy.pad(h["x"], RADIUS)
        return {"y": sum(p[k:k + 1000] for k in range(2 * RADIUS + 1)) / (2 * RADIUS + 1)}

    return Case(inputs, run, ref, rtol=1e-12, atol=1e-12)


@case
def game_of_life_periodic(jit, cupy):
    @jit.rawkernel()
    def life(cur, nxt, rows, cols):
        c, r = jit.grid(2)
        if r < rows and c < cols:
            alive = 0
            for dr in range(-1, 2):
                for dc in range(-1, 2):
                    if dr != 0 or dc != 0:
                        rr = (r + rows + dr) % rows
                        cc = (c + cols + dc) % cols
                        alive += cur[rr, cc]
            if alive == 3 or (alive == 2 and cur[r, c] == 1):
                nxt[r, c] = 1
            else:
                nxt[r, c] = 0

    def inputs(rng):
        return dict(a=(rng.random((37, 53)) < 0.35).astype(numpy.uint8),
                    b=numpy.full((37, 53), 9, numpy.uint8))

    def run(xp, d):
        grid = (blocks_for(53, 16), blocks_for(37, 8))
        for _ in range(3):
            life[grid, (16, 8)](d["a"], d["b"], 37, 53)
            life[grid, (16, 8)](d["b"], d["a"], 37, 53)
        return {"a": d["a"]}

    def ref(h):
        a = h["a"].astype(numpy.int64)
        for _ in range(6):
            n = sum(numpy.roll(numpy.roll(a, dr, 0), dc, 1)
                    for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc)
            a = ((n == 3) | ((n == 2) & (a == 1))).astype(numpy.int64)
        return {"a": a.astype(numpy.uint8)}

    return Case(inputs, run, ref)


@case
def jacobi_pingpong_on_a_stream(jit, cupy):
    @jit.rawkernel()
    def relax(src, dst, rows, cols):
        j, i = jit.grid(2)
        if i < rows and j < cols:
            if i == 0 or j == 0 or i == rows - 1 or j == cols - 1:
                dst[i, j] = src[i, j]
            else:
                dst[i, j] = 0.25 * (src[i - 1, j] + src[i + 1, j] + src[i, j - 1]
                                    + src[i, j + 1])

    def inputs(rng):
        return dict(u=rng.uniform(0, 1, (40, 30)), v=numpy.full((40, 30), numpy.nan))

    def run(xp, d):
        s = xp.Stream()
        blocks = (blocks_for(30, 16), blocks_for(40, 16))
        for _ in range(10):
            relax[blocks, (16, 16)](d["u"], d["v"], 40, 30, stream=s)
            relax(blocks, (16, 16), (d["v"], d["u"], 40, 30), stream=s)
        s.synchronize()
        return {"u": d["u"]}

    def ref(h):
        u = h["u"].copy()
        for _ in range(20):
            v = u.copy()
            v[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
            u = v
        return {"u": u}

    return Case(inputs, run, ref, rtol=1e-12, atol=1e-12)


@case
def conv2d_filter_array_zero_pad(jit, cupy):
    @jit.rawkernel()
    def conv(img, filt, out):
        x, y = jit.grid(2)
        h = img.shape[0]
        w = img.shape[1]
        k = filt.shape[0]
        half = k // 2
        if y < h and x < w:
            acc = cupy.float32(0)
            for fy in range(k):
                for fx in range(k):
                    yy = y + fy - half
                    xx = x + fx - half
                    if yy >= 0 and yy < h and xx >= 0 and xx < w:
                        acc += img[yy, xx] * filt[fy, fx]
            out[y, x] = acc

    def inputs(rng):
        return dict(img=rng.uniform(0, 1, (45, 61)).astype(numpy.float32),
                    filt=rng.uniform(-1, 1, (5, 5)).astype(numpy.float32),
                    out=numpy.full((45, 61), numpy.nan, numpy.float32))

    def run(xp, d):
        conv[(blocks_for(61, 16), blocks_for(45, 16)), (16, 16)](d["img"], d["filt"], d["out"])
        return {"out": d["out"]}

    def ref(h):
        p = numpy.pad(h["img"].astype(numpy.float64), 2)
        out = numpy.zeros((45, 61))
        for fy in range(5):
            for fx in range(5):
                out += p[fy:fy + 45, fx:fx + 61] * h["filt"][fy, fx]
        return {"out": out}

    return Case(inputs, run, ref, rtol=1e-5, atol=1e-5)


@case
def channel_view_of_rgb_uint8(jit, cupy):
    @jit.rawkernel()
    def to_float(chan, out, scale):
        r, c = jit.grid(2)
        if r < chan.shape[0] and c < chan.shape[1]:
            out[r, c] = chan[r, c] * scale - 0.5

    def inputs(rng):
        return dict(img=rng.integers(0, 256, (30, 50, 3), dtype=numpy.uint8),
                    out=numpy.full((30, 25), numpy.nan, numpy.float32))

    def run(xp, d):
        green_every_other = d["img"][:, ::2, 1]          # strides (150, 6) bytes
        to_float[(2, 2), (16, 16)](green_every_other, d["out"], numpy.float32(1 / 255))
        return {"out": d["out"]}

    def ref(h):
        g = h["img"][:, ::2, 1]
        return {"out": g * numpy.float32(1 / 255) - numpy.float32(0.5)}

    return Case(inputs, run, ref, rtol=1e-6, atol=1e-6)


@case
def permute_3d_fortran_input(jit, cupy):
    @jit.rawkernel()
    def permute(src, dst):
        a, b, c = jit.grid(3)
        if a < src.shape[0] and b < src.shape[1] and c < src.shape[2]:
            dst[c, a, b] = src[a, b, c] * 2 + 1

    def inputs(rng):
        return dict(src=numpy.asfortranarray(rng.integers(-500, 500, (9, 14, 6)).astype(
            numpy.int16)), dst=numpy.zeros((6, 9, 14), numpy.int16))

    def run(xp, d):
        permute((2, 4, 2), (8, 4, 4), (d["src"], d["dst"]))
        return {"dst": d["dst"]}

    def ref(h):
        return {"dst": (h["src"].transpose(2, 0, 1) * 2 + 1).astype(numpy.int16)}

    return Case(inputs, run, ref)


@case
def block_3d_threads_sum_planes(jit, cupy):
    @jit.rawkernel()
    def plane_sums(vol, out):
        acc = jit.shared_memory(numpy.float64, 4)
        tx = jit.threadIdx.x
        ty = jit.threadIdx.y
        tz = jit.threadIdx.z
        if tx == 0 and ty == 0:
            acc[tz] = 0.0
        jit.syncthreads()
        z = jit.blockIdx.z * jit.blockDim.z + tz
        y = jit.blockIdx.y * jit.blockDim.y + ty
        x = jit.blockIdx.x * jit.blockDim.x + tx
        jit.atomic_add(acc, tz, vol[z, y, x])
        jit.syncthreads()
        if tx == 0 and ty == 0:
            jit.atomic_add(out, z, acc[tz])

    def inputs(rng):
        return dict(vol=rng.standard_normal((8, 12, 16)), out=numpy.zeros(8))

    def run(xp, d):
        plane_sums[(2, 3, 2), (8, 4, 4)](d["vol"], d["out"])
        return {"out": d["out"]}

    return Case(inputs, run, lambda h: {"out": h["vol"].sum(axis=(1, 2))},
                rtol=1e-11, atol=1e-11)


# ------------------------------------------------------------ physics, finance, numerics

@case
def nbody_shared_tiles_float32(jit, cupy):
    @jit.rawkernel()
    def accel(px, py, pz, m, ax, ay, az, n):
        sx = jit.shared_memory(cupy.float32, NB_TILE)
        sy = jit.shared_memory(cupy.float32, NB_TILE)
        sz = jit.shared_memory(cupy.float32, NB_TILE)
        sm = jit.shared_memory(cupy.float32, NB_TILE)
        i = jit.grid(1)
        t = jit.threadIdx.x
        xi = px[i]
        yi = py[i]
        zi = pz[i]
        fx = cupy.float32(0)
        fy = cupy.float32(0)
        fz = cupy.float32(0)
        for tile in range(n // NB_TILE):
            j = tile * NB_TILE + t
            sx[t] = px[j]
            sy[t] = py[j]
            sz[t] = pz[j]
            sm[t] = m[j]
            jit.syncthreads()
            for k in range(NB_TILE):
                dx = sx[k] - xi
                dy = sy[k] - yi
                dz = sz[k] - zi
                r2 = dx * dx + dy * dy + dz * dz + cupy.float32(SOFTENING)
                inv = cupy.float32(1) / (r2 * cupy.sqrt(r2))
                fx += sm[k] * dx * inv
                fy += sm[k] * dy * inv
                fz += sm[k] * dz * inv
            jit.syncthreads()
        ax[i] = fx
        ay[i] = fy
        az[i] = fz

    def inputs(rng):
        n = 256
        d = {k: rng.uniform(-1, 1, n).astype(numpy.float32) for k in ("px", "py", "pz")}
        d["m"] = rng.uniform(0.5, 1.5, n).astype(numpy.float32)
        for k in ("ax", "ay", "az"):
            d[k] = numpy.full(n, numpy.nan, numpy.float32)
        return d

    def run(xp, d):
        accel[256 // NB_TILE, NB_TILE](d["px"], d["py"], d["pz"], d["m"], d["ax"], d["ay"],
                                       d["az"], 256)
        return {"ax": d["ax"], "ay": d["ay"], "az": d["az"]}

    def ref(h):
        p = numpy.stack([h["px"], h["py"], h["pz"]], axis=1).astype(numpy.float64)
        diff = p[None, :, :] - p[:, None, :]
        r2 = (diff ** 2).sum(axis=2) + numpy.float32(SOFTENING)
        w = h["m"][None, :] / (r2 * numpy.sqrt(r2))
        a = (diff * w[:, :, None]).sum(axis=1)
        return {"ax": a[:, 0], "ay": a[:, 1], "az": a[:, 2]}

    return Case(inputs, run, ref, rtol=2e-3, atol=2e-2)


@case
def black_scholes_polynomial_cnd(jit, cupy):
    @jit.rawkernel(device=True)
    def cnd(d):
        k = 1.0 / (1.0 + 0.2316419 * cupy.absolute(d))
        poly = k * (0.319381530 + k * (-0.356563782 + k * (1.781477937
                    + k * (-1.821255978 + k * 1.330274429))))
        c = 1.0 - 0.3989422804014327 * cupy.exp(-0.5 * d * d) * poly
        if d < 0:
            c = 1.0 - c
        return c

    @jit.rawkernel()
    def price(S, K, T, call, put, n):
        i = jit.grid(1)
        if i < n:
            sq = cupy.sqrt(T[i])
            d1 = (cupy.log(S[i] / K[i]) + (RISKFREE + 0.5 * VOLATILITY * VOLATILITY) * T[i]) / (
                VOLATILITY * sq)
            d2 = d1 - VOLATILITY * sq
            disc = K[i] * cupy.exp(-RISKFREE * T[i])
            call[i] = S[i] * cnd(d1) - disc * cnd(d2)
            put[i] = disc * cnd(-d2) - S[i] * cnd(-d1)

    def inputs(rng):
        n = 1000
        return dict(S=rng.uniform(5, 30, n), K=rng.uniform(1, 100, n), T=rng.uniform(0.25, 10, n),
                    call=numpy.full(n, numpy.nan), put=numpy.full(n, numpy.nan))

    def run(xp, d):
        price[blocks_for(1000, 128), 128](d["S"], d["K"], d["T"], d["call"], d["put"], 1000)
        return {"call": d["call"], "put": d["put"]}

    def ref(h):
        def cnd(d):
            k = 1.0 / (1.0 + 0.2316419 * numpy.abs(d))
            poly = k * (0.319381530 + k * (-0.356563782 + k * (1.781477937
                        + k * (-1.821255978 + k * 1.330274429))))
            c = 1.0 - 0.3989422804014327 * numpy.exp(-0.5 * d * d) * poly
            return numpy.where(d < 0, 1.0 - c, c)
        S, K, T = h["S"], h["K"], h["T"]
        sq = numpy.sqrt(T)
        d1 = (numpy.log(S / K) + (RISKFREE + 0.5 * VOLATILITY ** 2) * T) / (VOLATILITY * sq)
        d2 = d1 - VOLATILITY * sq
        disc = K * numpy.exp(-RISKFREE * T)
        return {"call": S * cnd(d1) - disc * cnd(d2), "put": disc * cnd(-d2) - S * cnd(-d1)}

    return Case(inputs, run, ref, rtol=1e-9, atol=1e-9)


@case
def dft_rows_complex128(jit, cupy):
    @jit.rawkernel()
    def dft(x, out, nrows, n):
        k, r = jit.grid(2)
        if r < nrows and k < n:
            acc = 0j
            for t in range(n):
                acc += x[r, t] * cupy.exp(-2j * math.pi * ((k * t) % n) / n)
            out[r, k] = acc

    def inputs(rng):
        shape = (6, 24)
        return dict(x=rng.standard_normal(shape) + 1j * rng.standard_normal(shape),
                    out=numpy.full(shape, numpy.nan + 0j))

    def run(xp, d):
        dft[(1, 1), (32, 8)](d["x"], d["out"], 6, 24)
        return {"out": d["out"]}

    return Case(inputs, run, lambda h: {"out": numpy.fft.fft(h["x"], axis=1)},
                rtol=1e-10, atol=1e-10)


@case
def mandelbrot_grid_stride_break(jit, cupy):
    MAX_IT = 200

    @jit.rawkernel()
    def mandel(out, x0, y0, dx, dy):
        sx, sy = jit.grid(2)
        gx, gy = jit.gridsize(2)
        for py in range(sy, out.shape[0], gy):
            for px in range(sx, out.shape[1], gx):
                cr = x0 + px * dx
                ci = y0 + py * dy
                zr = 0.0
                zi = 0.0
                it = 0
                for n in range(MAX_IT):
                    zr2 = zr * zr
                    zi2 = zi * zi
                    if zr2 + zi2 > 4.0:
                        break
                    zi = 2.0 * zr * zi + ci
                    zr = zr2 - zi2 + cr
                    it += 1
                out[py, px] = cupy.uint16(it)

    def inputs(rng):
        return dict(out=numpy.full((48, 64), 65535, numpy.uint16),
                    x0=float(rng.uniform(-2.2, -2.0)), y0=float(rng.uniform(-1.3, -1.1)))

    def run(xp, d):
        mandel[(2, 2), (8, 8)](d["out"], d["x0"], d["y0"], 3.0 / 64, 2.4 / 48)
        return {"out": d["out"]}

    def ref(h):
        out = numpy.zeros((48, 64), numpy.uint16)
        for py in range(48):
            for px in range(64):
                cr = h["x0"] + px * (3.0 / 64)
                ci = h["y0"] + py * (2.4 / 48)
                zr = zi = 0.0
                it = 0
                for _ in range(MAX_IT):
                    zr2, zi2 = zr * zr, zi * zi
                    if zr2 + zi2 > 4.0:
                        break
                    zi = 2.0 * zr * zi + ci
                    zr = zr2 - zi2 + cr
                    it += 1
                out[py, px] = it
        return {"out": out}

    # the GPU may fuse 2 * zr * zi + ci: a point near the set escapes at another count
    # then, but one that escapes within 12 steps (its rounding grown at most 4**12-fold)
    # does so at the same count
    def canon(a):
        return numpy.minimum(a, 12)

    return Case(inputs, run, ref, canon={"out": canon})


@case
def kahan_rows_float32(jit, cupy):
    @jit.rawkernel()
    def row_sums(a, naive, comp):
        r = jit.grid(1)
        if r < a.shape[0]:
            s = cupy.float32(0)
            c = cupy.float32(0)
            plain = cupy.float32(0)
            for j in range(a.shape[1]):
                v = a[r, j]
                plain += v
                y = v - c
                t = s + y
                c = (t - s) - y
                s = t
            naive[r] = plain
            comp[r] = s

    def inputs(rng):
        return dict(a=rng.uniform(0, 1, (16, 20000)).astype(numpy.float32),
                    naive=numpy.full(16, numpy.nan, numpy.float32),
                    comp=numpy.full(16, numpy.nan, numpy.float32))

    def run(xp, d):
        row_sums[1, 32](d["a"], d["naive"], d["comp"])
        return {"naive": d["naive"], "comp": d["comp"]}

    def ref(h):
        a = h["a"]
        plain = numpy.zeros(16, numpy.float32)
        for j in range(a.shape[1]):         # the float32 order the loop adds in
            plain += a[:, j]
        return {"naive": plain, "comp": a.astype(numpy.float64).sum(axis=1)}

    # float32 adds in order, exactly; the compensated sums to float64's within an ulp or two
    return Case(inputs, run, ref, rtol=3e-7, atol=0)


@case
def argmax_block_value_index_pairs(jit, cupy):
    THREADS = 128

    @jit.rawkernel()
    def block_argmax(x, best_idx, best_val):
        vals = jit.shared_memory(numpy.float32, THREADS)
        idxs = jit.shared_memory(numpy.int64, THREADS)
        t = jit.threadIdx.x
        i = jit.grid(1)
        vals[t] = -numpy.inf
        idxs[t] = -1
        if i < x.size:
            vals[t] = x[i]
            idxs[t] = i
        jit.syncthreads()
        half = THREADS // 2
        while half > 0:
            if t < half:
                ov = vals[t + half]
                oi = idxs[t + half]
                if ov > vals[t] or (ov == vals[t] and oi >= 0 and oi < idxs[t]):
                    vals[t] = ov
                    idxs[t] = oi
            jit.syncthreads()
            half //= 2
        if t == 0:
            best_idx[jit.blockIdx.x] = idxs[0]
            best_val[jit.blockIdx.x] = vals[0]

    def inputs(rng):
        n = 1000
        # few distinct values: ties, which the smaller index must win
        return dict(x=rng.integers(0, 20, n).astype(numpy.float32),
                    best_idx=numpy.full(8, -7, numpy.int64),
                    best_val=numpy.full(8, numpy.nan, numpy.float32))

    def run(xp, d):
        block_argmax[8, THREADS](d["x"], d["best_idx"], d["best_val"])
        return {"best_idx": d["best_idx"], "best_val": d["best_val"]}

    def ref(h):
        x = numpy.concatenate([h["x"], numpy.full(24, -numpy.inf, numpy.float32)])
        blocks = x.reshape(8, THREADS)
        idx = blocks.argmax(axis=1) + numpy.arange(8) * THREADS
        return {"best_idx": idx.astype(numpy.int64), "best_val": blocks.max(axis=1)}

    return Case(inputs, run, ref)


@case
def tiled_matmul_rect_dynamic_shared(jit, cupy):
    T = 16

    @jit.rawkernel()
    def matmul(a, b, c, m, k, n):
        sm = jit.shared_memory(numpy.float64, None)
        tx = jit.threadIdx.x
        ty = jit.threadIdx.y
        row = jit.blockIdx.y * T + ty
        col = jit.blockIdx.x * T + tx
        acc = 0.0
        for t0 in range(0, k, T):
            sm[ty * T + tx] = 0.0
            sm[T * T + ty * T + tx] = 0.0
            if row < m and t0 + tx < k:
                sm[ty * T + tx] = a[row, t0 + tx]
            if col < n and t0 + ty < k:
                sm[T * T + ty * T + tx] = b[t0 + ty, col]
            jit.syncthreads()
            for q in range(T):
                acc += sm[ty * T + q] * sm[T * T + q * T + tx]
            jit.syncthreads()
        if row < m and col < n:
            c[row, col] = acc

    def inputs(rng):
        return dict(a=rng.standard_normal((50, 70)), b=rng.standard_normal((70, 33)),
                    c=numpy.full((50, 33), numpy.nan))

    def run(xp, d):
        grid = (blocks_for(33, T), blocks_for(50, T))
        matmul[grid, (T, T)](d["a"], d["b"], d["c"], 50, 70, 33, shared_mem=2 * T * T * 8)
        return {"c": d["c"]}

    return Case(inputs, run, lambda h: {"c": h["a"] @ h["b"]}, rtol=1e-11, atol=1e-11)


@case
def batched_3x3_determinants(jit, cupy):
    @jit.rawkernel()
    def dets(m, out):
        i = jit.grid(1)
        if i < m.shape[0]:
            a, b, c = m[i, 0, 0], m[i, 0, 1], m[i, 0, 2]
            d, e, f = m[i, 1, 0], m[i, 1, 1], m[i, 1, 2]
            g, h, k = m[i, 2, 0], m[i, 2, 1], m[i, 2, 2]
            out[i] = a * (e * k - f * h) - b * (d * k - f * g) + c * (d * h - e * g)

    def inputs(rng):
        return dict(m=rng.standard_normal((500, 3, 3)), out=numpy.full(500, numpy.nan))

    def run(xp, d):
        dets[4, 128](d["m"], d["out"])
        return {"out": d["out"]}

    return Case(inputs, run, lambda h: {"out": numpy.linalg.det(h["m"])}, rtol=1e-9,
                atol=1e-11)


# ------------------------------------------------------------ warps, cub, groups

@case
def shuffles_with_width_and_uint64(jit, cupy):
    @jit.rawkernel()
    def segments(x, first8, xor16, down4, wide):
        i = jit.grid(1)
        v = x[i]
        first8[i] = jit.shfl_sync(FULL, v, 0, width=8)
        xor16[i] = v + jit.shfl_xor_sync(FULL, v, 5, width=16)
        down4[i] = jit.shfl_down_sync(FULL, v, 1, width=4)
        w = wide[i]
        wide[i] = jit.shfl_sync(FULL, w, 31 - jit.laneid())

    def inputs(rng):
        n = 128
        z = numpy.full(n, numpy.nan, numpy.float32)
        return dict(x=rng.standard_normal(n).astype(numpy.float32), first8=z, xor16=z.copy(),
                    down4=z.copy(), wide=rng.integers(0, 2 ** 64, n, dtype=numpy.uint64))

    def run(xp, d):
        segments[2, 64](d["x"], d["first8"], d["xor16"], d["down4"], d["wide"])
        return {k: d[k] for k in ("first8", "xor16", "down4", "wide")}

    def ref(h):
        x = h["x"]
        i = numpy.arange(x.size)
        lane = i % 32
        down = numpy.where(lane % 4 + 1 < 4, numpy.minimum(i + 1, x.size - 1), i)
        return {"first8": x[i // 8 * 8], "xor16": x + x[i ^ 5], "down4": x[down],
                "wide": h["wide"][i - lane + (31 - lane)]}

    return Case(inputs, run, ref, rtol=1e-6)


@case
def laneid_warpsize_warp_totals(jit, cupy):
    @jit.rawkernel()
    def warp_totals(x, lanes, totals):
        counts = jit.shared_memory(numpy.int32, 8)
        lane = jit.laneid()
        wid = jit.threadIdx.x // jit.warpsize
        if lane == 0:
            counts[wid] = 0
        jit.syncwarp()
        i = jit.grid(1)
        jit.atomic_add(counts, wid, x[i])
        jit.syncwarp()
        lanes[i] = lane
        if lane == 0:
            totals[jit.blockIdx.x * (jit.blockDim.x // jit.warpsize) + wid] = counts[wid]

    def inputs(rng):
        return dict(x=rng.integers(-1000, 1000, 512).astype(numpy.int32),
                    lanes=numpy.full(512, 99, numpy.uint32),
                    totals=numpy.zeros(16, numpy.int32))

    def run(xp, d):
        warp_totals[2, 256](d["x"], d["lanes"], d["totals"])
        return {"lanes": d["lanes"], "totals": d["totals"]}

    return Case(inputs, run, lambda h: {
        "lanes": (numpy.arange(512) % 32).astype(numpy.uint32),
        "totals": h["x"].reshape(16, 32).sum(axis=1).astype(numpy.int32)})


@case
def cub_warp_sums_float64_four_warps(jit, cupy):
    @jit.rawkernel()
    def warp_sums(x, out):
        WarpReduce = jit.cub.WarpReduce[numpy.float64]
        temp = jit.shared_memory(WarpReduce.TempStorage, 4)
        wid = jit.threadIdx.x // 32
        v = x[jit.blockIdx.x, jit.threadIdx.x]
        total = WarpReduce(temp[wid]).Sum(v)
        if jit.threadIdx.x % 32 == 0:
            out[jit.blockIdx.x * 4 + wid] = total

    def inputs(rng):
        return dict(x=rng.standard_normal((3, 128)), out=numpy.full(12, numpy.nan))

    def run(xp, d):
        warp_sums[3, 128](d["x"], d["out"])
        return {"out": d["out"]}

    return Case(inputs, run, lambda h: {"out": h["x"].reshape(12, 32).sum(axis=1)},
                rtol=1e-12, atol=1e-12)


@case
def cub_block_max_and_min_int64(jit, cupy):
    @jit.rawkernel()
    def extremes(x, out):
        BlockReduce = jit.cub.BlockReduce[numpy.int64, 256]
        t_hi = jit.shared_memory(BlockReduce.TempStorage, 1)
        t_lo = jit.shared_memory(BlockReduce.TempStorage, 1)
        v = x[jit.blockIdx.x * 256 + jit.threadIdx.x]
        hi = BlockReduce(t_hi[0]).Reduce(v, jit.cub.Max())
        lo = BlockReduce(t_lo[0]).Reduce(v, jit.cub.Min())
        if jit.threadIdx.x == 0:
            out[jit.blockIdx.x, 0] = hi
            out[jit.blockIdx.x, 1] = lo

    def inputs(rng):
        return dict(x=rng.integers(-2 ** 62, 2 ** 62, 5 * 256), out=numpy.zeros((5, 2), numpy.int64))

    def run(xp, d):
        extremes[5, 256](d["x"], d["out"])
        return {"out": d["out"]}

    def ref(h):
        b = h["x"].reshape(5, 256)
        return {"out": numpy.stack([b.max(axis=1), b.min(axis=1)], axis=1)}

    return Case(inputs, run, ref)


@case
def cg_memcpy_async_then_wait(jit, cupy):
    @jit.rawkernel()
    def tile_mirror(x, y, factor):
        smem = jit.shared_memory(numpy.float32, 128)
        g = jit.cg.this_thread_block()
        base = jit.blockIdx.x * 128
        jit.cg.memcpy_async(g, smem, 0, x, base, 4 * 128)
        jit.cg.wait(g)
        t = g.thread_rank()
        y[base + t] = smem[t] * factor + smem[127 - t]

    def inputs(rng):
        return dict(x=rng.standard_normal(4 * 128).astype(numpy.float32),
                    y=numpy.full(4 * 128, numpy.nan, numpy.float32))

    def run(xp, d):
        tile_mirror[4, 128](d["x"], d["y"], numpy.float32(0.5))
        return {"y": d["y"]}

    def ref(h):
        x = h["x"].reshape(4, 128)
        return {"y": (x * numpy.float32(0.5) + x[:, ::-1]).ravel()}

    return Case(inputs, run, ref, rtol=1e-6, atol=1e-6)


@case
def cg_grid_sync_histogram_then_frequencies(jit, cupy):
    @jit.rawkernel()
    def hist_freq(x, bins, freq, nbins):
        g = jit.cg.this_grid()
        i = g.thread_rank()
        stride = g.size()
        for k in range(i, x.size, stride):
            jit.atomic_add(bins, x[k], 1)
        g.sync()
        for b in range(i, nbins, stride):
            freq[b] = bins[b] / x.size

    def inputs(rng):
        n = 20000
        return dict(x=rng.integers(0, 1500, n).astype(numpy.int32),
                    bins=numpy.zeros(1500, numpy.int32), freq=numpy.full(1500, numpy.nan))

    def run(xp, d):
        hist_freq[8, 128](d["x"], d["bins"], d["freq"], 1500)
        return {"bins": d["bins"], "freq": d["freq"]}

    def ref(h):
        b = numpy.bincount(h["x"], minlength=1500).astype(numpy.int32)
        return {"bins": b, "freq": b / h["x"].size}

    return Case(inputs, run, ref, rtol=1e-15, cooperative=True)


@case
def cg_tiled_partition_shuffle_reduce(jit, cupy):
    @jit.rawkernel()
    def tile_sums(x, out):
        block = jit.cg.this_thread_block()
        tile = jit.cg.tiled_partition(block, 8)
        v = x[jit.grid(1)]
        v += tile.shfl_down(v, 4)
        v += tile.shfl_down(v, 2)
        v += tile.shfl_down(v, 1)
        if tile.thread_rank() == 0:
            out[jit.blockIdx.x * (128 // 8) + tile.meta_group_rank()] = v
        tile.sync()

    def inputs(rng):
        return dict(x=rng.integers(-10 ** 6, 10 ** 6, 3 * 128).astype(numpy.int64),
                    out=numpy.zeros(3 * 16, numpy.int64))

    def run(xp, d):
        tile_sums[3, 128](d["x"], d["out"])
        return {"out": d["out"]}

    return Case(inputs, run, lambda h: {"out": h["x"].reshape(48, 8).sum(axis=1)})


# ------------------------------------------------------------ device functions, dtypes

@case
def device_fn_factory_over_captured_dtype(jit, cupy):
    def make_clamp_scale(dtype, lo, hi, scale):
        @jit.rawkernel(device=True)
        def clamp_scale(v):
            w = v * dtype.type(scale)
            if w < dtype.type(lo):
                w = dtype.type(lo)
            if w > dtype.type(hi):
                w = dtype.type(hi)
            return w
        return clamp_scale

    clamp_f32 = make_clamp_scale(numpy.dtype(numpy.float32), -1.5, 2.5, 1.75)
    clamp_i16 = make_clamp_scale(numpy.dtype(numpy.int16), -300, 400, 3)

    @jit.rawkernel()
    def apply(xf, yf, xi, yi):
        i = jit.grid(1)
        if i < xf.size:
            yf[i] = clamp_f32(xf[i])
        if i < xi.size:
            yi[i] = clamp_i16(xi[i])

    def inputs(rng):
        return dict(xf=rng.uniform(-2, 2, 300).astype(numpy.float32),
                    yf=numpy.full(300, numpy.nan, numpy.float32),
                    xi=rng.integers(-200, 200, 200).astype(numpy.int16),
                    yi=numpy.zeros(200, numpy.int16))

    def run(xp, d):
        apply[3, 128](d["xf"], d["yf"], d["xi"], d["yi"])
        return {"yf": d["yf"], "yi": d["yi"]}

    def ref(h):
        return {"yf": numpy.clip(h["xf"] * numpy.float32(1.75), numpy.float32(-1.5),
                                 numpy.float32(2.5)),
                "yi": numpy.clip(h["xi"] * numpy.int16(3), -300, 400).astype(numpy.int16)}

    return Case(inputs, run, ref, rtol=0, atol=0)


@case
def device_fns_nested_tuple_returns(jit, cupy):
    @jit.rawkernel(device=True)
    def discriminant(a, b, c):
        return b * b - 4.0 * a * c

    @jit.rawkernel(device=True)
    def roots(a, b, c):
        d = discriminant(a, b, c)
        if d < 0.0:
            return 0.0, 0.0, 0
        s = cupy.sqrt(d)
        return (-b - s) / (2.0 * a), (-b + s) / (2.0 * a), 2

    @jit.rawkernel()
    def solve(a, b, c, r1, r2, count):
        i = jit.grid(1)
        if i < a.size:
            x1, x2, k = roots(a[i], b[i], c[i])
            r1[i] = x1
            r2[i] = x2
            count[i] = k

    def inputs(rng):
        n = 400
        return dict(a=rng.uniform(0.5, 2, n) * rng.choice([-1, 1], n), b=rng.uniform(-5, 5, n),
                    c=rng.uniform(-3, 3, n), r1=numpy.full(n, numpy.nan),
                    r2=numpy.full(n, numpy.nan), count=numpy.full(n, -1, numpy.int32))

    def run(xp, d):
        solve[4, 128](d["a"], d["b"], d["c"], d["r1"], d["r2"], d["count"])
        return {"r1": d["r1"], "r2": d["r2"], "count": d["count"]}

    def ref(h):
        a, b, c = h["a"], h["b"], h["c"]
        disc = b * b - 4.0 * a * c
        ok = disc >= 0
        s = numpy.sqrt(numpy.where(ok, disc, 0))
        return {"r1": numpy.where(ok, (-b - s) / (2.0 * a), 0.0),
                "r2": numpy.where(ok, (-b + s) / (2.0 * a), 0.0),
                "count": numpy.where(ok, 2, 0).astype(numpy.int32)}

    # b * b - 4ac may be fused on the GPU: a root moves by its rounding over 2 sqrt(disc)
    return Case(inputs, run, ref, rtol=1e-9, atol=1e-9)


@case
def float32_constants_stay_float32(jit, cupy):
    @jit.rawkernel()
    def affine(x, y, z, w):
        i = jit.grid(1)
        if i < x.size:
            y[i] = ALPHA * x[i] + OFFSET
            z[i] = x[i] * 0.1 + 2
            w[i] = x[i] / 3

    def inputs(rng):
        n = 500
        z = numpy.full(n, numpy.nan, numpy.float32)
        return dict(x=rng.uniform(-10, 10, n).astype(numpy.float32), y=z, z=z.copy(),
                    w=numpy.full(n, numpy.nan))

    def run(xp, d):
        affine[4, 128](d["x"], d["y"], d["z"], d["w"])
        return {"y": d["y"], "z": d["z"], "w": d["w"], "w_is_f32": d["w"]}

    def ref(h):
        x = h["x"]
        w = (x / numpy.float32(3)).astype(numpy.float64)
        return {"y": ALPHA * x + OFFSET, "z": x * numpy.float32(0.1) + numpy.float32(2),
                "w": w, "w_is_f32": w}

    def float32_exact(a):
        # x / 3 computed in float32 (NumPy's weak 3) is a float32 value in a float64 array
        return a.astype(numpy.float32).astype(numpy.float64) == a

    return Case(inputs, run, ref, rtol=1e-6, atol=1e-6, canon={"w_is_f32": float32_exact})


@case
def numpy_scalar_arguments_of_small_kinds(jit, cupy):
    @jit.rawkernel()
    def mix(a8, out32, outf, k16, h, flag):
        i = jit.grid(1)
        if i < a8.size:
            v = a8[i] + k16
            if flag:
                v = v * 2
            out32[i] = v
            outf[i] = a8[i] * h

    def inputs(rng):
        n = 300
        return dict(a8=rng.integers(-100, 100, n).astype(numpy.int8),
                    out32=numpy.zeros(n, numpy.int32),
                    outf=numpy.full(n, numpy.nan, numpy.float32),
                    k16=numpy.int16(rng.integers(-1000, 1000)),
                    h=numpy.float16(rng.uniform(0.1, 3)))

    def run(xp, d):
        mix[3, 128](d["a8"], d["out32"], d["outf"], d["k16"], d["h"], numpy.bool_(True))
        return {"out32": d["out32"], "outf": d["outf"]}

    def ref(h):
        return {"out32": ((h["a8"].astype(numpy.int16) + h["k16"]) * 2).astype(numpy.int32),
                "outf": (h["a8"] * h["h"]).astype(numpy.float32)}

    return Case(inputs, run, ref, rtol=0, atol=0)


# ------------------------------------------------------------ CuPy ufuncs of two operands

@case
def logsumexp_rows_logaddexp(jit, cupy):
    @jit.rawkernel()
    def lse(x, out):
        r = jit.grid(1)
        if r < x.shape[0]:
            acc = -cupy.inf
            for j in range(x.shape[1]):
                acc = cupy.logaddexp(acc, x[r, j])
            out[r] = acc

    def inputs(rng):
        # (no row of -inf only: CuPy's logaddexp(-inf, -inf) is NaN, NumPy's -inf)
        return dict(x=rng.normal(0, 20, (40, 64)), out=numpy.full(40, numpy.nan))

    def run(xp, d):
        lse[1, 64](d["x"], d["out"])
        return {"out": d["out"]}

    return Case(inputs, run, lambda h: {"out": numpy.logaddexp.reduce(h["x"], axis=1)},
                rtol=1e-12, atol=1e-12)


@case
def bits_and_divisors_ufuncs(jit, cupy):
    @jit.rawkernel()
    def mix(a, b, packed, g, m):
        i = jit.grid(1)
        if i < a.size:
            packed[i] = cupy.bitwise_or(cupy.left_shift(a[i], 16), cupy.right_shift(b[i], 3))
            g[i] = cupy.gcd(a[i], b[i])
            m[i] = cupy.lcm(a[i] % 50, b[i] % 50)

    def inputs(rng):
        n = 500
        return dict(a=rng.integers(0, 2 ** 15, n).astype(numpy.int64),
                    b=rng.integers(1, 2 ** 20, n).astype(numpy.int64),
                    packed=numpy.zeros(n, numpy.int64), g=numpy.zeros(n, numpy.int64),
                    m=numpy.zeros(n, numpy.int64))

    def run(xp, d):
        mix[4, 128](d["a"], d["b"], d["packed"], d["g"], d["m"])
        return {"packed": d["packed"], "g": d["g"], "m": d["m"]}

    def ref(h):
        a, b = h["a"], h["b"]
        return {"packed": (a << 16) | (b >> 3), "g": numpy.gcd(a, b),
                "m": numpy.lcm(a % 50, b % 50)}

    return Case(inputs, run, ref)
