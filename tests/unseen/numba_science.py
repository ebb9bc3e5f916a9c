"""Science kernels written the way numba.cuda users write them (stencils,
n-body, matrix multiply, transposes, histograms, reductions and scans, warp
shuffles, bitonic sorts, fractals, Monte-Carlo with numba.cuda.random,
Black-Scholes, image filters, distance matrices, k-means, streams and
events), run unchanged under cujit and under numba-cuda.

The module imports neither: load(api, tag) gives a copy of it in which the
global `cuda` is the API module (`cujit.cuda`, `numba.cuda`, or Numba's
simulator), as after a user's `from numba import cuda`.  CASES lists
functions that take no argument and return a Case:
    make(rng)      the host inputs (a tuple), from a seeded default_rng
    run(*inputs)   the host code a user writes (to_device, launches,
                   copy_to_host, streams, events): the results, a tuple
    ref(*inputs)   NumPy's results (same tuple), or None where check judges
    check(got, want, inputs)  where not the default assert_allclose
    coop           the kernels need the threads of a block to run together
                   (syncthreads, shared memory written by others, shuffles):
                   the host shim runs them one thread after another only
                   when coop is False
Kernels read `cuda`, `np`, `math` and module constants (TPB, ALPHA, ...) as
globals, and some read variables of the case's function they close over.

tests/gpu/test_unseen_numba_science.py runs every case on the GPU (under
cujit, and under numba-cuda where it is installed);
tests/test_unseen_numba_science_nogpu.py compiles and runs every case on the
fake driver, checking values on the host where coop is False."""
import cmath
import math

import numpy
import numpy as np

import corpus  # tests/unseen is on sys.path
from corpus import Case, blocks_for  # noqa: F401

try:
    cuda  # noqa: B018  (set by load() before the module's code runs)
except NameError:
    cuda = None

CASES, case = corpus.registry()

# cases where cujit knowingly differs from Numba: their tests are
# xfail(strict=True) under cujit (and pass under numba-cuda)
CUJIT_XFAIL = {
}


def load(api, tag):
    """A fresh copy of this module whose kernels see `api` (cujit.cuda,
    numba.cuda) as the global `cuda`, as a user's module does after
    `from numba import cuda`; each API gets its own copy, so kernels compiled
    by one never see the other's module."""
    return corpus.load(__file__, "%s_%s" % (__name__, tag), api)


def _random():
    import importlib
    return importlib.import_module(cuda.__name__ + ".random")


# ---- grid-stride loops ----

@case
def saxpy_grid_stride():
    @cuda.jit
    def saxpy(a, x, y, out):
        start = cuda.grid(1)
        stride = cuda.gridsize(1)
        for i in range(start, x.shape[0], stride):
            out[i] = a * x[i] + y[i]

    def make(rng):
        x = rng.standard_normal(10000).astype(np.float32)
        y = rng.standard_normal(10000).astype(np.float32)
        return np.float32(rng.uniform(0.5, 3.0)), x, y

    def run(a, x, y):
        out = np.zeros_like(x)
        saxpy[16, 128](a, x, y, out)       # host arrays: copied in and back
        return out

    return Case(make, run, lambda a, x, y: a * x + y, rtol=1e-6)


@case
def vector_add_manual_index():
    @cuda.jit
    def vadd(a, b, c, n):
        idx = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
        if idx < n:
            c[idx] = a[idx] + b[idx]

    def make(rng):
        return (rng.integers(-1000, 1000, 5000).astype(np.int64),
                rng.integers(-1000, 1000, 5000).astype(np.int64))

    def run(a, b):
        n = a.size
        d_a = cuda.to_device(a)
        d_b = cuda.to_device(b)
        d_c = cuda.device_array(n, dtype=np.int64)
        threadsperblock = 256
        blockspergrid = (n + (threadsperblock - 1)) // threadsperblock
        vadd[blockspergrid, threadsperblock](d_a, d_b, d_c, n)
        return d_c.copy_to_host()

    return Case(make, run, lambda a, b: a + b)


# ---- stencils ----

ALPHA = 0.25


@case
def heat_1d_steps():
    @cuda.jit
    def heat_step(u, u_new):
        i = cuda.grid(1)
        n = u.shape[0]
        if i >= n:
            return
        if i == 0 or i == n - 1:
            u_new[i] = u[i]
            return
        u_new[i] = u[i] + ALPHA * (u[i - 1] - 2 * u[i] + u[i + 1])

    def make(rng):
        return (rng.random(1000),)

    def run(u0):
        d_u = cuda.to_device(u0)
        d_v = cuda.device_array_like(d_u)
        tpb = 64
        bpg = (u0.size + tpb - 1) // tpb
        for _ in range(50):
            heat_step[bpg, tpb](d_u, d_v)
            d_u, d_v = d_v, d_u
        cuda.synchronize()
        return d_u.copy_to_host()

    def ref(u0):
        u = u0.copy()
        for _ in range(50):
            v = u.copy()
            v[1:-1] = u[1:-1] + ALPHA * (u[:-2] - 2 * u[1:-1] + u[2:])
            u = v
        return u

    return Case(make, run, ref, rtol=1e-12, atol=1e-12)


@case
def jacobi_2d_with_error():
    @cuda.jit
    def jacobi(a, anew, err):
        j, i = cuda.grid(2)
        n, m = a.shape
        if 0 < i < n - 1 and 0 < j < m - 1:
            anew[i, j] = 0.25 * (a[i, j + 1] + a[i, j - 1] + a[i - 1, j] + a[i + 1, j])
            cuda.atomic.max(err, 0, abs(anew[i, j] - a[i, j]))

    def make(rng):
        return (rng.random((45, 70)),)

    def run(a):
        d_a = cuda.to_device(a)
        d_new = cuda.to_device(a)
        errs = []
        threads = (16, 16)
        blocks = ((a.shape[1] + 15) // 16, (a.shape[0] + 15) // 16)
        for _ in range(5):
            d_err = cuda.to_device(np.zeros(1))
            jacobi[blocks, threads](d_a, d_new, d_err)
            errs.append(d_err.copy_to_host()[0])
            d_a, d_new = d_new, d_a
        return d_a.copy_to_host(), np.array(errs)

    def ref(a):
        a = a.copy()
        errs = []
        for _ in range(5):
            b = a.copy()
            b[1:-1, 1:-1] = 0.25 * (a[1:-1, 2:] + a[1:-1, :-2] + a[:-2, 1:-1] + a[2:, 1:-1])
            errs.append(np.abs(b - a).max())
            a = b
        return a, np.array(errs)

    return Case(make, run, ref, rtol=1e-12, atol=1e-12)


TILE = 16


@case
def laplace_shared_halo():
    @cuda.jit
    def laplace(u, out):
        tile = cuda.shared.array(shape=(TILE + 2, TILE + 2), dtype=np.float64)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        x, y = cuda.grid(2)
        ny, nx = u.shape
        inside = x < nx and y < ny
        if inside:
            tile[ty + 1, tx + 1] = u[y, x]
        if tx == 0 and x > 0 and y < ny:
            tile[ty + 1, 0] = u[y, x - 1]
        if tx == TILE - 1 and x + 1 < nx and y < ny:
            tile[ty + 1, TILE + 1] = u[y, x + 1]
        if ty == 0 and y > 0 and x < nx:
            tile[0, tx + 1] = u[y - 1, x]
        if ty == TILE - 1 and y + 1 < ny and x < nx:
            tile[TILE + 1, tx + 1] = u[y + 1, x]
        cuda.syncthreads()
        if inside and 0 < x < nx - 1 and 0 < y < ny - 1:
            out[y, x] = (tile[ty, tx + 1] + tile[ty + 2, tx + 1] + tile[ty + 1, tx]
                         + tile[ty + 1, tx + 2] - 4.0 * tile[ty + 1, tx + 1])

    def make(rng):
        return (rng.standard_normal((70, 45)),)

    def run(u):
        out = cuda.device_array(u.shape, dtype=np.float64)
        out.copy_to_device(np.zeros(u.shape))
        grid = (math.ceil(u.shape[1] / TILE), math.ceil(u.shape[0] / TILE))
        laplace[grid, (TILE, TILE)](cuda.to_device(u), out)
        return out.copy_to_host()

    def ref(u):
        out = np.zeros_like(u)
        out[1:-1, 1:-1] = (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
                           - 4.0 * u[1:-1, 1:-1])
        return out

    return Case(make, run, ref, rtol=1e-12, atol=1e-12, coop=True)


@case
def heat_3d_stencil():
    @cuda.jit
    def heat3d(u, out, c):
        i, j, k = cuda.grid(3)
        nx, ny, nz = u.shape
        if i < 1 or j < 1 or k < 1 or i >= nx - 1 or j >= ny - 1 or k >= nz - 1:
            return
        lap = (u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k]
               + u[i, j, k - 1] + u[i, j, k + 1] - 6 * u[i, j, k])
        out[i, j, k] = u[i, j, k] + c * lap

    def make(rng):
        return (rng.random((20, 18, 12)).astype(np.float32),)

    def run(u):
        d_out = cuda.to_device(u)
        threads = (8, 8, 4)
        blocks = tuple((s + t - 1) // t for s, t in zip(u.shape, threads))
        heat3d[blocks, threads](cuda.to_device(u), d_out, 0.1)
        return d_out.copy_to_host()

    def ref(u):
        w = u.astype(np.float64)
        out = u.copy()
        lap = (w[:-2, 1:-1, 1:-1] + w[2:, 1:-1, 1:-1] + w[1:-1, :-2, 1:-1] + w[1:-1, 2:, 1:-1]
               + w[1:-1, 1:-1, :-2] + w[1:-1, 1:-1, 2:] - 6 * w[1:-1, 1:-1, 1:-1])
        out[1:-1, 1:-1, 1:-1] = (w[1:-1, 1:-1, 1:-1] + 0.1 * lap).astype(np.float32)
        return out

    return Case(make, run, ref, rtol=1e-5, atol=1e-6)


@case
def red_black_gauss_seidel():
    @cuda.jit
    def rb_sweep(u, f, h2, color):
        i, j = cuda.grid(2)
        if i < 1 or j < 1 or i >= u.shape[0] - 1 or j >= u.shape[1] - 1:
            return
        if (i + j) % 2 != color:
            return
        u[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - h2 * f[i, j])

    def make(rng):
        return rng.random((33, 40)), rng.standard_normal((33, 40))

    def run(u, f):
        d_u = cuda.to_device(u)
        d_f = cuda.to_device(f)
        tpb = (8, 8)
        bpg = (blocks_for(u.shape[0], 8), blocks_for(u.shape[1], 8))
        h = 1.0 / (u.shape[0] - 1)
        for sweep in range(4):
            rb_sweep[bpg, tpb](d_u, d_f, h * h, 0)
            rb_sweep[bpg, tpb](d_u, d_f, h * h, 1)
        return d_u.copy_to_host()

    def ref(u, f):
        u = u.copy()
        h2 = (1.0 / (u.shape[0] - 1)) ** 2
        ii, jj = np.meshgrid(np.arange(u.shape[0]), np.arange(u.shape[1]), indexing="ij")
        for _ in range(4):
            for color in (0, 1):
                new = u.copy()
                new[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2]
                                          + u[1:-1, 2:] - h2 * f[1:-1, 1:-1])
                mask = ((ii + jj) % 2 == color)
                mask[0, :] = mask[-1, :] = mask[:, 0] = mask[:, -1] = False
                u = np.where(mask, new, u)
        return u

    return Case(make, run, ref, rtol=1e-12, atol=1e-12)


RADIUS = 3
MA_TPB = 128


@case
def moving_average_shared():
    @cuda.jit
    def moving_avg(x, out):
        sh = cuda.shared.array(MA_TPB + 2 * RADIUS, dtype=np.float64)
        i = cuda.grid(1)
        t = cuda.threadIdx.x + RADIUS
        n = x.shape[0]
        sh[t] = x[i] if i < n else 0.0
        if cuda.threadIdx.x < RADIUS:
            left = i - RADIUS
            sh[t - RADIUS] = x[left] if left >= 0 else 0.0
            right = i + MA_TPB
            sh[t + MA_TPB] = x[right] if right < n else 0.0
        cuda.syncthreads()
        if i < n:
            s = 0.0
            for k in range(-RADIUS, RADIUS + 1):
                s += sh[t + k]
            out[i] = s / (2 * RADIUS + 1)

    def make(rng):
        return (rng.standard_normal(1000),)

    def run(x):
        out = cuda.device_array_like(x)
        moving_avg[blocks_for(x.size, MA_TPB), MA_TPB](cuda.to_device(x), out)
        return out.copy_to_host()

    def ref(x):
        return np.convolve(x, np.ones(2 * RADIUS + 1), mode="same") / (2 * RADIUS + 1)

    return Case(make, run, ref, rtol=1e-12, atol=1e-12, coop=True)


# ---- n-body ----

NB_TPB = 64
SOFT2 = 1e-3


@case
def nbody_shared_tiles():
    @cuda.jit
    def accel(pos, mass, acc):
        sh_pos = cuda.shared.array((NB_TPB, 3), dtype=np.float32)
        sh_m = cuda.shared.array(NB_TPB, dtype=np.float32)
        i = cuda.grid(1)
        tx = cuda.threadIdx.x
        n = pos.shape[0]
        px = py = pz = np.float32(0)
        if i < n:
            px, py, pz = pos[i, 0], pos[i, 1], pos[i, 2]
        ax = ay = az = np.float32(0.0)
        for tile in range((n + NB_TPB - 1) // NB_TPB):
            j = tile * NB_TPB + tx
            if j < n:
                sh_pos[tx, 0] = pos[j, 0]
                sh_pos[tx, 1] = pos[j, 1]
                sh_pos[tx, 2] = pos[j, 2]
                sh_m[tx] = mass[j]
            else:
                sh_pos[tx, 0] = 0
                sh_pos[tx, 1] = 0
                sh_pos[tx, 2] = 0
                sh_m[tx] = 0
            cuda.syncthreads()
            for k in range(NB_TPB):
                dx = sh_pos[k, 0] - px
                dy = sh_pos[k, 1] - py
                dz = sh_pos[k, 2] - pz
                r2 = dx * dx + dy * dy + dz * dz + SOFT2
                inv = 1.0 / (r2 * math.sqrt(r2))
                s = sh_m[k] * inv
                ax += dx * s
                ay += dy * s
                az += dz * s
            cuda.syncthreads()
        if i < n:
            acc[i, 0] = ax
            acc[i, 1] = ay
            acc[i, 2] = az

    def make(rng):
        return (rng.standard_normal((300, 3)).astype(np.float32),
                rng.uniform(0.5, 1.5, 300).astype(np.float32))

    def run(pos, mass):
        acc = np.zeros_like(pos)
        accel[blocks_for(pos.shape[0], NB_TPB), NB_TPB](pos, mass, acc)
        return acc

    def ref(pos, mass):
        p = pos.astype(np.float64)
        d = p[None, :, :] - p[:, None, :]
        r2 = (d * d).sum(-1) + SOFT2
        w = mass.astype(np.float64)[None, :] / (r2 * np.sqrt(r2))
        return (d * w[:, :, None]).sum(1)

    return Case(make, run, ref, rtol=1e-3, atol=1e-3, coop=True)


# ---- matrix multiply ----

TPB = 16


@case
def matmul_naive_f64():
    @cuda.jit
    def matmul(A, B, C):
        row, col = cuda.grid(2)
        if row < C.shape[0] and col < C.shape[1]:
            tmp = 0.
            for k in range(A.shape[1]):
                tmp += A[row, k] * B[k, col]
            C[row, col] = tmp

    def make(rng):
        return rng.standard_normal((37, 23)), rng.standard_normal((23, 41))

    def run(a, b):
        c = cuda.device_array((a.shape[0], b.shape[1]))
        tpb = (TPB, TPB)
        bpg = (math.ceil(a.shape[0] / tpb[0]), math.ceil(b.shape[1] / tpb[1]))
        matmul[bpg, tpb](cuda.to_device(a), cuda.to_device(b), c)
        return c.copy_to_host()

    return Case(make, run, lambda a, b: a @ b, rtol=1e-10, atol=1e-10)


@case
def matmul_tiled_square_f32():
    @cuda.jit
    def fast_matmul(A, B, C):
        sA = cuda.shared.array(shape=(TPB, TPB), dtype=np.float32)
        sB = cuda.shared.array(shape=(TPB, TPB), dtype=np.float32)
        x, y = cuda.grid(2)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        bpg = cuda.gridDim.x
        tmp = np.float32(0.)
        for i in range(bpg):
            sA[tx, ty] = A[x, ty + i * TPB]
            sB[tx, ty] = B[tx + i * TPB, y]
            cuda.syncthreads()
            for j in range(TPB):
                tmp += sA[tx, j] * sB[j, ty]
            cuda.syncthreads()
        C[x, y] = tmp

    def make(rng):
        return (rng.standard_normal((64, 64)).astype(np.float32),
                rng.standard_normal((64, 64)).astype(np.float32))

    def run(a, b):
        c = np.empty_like(a)
        d_c = cuda.to_device(c)
        bpg = a.shape[0] // TPB
        fast_matmul[(bpg, bpg), (TPB, TPB)](cuda.to_device(a), cuda.to_device(b), d_c)
        d_c.copy_to_host(c)
        return c

    return Case(make, run, lambda a, b: a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4,
                coop=True)


@case
def matmul_tiled_any_shape_f64():
    @cuda.jit
    def matmul_tiled(A, B, C):
        sA = cuda.shared.array((TPB, TPB), np.float64)
        sB = cuda.shared.array((TPB, TPB), np.float64)
        ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
        row = cuda.blockIdx.y * TPB + ty
        col = cuda.blockIdx.x * TPB + tx
        n, m = A.shape
        p = B.shape[1]
        acc = 0.0
        ntiles = (m + TPB - 1) // TPB
        for t in range(ntiles):
            k = t * TPB + tx
            sA[ty, tx] = A[row, k] if row < n and k < m else 0.0
            k = t * TPB + ty
            sB[ty, tx] = B[k, col] if k < m and col < p else 0.0
            cuda.syncthreads()
            for kk in range(TPB):
                acc += sA[ty, kk] * sB[kk, tx]
            cuda.syncthreads()
        if row < n and col < p:
            C[row, col] = acc

    def make(rng):
        return rng.standard_normal((50, 37)), rng.standard_normal((37, 29))

    def run(a, b):
        c = cuda.device_array((a.shape[0], b.shape[1]), dtype=np.float64)
        grid = (blocks_for(b.shape[1], TPB), blocks_for(a.shape[0], TPB))
        matmul_tiled[grid, (TPB, TPB)](cuda.to_device(a), cuda.to_device(b), c)
        return c.copy_to_host()

    return Case(make, run, lambda a, b: a @ b, rtol=1e-10, atol=1e-10, coop=True)


# ---- transposes ----

@case
def transpose_naive():
    @cuda.jit
    def transpose(a, out):
        i, j = cuda.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            out[j, i] = a[i, j]

    def make(rng):
        return (rng.integers(0, 1 << 30, (33, 71)).astype(np.int32),)

    def run(a):
        out = cuda.device_array((a.shape[1], a.shape[0]), dtype=a.dtype)
        transpose[(blocks_for(a.shape[0], 8), blocks_for(a.shape[1], 8)), (8, 8)](a, out)
        return out.copy_to_host()

    return Case(make, run, lambda a: a.T.copy(), rtol=0, atol=0)


TILE_T = 32


@case
def transpose_shared_padded():
    @cuda.jit
    def transpose_tiled(a, out):
        tile = cuda.shared.array((TILE_T, TILE_T + 1), dtype=np.float32)
        x = cuda.blockIdx.x * TILE_T + cuda.threadIdx.x
        y = cuda.blockIdx.y * TILE_T + cuda.threadIdx.y
        if y < a.shape[0] and x < a.shape[1]:
            tile[cuda.threadIdx.y, cuda.threadIdx.x] = a[y, x]
        cuda.syncthreads()
        x = cuda.blockIdx.y * TILE_T + cuda.threadIdx.x
        y = cuda.blockIdx.x * TILE_T + cuda.threadIdx.y
        if y < out.shape[0] and x < out.shape[1]:
            out[y, x] = tile[cuda.threadIdx.x, cuda.threadIdx.y]

    def make(rng):
        return (rng.standard_normal((40, 70)).astype(np.float32),)

    def run(a):
        d_out = cuda.device_array((a.shape[1], a.shape[0]), np.float32)
        grid = (blocks_for(a.shape[1], TILE_T), blocks_for(a.shape[0], TILE_T))
        transpose_tiled[grid, (TILE_T, TILE_T)](cuda.to_device(a), d_out)
        return d_out.copy_to_host()

    return Case(make, run, lambda a: a.T.copy(), rtol=0, atol=0, coop=True)


# ---- histograms ----

@case
def histogram_global_atomics():
    @cuda.jit
    def histogram(data, bins):
        i = cuda.grid(1)
        if i < data.shape[0]:
            cuda.atomic.add(bins, data[i], 1)

    def make(rng):
        return (rng.integers(0, 256, 20000).astype(np.uint8),)

    def run(data):
        bins = cuda.to_device(np.zeros(256, dtype=np.int32))
        histogram[blocks_for(data.size, 256), 256](cuda.to_device(data), bins)
        return bins.copy_to_host()

    return Case(make, run, lambda d: np.bincount(d, minlength=256).astype(np.int32), atol=0)


NBINS = 64


@case
def histogram_shared_atomics():
    @cuda.jit
    def histogram(x, xmin, xmax, hist):
        local = cuda.shared.array(NBINS, dtype=np.int32)
        t = cuda.threadIdx.x
        for b in range(t, NBINS, cuda.blockDim.x):
            local[b] = 0
        cuda.syncthreads()
        width = (xmax - xmin) / NBINS
        start, stride = cuda.grid(1), cuda.gridsize(1)
        for i in range(start, x.shape[0], stride):
            b = int((x[i] - xmin) / width)
            if b >= NBINS:
                b = NBINS - 1
            if b >= 0:
                cuda.atomic.add(local, b, 1)
        cuda.syncthreads()
        for b in range(t, NBINS, cuda.blockDim.x):
            cuda.atomic.add(hist, b, local[b])

    def make(rng):
        return (rng.standard_normal(30000).astype(np.float32),)

    def run(x):
        hist = np.zeros(NBINS, dtype=np.int32)
        d_hist = cuda.to_device(hist)
        histogram[8, 128](cuda.to_device(x), -2.5, 2.5, d_hist)
        return d_hist.copy_to_host()

    def ref(x):
        b = np.trunc((x.astype(np.float64) + 2.5) / (5.0 / NBINS)).astype(np.int64)
        b = np.minimum(b, NBINS - 1)
        return np.bincount(b[b >= 0], minlength=NBINS).astype(np.int32)

    return Case(make, run, ref, atol=0, coop=True)


# ---- reductions ----

RED_TPB = 128


@case
def block_reduce_tree():
    @cuda.jit
    def block_sum(x, partial):
        buf = cuda.shared.array(RED_TPB, np.float32)
        tid = cuda.threadIdx.x
        bd = cuda.blockDim.x
        i = cuda.blockIdx.x * bd * 2 + tid
        n = x.shape[0]
        v = 0.0
        if i < n:
            v = x[i]
        if i + bd < n:
            v += x[i + bd]
        buf[tid] = v
        cuda.syncthreads()
        s = bd // 2
        while s > 0:
            if tid < s:
                buf[tid] += buf[tid + s]
            cuda.syncthreads()
            s >>= 1
        if tid == 0:
            partial[cuda.blockIdx.x] = buf[0]

    def make(rng):
        return (rng.random(10000).astype(np.float32),)

    def run(x):
        nblocks = blocks_for(x.size, 2 * RED_TPB)
        partial = cuda.device_array(nblocks, dtype=np.float32)
        block_sum[nblocks, RED_TPB](cuda.to_device(x), partial)
        return np.float64(partial.copy_to_host().sum(dtype=np.float64))

    return Case(make, run, lambda x: x.sum(dtype=np.float64), rtol=1e-4, coop=True)


@case
def dot_shared_atomic():
    @cuda.jit
    def dot(a, b, result):
        cache = cuda.shared.array(RED_TPB, dtype=np.float64)
        tid = cuda.grid(1)
        temp = 0.0
        while tid < a.shape[0]:
            temp += a[tid] * b[tid]
            tid += cuda.blockDim.x * cuda.gridDim.x
        cache[cuda.threadIdx.x] = temp
        cuda.syncthreads()
        i = RED_TPB // 2
        while i != 0:
            if cuda.threadIdx.x < i:
                cache[cuda.threadIdx.x] += cache[cuda.threadIdx.x + i]
            cuda.syncthreads()
            i //= 2
        if cuda.threadIdx.x == 0:
            cuda.atomic.add(result, 0, cache[0])

    def make(rng):
        return rng.standard_normal(7777), rng.standard_normal(7777)

    def run(a, b):
        result = cuda.to_device(np.zeros(1, dtype=np.float64))
        dot[16, RED_TPB](cuda.to_device(a), cuda.to_device(b), result)
        return result.copy_to_host()[0]

    return Case(make, run, lambda a, b: np.dot(a, b), rtol=1e-10, atol=1e-10, coop=True)


@case
def reduce_dynamic_shared():
    @cuda.jit
    def sum_dyn(x, out):
        sdata = cuda.shared.array(0, dtype=np.float32)
        tid = cuda.threadIdx.x
        i = cuda.grid(1)
        sdata[tid] = x[i] if i < x.size else 0
        cuda.syncthreads()
        step = 1
        while step < cuda.blockDim.x:
            if tid % (2 * step) == 0:
                sdata[tid] += sdata[tid + step]
            step *= 2
            cuda.syncthreads()
        if tid == 0:
            out[cuda.blockIdx.x] = sdata[0]

    def make(rng):
        return (rng.integers(-50, 50, 3000).astype(np.float32),)

    def run(x):
        threads = 256
        blocks = blocks_for(x.size, threads)
        out = cuda.device_array(blocks, dtype=np.float32)
        stream = cuda.stream()
        sum_dyn[blocks, threads, stream, threads * x.dtype.itemsize](cuda.to_device(x, stream),
                                                                      out)
        stream.synchronize()
        return out.copy_to_host()

    def ref(x):
        pad = np.zeros(blocks_for(x.size, 256) * 256, dtype=np.float64)
        pad[:x.size] = x
        return pad.reshape(-1, 256).sum(1).astype(np.float32)

    return Case(make, run, ref, rtol=0, atol=0, coop=True)


@case
def atomic_max_min():
    @cuda.jit
    def extremes(x, hi, lo):
        i = cuda.grid(1)
        if i < x.size:
            cuda.atomic.max(hi, 0, x[i])
            cuda.atomic.min(lo, 0, x[i])

    def make(rng):
        return (rng.standard_normal(5000).astype(np.float32),)

    def run(x):
        hi = cuda.to_device(np.full(1, -np.inf, dtype=np.float32))
        lo = cuda.to_device(np.full(1, np.inf, dtype=np.float32))
        extremes[blocks_for(x.size, 128), 128](x, hi, lo)
        return hi.copy_to_host()[0], lo.copy_to_host()[0]

    return Case(make, run, lambda x: (x.max(), x.min()), rtol=0, atol=0)


# ---- scans ----

SCAN_N = 512


@case
def blelloch_exclusive_scan():
    @cuda.jit
    def prescan(a, out):
        temp = cuda.shared.array(SCAN_N, dtype=np.int32)
        tid = cuda.threadIdx.x
        n = SCAN_N
        temp[2 * tid] = a[2 * tid]
        temp[2 * tid + 1] = a[2 * tid + 1]
        offset = 1
        d = n >> 1
        while d > 0:
            cuda.syncthreads()
            if tid < d:
                ai = offset * (2 * tid + 1) - 1
                bi = offset * (2 * tid + 2) - 1
                temp[bi] += temp[ai]
            offset *= 2
            d >>= 1
        if tid == 0:
            temp[n - 1] = 0
        d = 1
        while d < n:
            offset >>= 1
            cuda.syncthreads()
            if tid < d:
                ai = offset * (2 * tid + 1) - 1
                bi = offset * (2 * tid + 2) - 1
                t = temp[ai]
                temp[ai] = temp[bi]
                temp[bi] += t
            d *= 2
        cuda.syncthreads()
        out[2 * tid] = temp[2 * tid]
        out[2 * tid + 1] = temp[2 * tid + 1]

    def make(rng):
        return (rng.integers(0, 100, SCAN_N).astype(np.int32),)

    def run(a):
        out = cuda.device_array_like(a)
        prescan[1, SCAN_N // 2](cuda.to_device(a), out)
        return out.copy_to_host()

    def ref(a):
        r = np.zeros_like(a)
        r[1:] = np.cumsum(a)[:-1]
        return r

    return Case(make, run, ref, rtol=0, atol=0, coop=True)


HS_TPB = 128


@case
def hillis_steele_multiblock_scan():
    @cuda.jit
    def scan_blocks(x, out, block_sums):
        buf = cuda.shared.array((2, HS_TPB), np.float64)
        tid = cuda.threadIdx.x
        i = cuda.grid(1)
        pout, pin = 0, 1
        buf[pout, tid] = x[i] if i < x.size else 0.0
        cuda.syncthreads()
        offset = 1
        while offset < HS_TPB:
            pout, pin = pin, pout
            if tid >= offset:
                buf[pout, tid] = buf[pin, tid] + buf[pin, tid - offset]
            else:
                buf[pout, tid] = buf[pin, tid]
            cuda.syncthreads()
            offset *= 2
        if i < x.size:
            out[i] = buf[pout, tid]
        if tid == HS_TPB - 1:
            block_sums[cuda.blockIdx.x] = buf[pout, tid]

    @cuda.jit
    def add_offsets(out, offsets):
        i = cuda.grid(1)
        if i < out.size and cuda.blockIdx.x > 0:
            out[i] += offsets[cuda.blockIdx.x - 1]

    def make(rng):
        return (rng.random(1000),)

    def run(x):
        nb = blocks_for(x.size, HS_TPB)
        d_out = cuda.device_array_like(x)
        d_sums = cuda.device_array(nb)
        scan_blocks[nb, HS_TPB](cuda.to_device(x), d_out, d_sums)
        offsets = np.cumsum(d_sums.copy_to_host())
        add_offsets[nb, HS_TPB](d_out, cuda.to_device(offsets))
        return d_out.copy_to_host()

    return Case(make, run, np.cumsum, rtol=1e-10, atol=1e-10, coop=True)


# ---- warp shuffles ----

FULL_MASK = 0xffffffff


@case
def warp_shuffle_sum():
    @cuda.jit
    def warp_sum(x, out):
        i = cuda.grid(1)
        lane = cuda.threadIdx.x % cuda.warpsize
        v = x[i] if i < x.shape[0] else 0.0
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(FULL_MASK, v, offset)
            offset //= 2
        if lane == 0:
            out[i // 32] = v

    def make(rng):
        return (rng.random(1000).astype(np.float32),)

    def run(x):
        out = cuda.device_array(blocks_for(x.size, 32), dtype=np.float64)
        warp_sum[blocks_for(x.size, 128), 128](cuda.to_device(x), out)
        return out.copy_to_host()

    def ref(x):
        pad = np.zeros(blocks_for(x.size, 32) * 32)
        pad[:x.size] = x
        return pad.reshape(-1, 32).sum(1)

    return Case(make, run, ref, rtol=1e-6, atol=1e-6, coop=True)


@case
def warp_butterfly_block_sum():
    @cuda.jit(device=True)
    def warp_allreduce(v):
        mask = 16
        while mask >= 1:
            v += cuda.shfl_xor_sync(FULL_MASK, v, mask)
            mask = mask // 2
        return v

    @cuda.jit
    def block_total(x, total):
        partials = cuda.shared.array(32, dtype=np.int32)
        i = cuda.grid(1)
        lane = cuda.threadIdx.x % 32
        warp = cuda.threadIdx.x // 32
        v = np.int32(0)
        if i < x.size:
            v = x[i]
        v = warp_allreduce(v)
        if lane == 0:
            partials[warp] = v
        cuda.syncthreads()
        if warp == 0:
            nwarps = cuda.blockDim.x // 32
            w = partials[lane] if lane < nwarps else 0
            w = warp_allreduce(w)
            if lane == 0:
                cuda.atomic.add(total, 0, w)

    def make(rng):
        return (rng.integers(-1000, 1000, 4321).astype(np.int32),)

    def run(x):
        total = cuda.to_device(np.zeros(1, np.int32))
        block_total[blocks_for(x.size, 256), 256](cuda.to_device(x), total)
        return total.copy_to_host()

    return Case(make, run, lambda x: np.array([x.sum()], dtype=np.int32), atol=0, coop=True)


@case
def warp_shuffle_up_scan():
    @cuda.jit
    def warp_scan(x, out):
        i = cuda.grid(1)
        lane = cuda.threadIdx.x & (cuda.warpsize - 1)
        v = x[i]
        d = 1
        while d < cuda.warpsize:
            y = cuda.shfl_up_sync(0xffffffff, v, d)
            if lane >= d:
                v += y
            d *= 2
        out[i] = v

    def make(rng):
        return (rng.integers(0, 10, 512).astype(np.int32),)

    def run(x):
        out = cuda.device_array_like(x)
        warp_scan[4, 128](cuda.to_device(x), out)
        return out.copy_to_host()

    return Case(make, run, lambda x: np.cumsum(x.reshape(-1, 32), axis=1).ravel().astype(np.int32),
                atol=0, coop=True)


# ---- sorting ----

@case
def bitonic_global_steps():
    @cuda.jit
    def bitonic_step(a, j, k):
        i = cuda.grid(1)
        ixj = i ^ j
        if ixj > i and i < a.shape[0]:
            up = (i & k) == 0
            if (up and a[i] > a[ixj]) or (not up and a[i] < a[ixj]):
                a[i], a[ixj] = a[ixj], a[i]

    def make(rng):
        return (rng.standard_normal(1024).astype(np.float32),)

    def run(x):
        d = cuda.to_device(x)
        n = x.size
        k = 2
        while k <= n:
            j = k // 2
            while j > 0:
                bitonic_step[n // 256, 256](d, j, k)
                j //= 2
            k *= 2
        return d.copy_to_host()

    return Case(make, run, np.sort, rtol=0, atol=0)


BITONIC_N = 256


@case
def bitonic_shared_block_sort():
    @cuda.jit
    def block_sort(a):
        s = cuda.shared.array(BITONIC_N, np.int64)
        t = cuda.threadIdx.x
        base = cuda.blockIdx.x * BITONIC_N
        s[t] = a[base + t]
        cuda.syncthreads()
        k = 2
        while k <= BITONIC_N:
            j = k >> 1
            while j > 0:
                p = t ^ j
                if p > t:
                    ascending = (t & k) == 0
                    if (s[t] > s[p]) == ascending:
                        tmp = s[t]
                        s[t] = s[p]
                        s[p] = tmp
                cuda.syncthreads()
                j >>= 1
            k <<= 1
        a[base + t] = s[t]

    def make(rng):
        return (rng.integers(-10 ** 9, 10 ** 9, 4 * BITONIC_N),)

    def run(x):
        d = cuda.to_device(x)
        block_sort[4, BITONIC_N](d)
        return d.copy_to_host()

    return Case(make, run, lambda x: np.sort(x.reshape(4, -1), axis=1).ravel(), atol=0,
                coop=True)


# ---- fractals ----

MAX_ITERS = 60


def _fraction_equal(frac):
    def check(got, want, inputs):
        g, w = got[0].astype(np.int64), want[0].astype(np.int64)
        assert g.shape == w.shape
        bad = np.count_nonzero(g != w)
        assert bad <= frac * g.size, "%d of %d pixels differ" % (bad, g.size)
        assert np.count_nonzero(g) > g.size // 20
    return check


@case
def mandelbrot_device_fn():
    @cuda.jit(device=True)
    def mandel(x, y, max_iters):
        c = complex(x, y)
        z = 0.0j
        for i in range(max_iters):
            z = z * z + c
            if (z.real * z.real + z.imag * z.imag) >= 4:
                return i
        return max_iters

    @cuda.jit
    def mandel_kernel(min_x, max_x, min_y, max_y, image, iters):
        height = image.shape[0]
        width = image.shape[1]
        pixel_size_x = (max_x - min_x) / width
        pixel_size_y = (max_y - min_y) / height
        startX, startY = cuda.grid(2)
        gridX = cuda.gridDim.x * cuda.blockDim.x
        gridY = cuda.gridDim.y * cuda.blockDim.y
        for x in range(startX, width, gridX):
            real = min_x + x * pixel_size_x
            for y in range(startY, height, gridY):
                imag = min_y + y * pixel_size_y
                image[y, x] = mandel(real, imag, iters)

    def make(rng):
        cx, cy = rng.uniform(-0.8, -0.6), rng.uniform(-0.1, 0.1)
        return (cx - 1.4, cx + 1.4, cy - 1.1, cy + 1.1)

    def run(x0, x1, y0, y1):
        image = np.zeros((64, 96), dtype=np.uint8)
        d_image = cuda.to_device(image)
        mandel_kernel[(4, 4), (8, 8)](x0, x1, y0, y1, d_image, MAX_ITERS)
        d_image.copy_to_host(image)
        return image

    def ref(x0, x1, y0, y1):
        h, w = 64, 96
        xs = x0 + np.arange(w) * ((x1 - x0) / w)
        ys = y0 + np.arange(h) * ((y1 - y0) / h)
        c = xs[None, :] + 1j * ys[:, None]
        z = np.zeros_like(c)
        out = np.full(c.shape, MAX_ITERS, dtype=np.int64)
        live = np.ones(c.shape, dtype=bool)
        for i in range(MAX_ITERS):
            z[live] = z[live] * z[live] + c[live]
            esc = live & (z.real * z.real + z.imag * z.imag >= 4)
            out[esc] = i
            live &= ~esc
        return out.astype(np.uint8)

    return Case(make, run, ref, check=_fraction_equal(0.02))


@case
def julia_float32_while():
    @cuda.jit
    def julia(out, cr, ci, scale):
        row, col = cuda.grid(2)
        h, w = out.shape
        if row >= h or col >= w:
            return
        zr = np.float32(scale * (col - w / 2) / (w / 2))
        zi = np.float32(scale * (row - h / 2) / (h / 2))
        n = 0
        while n < MAX_ITERS:
            zr2 = zr * zr
            zi2 = zi * zi
            if zr2 + zi2 > 4.0:
                break
            zi = 2 * zr * zi + ci
            zr = zr2 - zi2 + cr
            n += 1
        out[row, col] = n

    def make(rng):
        return (np.float32(rng.uniform(-0.8, -0.7)), np.float32(rng.uniform(0.1, 0.2)))

    def run(cr, ci):
        out = cuda.device_array((50, 80), dtype=np.int32)
        julia[(blocks_for(50, 16), blocks_for(80, 16)), (16, 16)](out, cr, ci, 1.5)
        return out.copy_to_host()

    def ref(cr, ci):
        h, w = 50, 80
        out = np.zeros((h, w), dtype=np.int32)
        for row in range(h):
            for col in range(w):
                zr = np.float32(1.5 * (col - w / 2) / (w / 2))
                zi = np.float32(1.5 * (row - h / 2) / (h / 2))
                n = 0
                while n < MAX_ITERS:
                    zr2 = zr * zr
                    zi2 = zi * zi
                    if zr2 + zi2 > 4.0:
                        break
                    zi = np.float32(2) * zr * zi + ci
                    zr = zr2 - zi2 + cr
                    n += 1
                out[row, col] = n
        return out

    return Case(make, run, ref, check=_fraction_equal(0.05))


# ---- Monte-Carlo with numba.cuda.random ----

@case
def monte_carlo_pi():
    rnd = _random()
    xoroshiro128p_uniform_float32 = rnd.xoroshiro128p_uniform_float32

    @cuda.jit
    def pi_hits(rng_states, iterations, hits):
        tid = cuda.grid(1)
        inside = 0
        for _ in range(iterations):
            x = xoroshiro128p_uniform_float32(rng_states, tid)
            y = xoroshiro128p_uniform_float32(rng_states, tid)
            if x * x + y * y <= 1.0:
                inside += 1
        hits[tid] = inside

    def make(rng):
        return (int(rng.integers(1, 2 ** 31)),)

    def run(seed):
        threads_per_block, blocks = 64, 32
        n = threads_per_block * blocks
        rng_states = rnd.create_xoroshiro128p_states(n, seed=seed)
        hits = np.zeros(n, dtype=np.int64)
        pi_hits[blocks, threads_per_block](rng_states, 200, hits)
        return 4.0 * hits.sum() / (n * 200), hits

    def check(got, want, inputs):
        est, hits = got
        assert abs(est - math.pi) < 0.02, est
        assert hits.min() > 100 and hits.max() < 200, (hits.min(), hits.max())
        assert len(np.unique(hits)) > 10

    return Case(make, run, check=check)


@case
def random_moments():
    rnd = _random()

    @cuda.jit
    def fill(states, u64, n32):
        i = cuda.grid(1)
        if i < u64.shape[0]:
            u64[i] = rnd.xoroshiro128p_uniform_float64(states, i)
            n32[i] = rnd.xoroshiro128p_normal_float32(states, i)

    def make(rng):
        return (int(rng.integers(1, 2 ** 40)),)

    def run(seed):
        n = 20000
        states = rnd.create_xoroshiro128p_states(n, seed)
        u = cuda.device_array(n, dtype=np.float64)
        z = cuda.device_array(n, dtype=np.float32)
        fill[blocks_for(n, 128), 128](states, u, z)
        return u.copy_to_host(), z.copy_to_host()

    def check(got, want, inputs):
        u, z = got
        assert u.dtype == np.float64 and z.dtype == np.float32
        assert 0.0 <= u.min() and u.max() < 1.0
        assert abs(u.mean() - 0.5) < 0.01 and abs(u.var() - 1 / 12) < 0.005
        assert abs(z.mean()) < 0.03 and abs(z.std() - 1.0) < 0.03
        assert len(np.unique(u)) > 19000

    return Case(make, run, check=check)


def _bs_closed(S, K, T, r, v):
    erf = numpy.vectorize(math.erf)
    d1 = (numpy.log(S / K) + (r + 0.5 * v * v) * T) / (v * numpy.sqrt(T))
    d2 = d1 - v * numpy.sqrt(T)
    cnd = lambda d: 0.5 * (1.0 + erf(d / math.sqrt(2.0)))  # noqa: E731
    call = S * cnd(d1) - K * numpy.exp(-r * T) * cnd(d2)
    put = K * numpy.exp(-r * T) * (1.0 - cnd(d2)) - S * (1.0 - cnd(d1))
    return call, put


@case
def monte_carlo_option():
    rnd = _random()
    from_normal = rnd.xoroshiro128p_normal_float64

    @cuda.jit
    def mc_call(states, S0, K, r, sigma, T, npaths, payoff_sum):
        tid = cuda.grid(1)
        if tid >= payoff_sum.size:
            return
        drift = (r - 0.5 * sigma * sigma) * T
        vol = sigma * math.sqrt(T)
        acc = 0.0
        for p in range(npaths):
            z = from_normal(states, tid)
            ST = S0 * math.exp(drift + vol * z)
            acc += max(ST - K, 0.0)
        payoff_sum[tid] = acc

    def make(rng):
        return (int(rng.integers(1, 10 ** 6)), rng.uniform(90, 110), rng.uniform(0.15, 0.3))

    def run(seed, K, sigma):
        nthreads = 4096
        states = rnd.create_xoroshiro128p_states(nthreads, seed=seed)
        sums = cuda.device_array(nthreads)
        mc_call[nthreads // 128, 128](states, 100.0, K, 0.05, sigma, 1.0, 64, sums)
        total = sums.copy_to_host().sum()
        return math.exp(-0.05) * total / (nthreads * 64)

    def check(got, want, inputs):
        seed, K, sigma = inputs
        exact = _bs_closed(numpy.float64(100.0), K, 1.0, 0.05, sigma)[0]
        assert abs(got[0] - exact) < 0.35, (got[0], exact)

    return Case(make, run, check=check)


# ---- Black-Scholes ----

@case
def black_scholes_erf_f64():
    @cuda.jit(device=True)
    def norm_cdf(x):
        return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))

    @cuda.jit
    def black_scholes(call, put, S, K, T, r, v):
        i = cuda.grid(1)
        if i >= S.shape[0]:
            return
        sqrtT = math.sqrt(T[i])
        d1 = (math.log(S[i] / K[i]) + (r + 0.5 * v * v) * T[i]) / (v * sqrtT)
        d2 = d1 - v * sqrtT
        cndd1 = norm_cdf(d1)
        cndd2 = norm_cdf(d2)
        expRT = math.exp(-r * T[i])
        call[i] = S[i] * cndd1 - K[i] * expRT * cndd2
        put[i] = K[i] * expRT * (1.0 - cndd2) - S[i] * (1.0 - cndd1)

    def make(rng):
        n = 4000
        return rng.uniform(5, 30, n), rng.uniform(1, 100, n), rng.uniform(0.25, 10, n)

    def run(S, K, T):
        call = cuda.device_array_like(S)
        put = cuda.device_array_like(S)
        black_scholes[blocks_for(S.size, 256), 256](call, put, cuda.to_device(S),
                                                    cuda.to_device(K), cuda.to_device(T),
                                                    0.02, 0.30)
        return call.copy_to_host(), put.copy_to_host()

    return Case(make, run, lambda S, K, T: _bs_closed(S, K, T, 0.02, 0.30), rtol=1e-9,
                atol=1e-9)


RSQRT2PI = 0.39894228040143267793994605993438
A1 = 0.31938153
A2 = -0.356563782
A3 = 1.781477937
A4 = -1.821255978
A5 = 1.330274429
RISKFREE = 0.02
VOLATILITY = 0.30


def _cnd_np(d):
    K = 1.0 / (1.0 + 0.2316419 * numpy.abs(d))
    ret = RSQRT2PI * numpy.exp(-0.5 * d * d) * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))))
    return numpy.where(d > 0, 1.0 - ret, ret)


@case
def black_scholes_poly_f32():
    @cuda.jit(device=True, inline=True)
    def cnd(d):
        K = 1.0 / (1.0 + 0.2316419 * math.fabs(d))
        ret_val = (RSQRT2PI * math.exp(-0.5 * d * d) *
                   (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5))))))
        if d > 0:
            ret_val = 1.0 - ret_val
        return ret_val

    @cuda.jit
    def black_scholes(callResult, putResult, S, X, T, R, V):
        i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
        if i >= S.shape[0]:
            return
        sqrtT = math.sqrt(T[i])
        d1 = (math.log(S[i] / X[i]) + (R + 0.5 * V * V) * T[i]) / (V * sqrtT)
        d2 = d1 - V * sqrtT
        cndd1 = cnd(d1)
        cndd2 = cnd(d2)
        expRT = math.exp((-1. * R) * T[i])
        callResult[i] = (S[i] * cndd1 - X[i] * expRT * cndd2)
        putResult[i] = (X[i] * expRT * (1.0 - cndd2) - S[i] * (1.0 - cndd1))

    def make(rng):
        n = 3000
        return (rng.uniform(5, 30, n).astype(np.float32), rng.uniform(1, 100, n).astype(np.float32),
                rng.uniform(0.25, 10, n).astype(np.float32))

    def run(S, X, T):
        stream = cuda.stream()
        d_S = cuda.to_device(S, stream)
        d_X = cuda.to_device(X, stream)
        d_T = cuda.to_device(T, stream)
        d_call = cuda.to_device(np.zeros_like(S), stream)
        d_put = cuda.to_device(np.zeros_like(S), stream)
        blockdim = 256, 1
        griddim = int(math.ceil(float(S.size) / blockdim[0])), 1
        black_scholes[griddim, blockdim, stream](d_call, d_put, d_S, d_X, d_T,
                                                 RISKFREE, VOLATILITY)
        call = d_call.copy_to_host(stream=stream)
        put = d_put.copy_to_host(stream=stream)
        stream.synchronize()
        return call, put

    def ref(S, X, T):
        S, X, T = (a.astype(np.float64) for a in (S, X, T))
        d1 = (np.log(S / X) + (RISKFREE + 0.5 * VOLATILITY ** 2) * T) / (VOLATILITY * np.sqrt(T))
        d2 = d1 - VOLATILITY * np.sqrt(T)
        e = np.exp(-RISKFREE * T)
        c1, c2 = _cnd_np(d1), _cnd_np(d2)
        return ((S * c1 - X * e * c2).astype(np.float32),
                (X * e * (1.0 - c2) - S * (1.0 - c1)).astype(np.float32))

    return Case(make, run, ref, rtol=1e-4, atol=1e-4)


# ---- images ----

@case
def convolve3x3_uint8():
    @cuda.jit
    def conv3x3(img, k, out):
        y, x = cuda.grid(2)
        h, w = img.shape
        if y >= h or x >= w:
            return
        acc = 0.0
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                yy = min(max(y + dy, 0), h - 1)
                xx = min(max(x + dx, 0), w - 1)
                acc += img[yy, xx] * k[dy + 1, dx + 1]
        v = int(acc + 0.5)
        out[y, x] = 0 if v < 0 else (255 if v > 255 else v)

    def make(rng):
        k = np.array([[0, -1, 0], [-1, 5, -1], [0, -1, 0]], dtype=np.float32)
        k += rng.uniform(-0.05, 0.05, (3, 3)).astype(np.float32)
        return rng.integers(0, 256, (60, 90)).astype(np.uint8), k

    def run(img, k):
        out = cuda.device_array(img.shape, dtype=np.uint8)
        conv3x3[(blocks_for(60, 16), blocks_for(90, 16)), (16, 16)](cuda.to_device(img),
                                                                    cuda.to_device(k), out)
        return out.copy_to_host()

    def ref(img, k):
        p = np.pad(img, 1, mode="edge").astype(np.float32)
        acc = np.zeros(img.shape)
        for dy in range(3):
            for dx in range(3):
                acc += (p[dy:dy + img.shape[0], dx:dx + img.shape[1]] * k[dy, dx]).astype(np.float64)
        return np.clip(np.trunc(acc + 0.5), 0, 255).astype(np.uint8)

    def check(got, want, inputs):
        d = np.abs(got[0].astype(int) - want[0].astype(int))
        assert d.max() <= 1 and np.count_nonzero(d) < 20, (d.max(), np.count_nonzero(d))

    return Case(make, run, ref, check=check)


GAUSS5 = numpy.array([1, 4, 6, 4, 1], dtype=numpy.float32) / 16


@case
def separable_blur_const():
    @cuda.jit
    def blur_rows(img, out):
        w = cuda.const.array_like(GAUSS5)
        y, x = cuda.grid(2)
        if y < img.shape[0] and x < img.shape[1]:
            s = 0.0
            for k in range(5):
                xx = x + k - 2
                if xx < 0:
                    xx = 0
                if xx >= img.shape[1]:
                    xx = img.shape[1] - 1
                s += w[k] * img[y, xx]
            out[y, x] = s

    @cuda.jit
    def blur_cols(img, out):
        w = cuda.const.array_like(GAUSS5)
        y, x = cuda.grid(2)
        if y < img.shape[0] and x < img.shape[1]:
            s = 0.0
            for k in range(5):
                yy = min(max(y + k - 2, 0), img.shape[0] - 1)
                s += w[k] * img[yy, x]
            out[y, x] = s

    def make(rng):
        return (rng.random((48, 64)).astype(np.float32),)

    def run(img):
        a = cuda.to_device(img)
        tmp = cuda.device_array_like(a)
        res = cuda.device_array_like(a)
        grid, block = (3, 4), (16, 16)
        blur_rows[grid, block](a, tmp)
        blur_cols[grid, block](tmp, res)
        return res.copy_to_host()

    def ref(img):
        p = np.pad(img.astype(np.float64), ((0, 0), (2, 2)), mode="edge")
        t = sum(GAUSS5[k] * p[:, k:k + img.shape[1]] for k in range(5))
        p = np.pad(t, ((2, 2), (0, 0)), mode="edge")
        return sum(GAUSS5[k] * p[k:k + img.shape[0]] for k in range(5))

    return Case(make, run, ref, rtol=1e-5, atol=1e-6)


@case
def sobel_magnitude():
    @cuda.jit
    def sobel(img, out):
        x, y = cuda.grid(2)
        h, w = img.shape
        if x < 1 or y < 1 or x >= w - 1 or y >= h - 1:
            if x < w and y < h:
                out[y, x] = 0
            return
        gx = (int(img[y - 1, x + 1]) + 2 * int(img[y, x + 1]) + int(img[y + 1, x + 1])
              - int(img[y - 1, x - 1]) - 2 * int(img[y, x - 1]) - int(img[y + 1, x - 1]))
        gy = (int(img[y + 1, x - 1]) + 2 * int(img[y + 1, x]) + int(img[y + 1, x + 1])
              - int(img[y - 1, x - 1]) - 2 * int(img[y - 1, x]) - int(img[y - 1, x + 1]))
        out[y, x] = math.sqrt(float(gx * gx + gy * gy))

    def make(rng):
        return (rng.integers(0, 256, (40, 56)).astype(np.uint8),)

    def run(img):
        out = cuda.device_array(img.shape, dtype=np.float32)
        sobel[(4, 3), (16, 16)](cuda.to_device(img), out)
        return out.copy_to_host()

    return Case(make, run, _sobel_ref, rtol=1e-6, atol=1e-4)


def _sobel_ref(img):
    a = img.astype(numpy.int64)
    gx = (a[:-2, 2:] + 2 * a[1:-1, 2:] + a[2:, 2:]) - (a[:-2, :-2] + 2 * a[1:-1, :-2] + a[2:, :-2])
    gy = (a[2:, :-2] + 2 * a[2:, 1:-1] + a[2:, 2:]) - (a[:-2, :-2] + 2 * a[:-2, 1:-1] + a[:-2, 2:])
    out = numpy.zeros(img.shape, dtype=numpy.float32)
    out[1:-1, 1:-1] = numpy.sqrt((gx * gx + gy * gy).astype(numpy.float64))
    return out


@case
def sobel_raw_uint8_arith():
    # no int() casts: Numba computes uint8 arithmetic in 64-bit integers,
    # so the squares come out right
    @cuda.jit
    def sobel(img, out):
        y, x = cuda.grid(2)
        if 0 < y < img.shape[0] - 1 and 0 < x < img.shape[1] - 1:
            gx = (img[y - 1, x + 1] + 2 * img[y, x + 1] + img[y + 1, x + 1]
                  - img[y - 1, x - 1] - 2 * img[y, x - 1] - img[y + 1, x - 1])
            gy = (img[y + 1, x - 1] + 2 * img[y + 1, x] + img[y + 1, x + 1]
                  - img[y - 1, x - 1] - 2 * img[y - 1, x] - img[y - 1, x + 1])
            out[y, x] = math.sqrt(gx * gx + gy * gy)
        elif y < img.shape[0] and x < img.shape[1]:
            out[y, x] = 0

    def make(rng):
        return (rng.integers(0, 256, (40, 56)).astype(np.uint8),)

    def run(img):
        out = np.empty(img.shape, dtype=np.float32)
        sobel[(3, 4), (16, 16)](img, out)
        return out

    return Case(make, run, _sobel_ref, rtol=1e-6, atol=1e-4)


@case
def grayscale_hwc():
    @cuda.jit
    def to_gray(rgb, gray):
        y, x = cuda.grid(2)
        if y < gray.shape[0] and x < gray.shape[1]:
            r = rgb[y, x, 0]
            g = rgb[y, x, 1]
            b = rgb[y, x, 2]
            gray[y, x] = np.uint8(0.299 * r + 0.587 * g + 0.114 * b)

    def make(rng):
        return (rng.integers(0, 256, (37, 53, 3)).astype(np.uint8),)

    def run(rgb):
        gray = cuda.device_array(rgb.shape[:2], dtype=np.uint8)
        to_gray[(blocks_for(37, 8), blocks_for(53, 8)), (8, 8)](cuda.to_device(rgb), gray)
        return gray.copy_to_host()

    def ref(rgb):
        f = rgb.astype(np.float64)
        return np.trunc(0.299 * f[..., 0] + 0.587 * f[..., 1] + 0.114 * f[..., 2]).astype(np.uint8)

    def check(got, want, inputs):
        d = np.abs(got[0].astype(int) - want[0].astype(int))
        assert got[0].dtype == np.uint8 and d.max() <= 1 and np.count_nonzero(d) < 30

    return Case(make, run, ref, check=check)


GRAY_WEIGHTS = (0.2126, 0.7152, 0.0722)


@case
def grayscale_tuple_weights_f32():
    @cuda.jit
    def luminance(rgb, out):
        i, j = cuda.grid(2)
        if i >= rgb.shape[0] or j >= rgb.shape[1]:
            return
        acc = 0.0
        for c in range(3):
            acc += GRAY_WEIGHTS[c] * rgb[i, j, c] / 255.0
        out[i, j] = acc

    def make(rng):
        return (rng.integers(0, 256, (30, 41, 3)).astype(np.uint8),)

    def run(rgb):
        out = np.zeros(rgb.shape[:2], dtype=np.float32)
        luminance[(4, 6), (8, 8)](rgb, out)
        return out

    def ref(rgb):
        return (rgb.astype(np.float64) / 255.0 @ np.array(GRAY_WEIGHTS)).astype(np.float32)

    return Case(make, run, ref, rtol=1e-6, atol=1e-6)


# ---- distances, k-means ----

@case
def distance_matrix():
    @cuda.jit
    def pairwise(X, D):
        i, j = cuda.grid(2)
        n, dim = X.shape
        if i < n and j < n:
            d = 0.0
            for k in range(dim):
                t = X[i, k] - X[j, k]
                d += t * t
            D[i, j] = math.sqrt(d)

    def make(rng):
        return (rng.standard_normal((70, 5)).astype(np.float32),)

    def run(X):
        D = cuda.device_array((X.shape[0], X.shape[0]), dtype=np.float32)
        tpb = (16, 16)
        bpg = (blocks_for(X.shape[0], 16),) * 2
        pairwise[bpg, tpb](cuda.to_device(X), D)
        return D.copy_to_host()

    def ref(X):
        d = X[:, None, :] - X[None, :, :]
        return np.sqrt((d.astype(np.float64) ** 2).sum(-1)).astype(np.float32)

    return Case(make, run, ref, rtol=1e-5, atol=1e-5)


@case
def kmeans_assign_and_update():
    @cuda.jit
    def assign(points, centroids, labels, dists):
        i = cuda.grid(1)
        if i >= points.shape[0]:
            return
        best = -1
        best_d = math.inf
        for c in range(centroids.shape[0]):
            d = 0.0
            for k in range(points.shape[1]):
                diff = points[i, k] - centroids[c, k]
                d += diff * diff
            if d < best_d:
                best_d = d
                best = c
        labels[i] = best
        dists[i] = best_d

    @cuda.jit
    def accumulate(points, labels, sums, counts):
        i = cuda.grid(1)
        if i < points.shape[0]:
            c = labels[i]
            cuda.atomic.add(counts, c, 1)
            for k in range(points.shape[1]):
                cuda.atomic.add(sums, (c, k), points[i, k])

    def make(rng):
        return rng.standard_normal((500, 3)), rng.standard_normal((6, 3))

    def run(points, cents):
        n, k = points.shape[0], cents.shape[0]
        d_p = cuda.to_device(points)
        labels = cuda.device_array(n, dtype=np.int32)
        dists = cuda.device_array(n, dtype=np.float64)
        assign[blocks_for(n, 128), 128](d_p, cuda.to_device(cents), labels, dists)
        sums = cuda.to_device(np.zeros((k, 3)))
        counts = cuda.to_device(np.zeros(k, dtype=np.int32))
        accumulate[blocks_for(n, 128), 128](d_p, labels, sums, counts)
        return labels.copy_to_host(), dists.copy_to_host(), sums.copy_to_host(), counts.copy_to_host()

    def ref(points, cents):
        d = ((points[:, None, :] - cents[None, :, :]) ** 2).sum(-1)
        lab = d.argmin(1).astype(np.int32)
        sums = np.zeros_like(cents)
        np.add.at(sums, lab, points)
        return lab, d.min(1), sums, np.bincount(lab, minlength=cents.shape[0]).astype(np.int32)

    return Case(make, run, ref, rtol=1e-10, atol=1e-10)


# ---- per-thread scratch, device functions, mixed arithmetic ----

WIN = 5


@case
def median_filter_local_array():
    @cuda.jit
    def median5(x, out):
        i = cuda.grid(1)
        n = x.shape[0]
        if i >= n:
            return
        w = cuda.local.array(WIN, dtype=np.float32)
        for k in range(WIN):
            j = i + k - WIN // 2
            if j < 0:
                j = 0
            elif j > n - 1:
                j = n - 1
            w[k] = x[j]
        for a in range(1, WIN):
            key = w[a]
            b = a - 1
            while b >= 0 and w[b] > key:
                w[b + 1] = w[b]
                b -= 1
            w[b + 1] = key
        out[i] = w[WIN // 2]

    def make(rng):
        return (rng.standard_normal(777).astype(np.float32),)

    def run(x):
        out = cuda.device_array_like(x)
        median5[blocks_for(x.size, 64), 64](cuda.to_device(x), out)
        return out.copy_to_host()

    def ref(x):
        p = np.pad(x, WIN // 2, mode="edge")
        win = np.stack([p[k:k + x.size] for k in range(WIN)], axis=1)
        return np.median(win, axis=1).astype(np.float32)

    return Case(make, run, ref, rtol=0, atol=0)


@case
def normalize_rows_local_mixed():
    @cuda.jit
    def normalize(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            tmp = cuda.local.array(16, dtype=np.float64)
            n = a.shape[1]
            total = 0
            for j in range(n):
                tmp[j] = a[i, j] * 2 - 1
                total += tmp[j] ** 2
            norm = total ** 0.5
            for j in range(n):
                out[i, j] = tmp[j] / norm if norm > 0 else 0.0

    def make(rng):
        return (rng.random((200, 12)).astype(np.float32),)

    def run(a):
        out = cuda.device_array(a.shape, dtype=np.float32)
        normalize[4, 64](cuda.to_device(a), out)
        return out.copy_to_host()

    def ref(a):
        t = a.astype(np.float64) * 2 - 1
        return (t / np.sqrt((t * t).sum(1, keepdims=True))).astype(np.float32)

    return Case(make, run, ref, rtol=1e-5, atol=1e-6)


@case
def device_fns_several_returns():
    @cuda.jit(device=True)
    def classify(v, lo, hi):
        if v < lo:
            return -1
        elif v > hi:
            return 1
        return 0

    @cuda.jit(device=True)
    def ordered(a, b):
        if a < b:
            return a, b
        return b, a

    @cuda.jit
    def bands(x, lo, hi, cls, mn, mx):
        i = cuda.grid(1)
        if i < x.size:
            cls[i] = classify(x[i], lo, hi)
            small, big = ordered(x[i], x[x.size - 1 - i])
            mn[i] = small
            mx[i] = big

    def make(rng):
        return (rng.standard_normal(999),)

    def run(x):
        cls = np.zeros(x.size, dtype=np.int8)
        mn = np.zeros_like(x)
        mx = np.zeros_like(x)
        bands[8, 128](x, -0.5, 0.5, cls, mn, mx)
        return cls, mn, mx

    def ref(x):
        cls = np.where(x < -0.5, -1, np.where(x > 0.5, 1, 0)).astype(np.int8)
        return cls, np.minimum(x, x[::-1]), np.maximum(x, x[::-1])

    return Case(make, run, ref, rtol=0, atol=0)


@case
def softmax_rows():
    @cuda.jit
    def softmax(x, out):
        row = cuda.grid(1)
        if row >= x.shape[0]:
            return
        m = -math.inf
        for j in range(x.shape[1]):
            m = max(m, x[row, j])
        s = 0.0
        for j in range(x.shape[1]):
            e = math.exp(x[row, j] - m)
            out[row, j] = e
            s += e
        for j in range(x.shape[1]):
            out[row, j] /= s

    def make(rng):
        return (rng.standard_normal((100, 17)) * 4,)

    def run(x):
        d_out = cuda.device_array_like(x)
        softmax[2, 64](cuda.to_device(x), d_out)
        return d_out.copy_to_host()

    def ref(x):
        e = np.exp(x - x.max(1, keepdims=True))
        return e / e.sum(1, keepdims=True)

    return Case(make, run, ref, rtol=1e-12, atol=1e-14)


@case
def game_of_life_wraparound():
    @cuda.jit
    def life_step(board, new):
        r, c = cuda.grid(2)
        R, C = board.shape
        if r >= R or c >= C:
            return
        alive = 0
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                if dr == 0 and dc == 0:
                    continue
                alive += board[(r + dr) % R, (c + dc) % C]
        cell = board[r, c]
        if cell == 1 and (alive == 2 or alive == 3):
            new[r, c] = 1
        elif cell == 0 and alive == 3:
            new[r, c] = 1
        else:
            new[r, c] = 0

    def make(rng):
        return ((rng.random((30, 45)) < 0.35).astype(np.uint8),)

    def run(board):
        a = cuda.to_device(board)
        b = cuda.device_array_like(a)
        for _ in range(6):
            life_step[(blocks_for(30, 8), blocks_for(45, 8)), (8, 8)](a, b)
            a, b = b, a
        return a.copy_to_host()

    def ref(board):
        b = board.astype(np.int64)
        for _ in range(6):
            n = sum(np.roll(np.roll(b, dr, 0), dc, 1) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                    if (dr, dc) != (0, 0))
            b = ((b == 1) & ((n == 2) | (n == 3)) | (b == 0) & (n == 3)).astype(np.int64)
        return b.astype(np.uint8)

    return Case(make, run, ref, rtol=0, atol=0)


# ---- eager signatures ----

@case
def eager_signature_2d():
    @cuda.jit('void(float32[:,:], float32[:,:], float32)')
    def scale2d(a, out, s):
        i, j = cuda.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            out[i, j] = a[i, j] * s + 1

    def make(rng):
        return (rng.standard_normal((20, 30)).astype(np.float32),)

    def run(a):
        out = cuda.device_array_like(a)
        scale2d[(3, 4), (8, 8)](cuda.to_device(a), out, 0.5)
        return out.copy_to_host()

    return Case(make, run, lambda a: a * np.float32(0.5) + np.float32(1), rtol=1e-6)


@case
def eager_signature_list():
    @cuda.jit(['void(float64[::1], int32, float64[::1])', 'void(int64[::1], int32, int64[::1])'])
    def shift_add(x, k, out):
        i = cuda.grid(1)
        n = x.shape[0]
        if i < n:
            out[i] = x[i] + x[(i + k) % n]

    def make(rng):
        return rng.standard_normal(300), rng.integers(-99, 99, 300), int(rng.integers(1, 50))

    def run(xf, xi, k):
        of = cuda.device_array_like(xf)
        oi = cuda.device_array_like(xi)
        shift_add[3, 128](cuda.to_device(xf), k, of)
        shift_add[3, 128](cuda.to_device(xi), k, oi)
        return of.copy_to_host(), oi.copy_to_host()

    return Case(make, run, lambda xf, xi, k: (xf + np.roll(xf, -k), xi + np.roll(xi, -k)),
                rtol=0, atol=0)


# ---- streams, events, pinned memory ----

@case
def streams_events_chunks():
    @cuda.jit
    def scale_shift(x, out, a, b):
        i = cuda.grid(1)
        if i < x.shape[0]:
            out[i] = a * x[i] + b

    def make(rng):
        return (rng.standard_normal(40000).astype(np.float32),)

    def run(x):
        nchunks = 4
        chunk = x.size // nchunks
        result = cuda.pinned_array(x.shape, dtype=np.float32)
        streams = [cuda.stream() for _ in range(2)]
        start, end = cuda.event(), cuda.event()
        start.record()
        with cuda.pinned(x):
            for c in range(nchunks):
                s = streams[c % 2]
                lo, hi = c * chunk, (c + 1) * chunk
                d_x = cuda.to_device(x[lo:hi], stream=s)
                d_out = cuda.device_array(hi - lo, dtype=np.float32, stream=s)
                scale_shift[blocks_for(hi - lo, 256), 256, s](d_x, d_out, np.float32(2.0), 1.5)
                d_out.copy_to_host(result[lo:hi], stream=s)
        end.record()
        end.synchronize()
        cuda.synchronize()
        ms = cuda.event_elapsed_time(start, end)
        assert ms >= 0.0
        assert start.elapsed_time(end) >= 0.0
        return np.array(result)

    return Case(make, run, lambda x: (2.0 * x + 1.5).astype(np.float32), rtol=1e-6, atol=1e-6)


@case
def stream_auto_synchronize():
    @cuda.jit
    def square_inplace(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = a[i] * a[i]

    def make(rng):
        return (rng.integers(-3000, 3000, 2500).astype(np.int64),)

    def run(a):
        stream = cuda.stream()
        with stream.auto_synchronize():
            d_a = cuda.to_device(a, stream=stream)
            square_inplace[10, 256, stream](d_a)
            host = d_a.copy_to_host(stream=stream)
        return host

    return Case(make, run, lambda a: a * a, rtol=0, atol=0)



# ---- less tidy host and kernel code ----

THRESHOLD = 0.3


@case
def stream_compaction_atomic_counter():
    @cuda.jit
    def compact(x, out, count):
        i = cuda.grid(1)
        if i < x.size and x[i] > THRESHOLD:
            slot = cuda.atomic.add(count, 0, 1)
            out[slot] = x[i]

    def make(rng):
        return (rng.standard_normal(3000).astype(np.float32),)

    def run(x):
        out = cuda.device_array_like(x)
        count = cuda.to_device(np.zeros(1, dtype=np.int32))
        compact[blocks_for(x.size, 128), 128](x, out, count)
        n = int(count.copy_to_host()[0])
        return np.sort(out.copy_to_host()[:n])

    return Case(make, run, lambda x: np.sort(x[x > THRESHOLD]), rtol=0, atol=0)


PARTICLE = np.dtype([("x", np.float64), ("y", np.float64), ("vx", np.float64),
                     ("vy", np.float64), ("hits", np.int32)])
BOX = 10.0


@case
def particles_records_periodic():
    @cuda.jit
    def advance(parts, dt, steps):
        i = cuda.grid(1)
        if i >= parts.shape[0]:
            return
        p = parts[i]
        for _ in range(steps):
            nx = p.x + dt * p.vx
            ny = p['y'] + dt * p['vy']
            if nx < 0 or nx >= BOX or ny < 0 or ny >= BOX:
                p.hits += 1
            p.x = nx % BOX
            p['y'] = ny % BOX

    def make(rng):
        a = np.zeros(500, dtype=PARTICLE)
        a["x"] = rng.uniform(0, BOX, 500)
        a["y"] = rng.uniform(0, BOX, 500)
        a["vx"] = rng.normal(0, 5, 500)
        a["vy"] = rng.normal(0, 5, 500)
        return (a,)

    def run(a):
        d = cuda.to_device(a)
        advance[4, 128](d, 0.1, 20)
        r = d.copy_to_host()
        return r["x"], r["y"], r["hits"]

    def ref(a):
        x, y = a["x"].copy(), a["y"].copy()
        hits = np.zeros(a.size, dtype=np.int32)
        for _ in range(20):
            nx = x + 0.1 * a["vx"]
            ny = y + 0.1 * a["vy"]
            hits += ((nx < 0) | (nx >= BOX) | (ny < 0) | (ny >= BOX)).astype(np.int32)
            x, y = np.mod(nx, BOX), np.mod(ny, BOX)
        return x, y, hits

    return Case(make, run, ref, rtol=1e-9, atol=1e-9)


@case
def dft_complex128():
    @cuda.jit
    def dft(x, X):
        k = cuda.grid(1)
        N = x.shape[0]
        if k < N:
            acc = 0j
            for n in range(N):
                acc += x[n] * cmath.exp(-2j * math.pi * k * n / N)
            X[k] = acc

    def make(rng):
        return (rng.standard_normal(256) + 1j * rng.standard_normal(256),)

    def run(x):
        X = cuda.device_array(x.shape, dtype=np.complex128)
        dft[2, 128](cuda.to_device(x), X)
        return X.copy_to_host()

    return Case(make, run, np.fft.fft, rtol=1e-8, atol=1e-8)


@case
def forall_increment():
    @cuda.jit
    def increment(arr, by):
        i = cuda.grid(1)
        if i < arr.size:
            arr[i] += by

    def make(rng):
        return (rng.standard_normal(3333),)

    def run(a):
        d = cuda.to_device(a)
        increment.forall(a.size)(d, 1.5)
        return d.copy_to_host()

    return Case(make, run, lambda a: a + 1.5, rtol=0, atol=0)


@case
def inverse3x3_local_2d():
    @cuda.jit(device=True)
    def det3(m):
        return (m[0, 0] * (m[1, 1] * m[2, 2] - m[1, 2] * m[2, 1])
                - m[0, 1] * (m[1, 0] * m[2, 2] - m[1, 2] * m[2, 0])
                + m[0, 2] * (m[1, 0] * m[2, 1] - m[1, 1] * m[2, 0]))

    @cuda.jit
    def invert(A, out):
        i = cuda.grid(1)
        if i >= A.shape[0]:
            return
        m = cuda.local.array((3, 3), dtype=np.float64)
        for r in range(3):
            for c in range(3):
                m[r, c] = A[i, r, c]
        d = det3(m)
        for r in range(3):
            for c in range(3):
                r1, r2 = (c + 1) % 3, (c + 2) % 3
                c1, c2 = (r + 1) % 3, (r + 2) % 3
                out[i, r, c] = (m[r1, c1] * m[r2, c2] - m[r1, c2] * m[r2, c1]) / d

    def make(rng):
        return (rng.standard_normal((300, 3, 3)) + 3 * np.eye(3),)

    def run(A):
        out = np.zeros_like(A)
        invert[3, 128](A, out)
        return out

    return Case(make, run, np.linalg.inv, rtol=1e-9, atol=1e-9)


@case
def device_fn_defaults_keywords():
    @cuda.jit(device=True)
    def clamp(x, lo=0.0, hi=1.0):
        if x < lo:
            return lo
        if x > hi:
            return hi
        return x

    @cuda.jit(device=True)
    def tone(v, exposure, gamma=2.2):
        mapped = 1.0 - math.exp(-v * exposure)
        return mapped ** (1.0 / gamma)

    @cuda.jit
    def tonemap(hdr, ldr, exposure, limit):
        y, x = cuda.grid(2)
        if y < hdr.shape[0] and x < hdr.shape[1]:
            v = tone(hdr[y, x], exposure)
            ldr[y, x] = clamp(v, hi=limit) * 255

    def make(rng):
        return (rng.exponential(2.0, (40, 60)).astype(np.float32),)

    def run(hdr):
        ldr = cuda.device_array(hdr.shape, dtype=np.float32)
        tonemap[(5, 8), (8, 8)](cuda.to_device(hdr), ldr, 0.8, 0.9)
        return ldr.copy_to_host()

    def ref(hdr):
        v = (1.0 - np.exp(-hdr.astype(np.float64) * 0.8)) ** (1.0 / 2.2)
        return (np.clip(v, 0.0, 0.9) * 255).astype(np.float32)

    return Case(make, run, ref, rtol=1e-5, atol=1e-4)


@case
def strided_device_views_fortran():
    @cuda.jit
    def combine(col, every_other, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            out[i, 0] = col[i] * 2
            out[i, 1] = every_other[i % every_other.shape[0]] - col[i]

    def make(rng):
        return (rng.standard_normal((64, 5)),)

    def run(a):
        d = cuda.to_device(a)
        out = cuda.device_array((a.shape[0], 2), order="F")
        combine[1, 64](d[:, 1], d[::2, 0], out)
        assert out.shape == (64, 2) and d[:, 1].shape == (64,)
        return out.copy_to_host()

    def ref(a):
        col, eo = a[:, 1], a[::2, 0]
        return np.stack([col * 2, eo[np.arange(64) % eo.size] - col], axis=1)

    return Case(make, run, ref, rtol=0, atol=0)


@case
def vote_ballot_syncthreads_count():
    @cuda.jit
    def count_positive(x, per_block, per_warp):
        i = cuda.grid(1)
        positive = i < x.size and x[i] > 0
        n = cuda.syncthreads_count(positive)
        if cuda.threadIdx.x == 0:
            per_block[cuda.blockIdx.x] = n
        bits = cuda.ballot_sync(0xffffffff, positive)
        if cuda.threadIdx.x % 32 == 0:
            per_warp[i // 32] = cuda.popc(bits)

    def make(rng):
        return (rng.standard_normal(1000),)

    def run(x):
        per_block = cuda.device_array(8, dtype=np.int32)
        per_warp = cuda.device_array(32, dtype=np.int32)
        count_positive[8, 128](cuda.to_device(x), per_block, per_warp)
        return per_block.copy_to_host(), per_warp.copy_to_host()

    def ref(x):
        pos = np.zeros(1024, dtype=np.int32)
        pos[:x.size] = x > 0
        return pos.reshape(8, -1).sum(1).astype(np.int32), pos.reshape(32, -1).sum(1).astype(np.int32)

    return Case(make, run, ref, atol=0, coop=True)


@case
def grid_stride_2d_gridsize():
    @cuda.jit
    def outer_add(a, b, out):
        sx, sy = cuda.gridsize(2)
        x0, y0 = cuda.grid(2)
        for i in range(x0, out.shape[0], sx):
            for j in range(y0, out.shape[1], sy):
                out[i, j] = a[i] + b[j]

    def make(rng):
        return rng.standard_normal(300).astype(np.float32), rng.standard_normal(170).astype(np.float32)

    def run(a, b):
        out = cuda.device_array((a.size, b.size), dtype=np.float32)
        outer_add[(2, 2), (16, 8)](a, b, out)
        return out.copy_to_host()

    return Case(make, run, lambda a, b: a[:, None] + b[None, :], rtol=0, atol=0)


@case
def eager_device_signature():
    @cuda.jit('float32(float32, float32)', device=True)
    def lerp_half(a, b):
        return a + (b - a) * 0.5

    @cuda.jit('void(float32[:], float32[:], float32[:])')
    def midpoints(a, b, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = lerp_half(a[i], b[i])

    def make(rng):
        return rng.standard_normal(999).astype(np.float32), rng.standard_normal(999).astype(np.float32)

    def run(a, b):
        out = cuda.device_array_like(a)
        midpoints[8, 128](cuda.to_device(a), cuda.to_device(b), out)
        return out.copy_to_host()

    return Case(make, run, lambda a, b: (a + (b - a) * np.float32(0.5)).astype(np.float32),
                rtol=1e-6, atol=1e-6)


POLY = np.array([0.5, -1.25, 2.0, 0.75, -3.0])


@case
def horner_global_array_iteration():
    @cuda.jit
    def polyval(x, out):
        i = cuda.grid(1)
        if i < x.shape[0]:
            acc = 0.0
            for c in POLY:
                acc = acc * x[i] + c
            out[i] = acc

    def make(rng):
        return (rng.uniform(-2, 2, 2000),)

    def run(x):
        out = np.zeros_like(x)
        polyval[16, 128](x, out)
        return out

    return Case(make, run, lambda x: np.polyval(POLY, x), rtol=1e-12, atol=1e-12)


@case
def newton_cube_root_while_true():
    @cuda.jit
    def cbrt_newton(a, root, iters):
        i = cuda.grid(1)
        if i >= a.size:
            return
        x = np.sqrt(a[i]) + 1.0
        n = 0
        while True:
            dx = (x * x * x - a[i]) / (3 * x * x)
            x -= dx
            n += 1
            if np.abs(dx) < 1e-12 or n >= 100:
                break
        root[i] = x
        iters[i] = n

    def make(rng):
        return (rng.uniform(0.1, 1000.0, 1500),)

    def run(a):
        root = cuda.device_array_like(a)
        iters = cuda.device_array(a.size, dtype=np.int64)
        cbrt_newton[12, 128](cuda.to_device(a), root, iters)
        return root.copy_to_host(), iters.copy_to_host()

    def check(got, want, inputs):
        root, iters = got
        np.testing.assert_allclose(root, np.cbrt(inputs[0]), rtol=1e-12)
        assert iters.min() >= 2 and iters.max() < 100

    return Case(make, run, check=check)


@case
def lennard_jones_minimum_image():
    @cuda.jit
    def lj_energy(pos, L, energy):
        i = cuda.grid(1)
        n = pos.shape[0]
        if i >= n:
            return
        e = 0.0
        for j in range(n):
            if j == i:
                continue
            r2 = 0.0
            for d in range(3):
                dx = pos[i, d] - pos[j, d]
                dx -= L * round(dx / L)
                r2 += dx * dx
            inv6 = 1.0 / (r2 * r2 * r2)
            e += 4.0 * (inv6 * inv6 - inv6)
        energy[i] = 0.5 * e

    def make(rng):
        return (rng.uniform(0, 6.0, (200, 3)),)

    def run(pos):
        energy = cuda.device_array(pos.shape[0])
        lj_energy[2, 128](cuda.to_device(pos), 6.0, energy)
        return energy.copy_to_host()

    def ref(pos):
        d = pos[:, None, :] - pos[None, :, :]
        d -= 6.0 * np.round(d / 6.0)
        r2 = (d * d).sum(-1)
        np.fill_diagonal(r2, np.inf)
        inv6 = 1.0 / r2 ** 3
        return 0.5 * (4.0 * (inv6 * inv6 - inv6)).sum(1)

    return Case(make, run, ref, rtol=1e-9, atol=1e-9)


@case
def lcg_uint32_numba_widening():
    # Numba types uint32 * uint32 as uint64: the state widens and never
    # wraps at 32 bits (a user porting C gets Numba's numbers, not C's)
    @cuda.jit
    def lcg(seeds, out, steps):
        i = cuda.grid(1)
        if i < seeds.size:
            state = seeds[i]
            for _ in range(steps):
                state = state * np.uint32(1664525) + np.uint32(1013904223)
            out[i] = state

    def make(rng):
        return (rng.integers(0, 2 ** 32, 700, dtype=np.uint64).astype(np.uint32),)

    def run(seeds):
        out = cuda.device_array(seeds.size, dtype=np.uint64)
        lcg[6, 128](cuda.to_device(seeds), out, 5)
        return out.copy_to_host()

    def ref(seeds):
        s = seeds.astype(np.uint64)
        for _ in range(5):
            s = s * np.uint64(1664525) + np.uint64(1013904223)
        return s

    return Case(make, run, ref, rtol=0, atol=0)


@case
def binary_search_queries():
    @cuda.jit
    def searchsorted(sorted_vals, queries, out):
        i = cuda.grid(1)
        if i >= queries.shape[0]:
            return
        q = queries[i]
        lo, hi = 0, sorted_vals.shape[0]
        while lo < hi:
            mid = (lo + hi) // 2
            if sorted_vals[mid] < q:
                lo = mid + 1
            else:
                hi = mid
        out[i] = lo

    def make(rng):
        return np.sort(rng.standard_normal(1000)), rng.standard_normal(2000) * 1.5

    def run(vals, queries):
        out = np.empty(queries.size, dtype=np.int64)
        searchsorted[blocks_for(queries.size, 256), 256](vals, queries, out)
        return out

    return Case(make, run, lambda v, q: np.searchsorted(v, q), rtol=0, atol=0)


@case
def joint_histogram_2d_floor():
    @cuda.jit
    def hist2d(x, y, lo, width, h):
        i = cuda.grid(1)
        if i < x.size:
            bx = math.floor((x[i] - lo) / width)
            by = math.floor((y[i] - lo) / width)
            if 0 <= bx < h.shape[0] and 0 <= by < h.shape[1]:
                cuda.atomic.add(h, (bx, by), 1)

    def make(rng):
        return rng.standard_normal(5000), rng.standard_normal(5000)

    def run(x, y):
        h = cuda.to_device(np.zeros((12, 12), dtype=np.int32))
        hist2d[40, 128](x, y, -3.0, 0.5, h)
        return h.copy_to_host()

    def ref(x, y):
        bx = np.floor((x + 3.0) / 0.5).astype(np.int64)
        by = np.floor((y + 3.0) / 0.5).astype(np.int64)
        ok = (bx >= 0) & (bx < 12) & (by >= 0) & (by < 12)
        h = np.zeros((12, 12), dtype=np.int32)
        np.add.at(h, (bx[ok], by[ok]), 1)
        return h

    return Case(make, run, ref, atol=0)


@case
def device_fn_unified_returns_chain():
    @cuda.jit(device=True)
    def soft_sign(x):
        if x < -1:
            return -1
        if x > 1:
            return 1
        return x * 0.5

    @cuda.jit(device=True)
    def scaled(x, k):
        return soft_sign(x) * k

    @cuda.jit(device=True)
    def first_above(row, t):
        for j in range(row.shape[0]):
            if row[j] > t:
                return j
        return -1

    @cuda.jit
    def kern(a, t, out, idx):
        i = cuda.grid(1)
        if i < a.shape[0]:
            for j in range(a.shape[1]):
                out[i, j] = scaled(a[i, j], 3)
            idx[i] = first_above(a[i], t)

    def make(rng):
        return (rng.standard_normal((300, 8)) * 1.5,)

    def run(a):
        out = cuda.device_array(a.shape)
        idx = cuda.device_array(a.shape[0], dtype=np.int32)
        kern[3, 128](cuda.to_device(a), 2.0, out, idx)
        return out.copy_to_host(), idx.copy_to_host()

    def ref(a):
        s = np.where(a < -1, -1.0, np.where(a > 1, 1.0, a * 0.5)) * 3
        above = a > 2.0
        idx = np.where(above.any(1), above.argmax(1), -1).astype(np.int32)
        return s, idx

    return Case(make, run, ref, rtol=0, atol=0)


@case
def polar_math_functions():
    @cuda.jit
    def to_polar(xy, r, theta_deg):
        i = cuda.grid(1)
        if i < xy.shape[0]:
            x, y = xy[i, 0], xy[i, 1]
            r[i] = math.hypot(x, y)
            th = math.atan2(y, x)
            if th < 0:
                th += 2 * math.pi
            theta_deg[i] = math.degrees(th)

    def make(rng):
        return (rng.standard_normal((800, 2)).astype(np.float32),)

    def run(xy):
        r = cuda.device_array(xy.shape[0], dtype=np.float32)
        th = cuda.device_array(xy.shape[0], dtype=np.float32)
        to_polar[7, 128](cuda.to_device(xy), r, th)
        return r.copy_to_host(), th.copy_to_host()

    def ref(xy):
        x, y = xy[:, 0].astype(np.float64), xy[:, 1].astype(np.float64)
        th = np.arctan2(y, x)
        th = np.where(th < 0, th + 2 * np.pi, th)
        return np.hypot(x, y).astype(np.float32), np.degrees(th).astype(np.float32)

    return Case(make, run, ref, rtol=1e-5, atol=1e-4)


@case
def threadfence_last_block_sum():
    @cuda.jit
    def total(x, partial, done, result):
        sh = cuda.shared.array(128, dtype=np.float64)
        t = cuda.threadIdx.x
        i = cuda.grid(1)
        sh[t] = x[i] if i < x.size else 0.0
        cuda.syncthreads()
        half = 64
        while half > 0:
            if t < half:
                sh[t] += sh[t + half]
            cuda.syncthreads()
            half //= 2
        is_last = cuda.shared.array(1, dtype=np.int32)
        if t == 0:
            partial[cuda.blockIdx.x] = sh[0]
            cuda.threadfence()
            ticket = cuda.atomic.add(done, 0, 1)
            is_last[0] = ticket == cuda.gridDim.x - 1
        cuda.syncthreads()
        if is_last[0] and t == 0:
            s = 0.0
            for b in range(cuda.gridDim.x):
                s += partial[b]
            result[0] = s

    def make(rng):
        return (rng.random(2500),)

    def run(x):
        nb = blocks_for(x.size, 128)
        partial = cuda.device_array(nb)
        done = cuda.to_device(np.zeros(1, np.int32))
        result = cuda.to_device(np.zeros(1))
        total[nb, 128](cuda.to_device(x), partial, done, result)
        return result.copy_to_host()

    return Case(make, run, lambda x: np.array([x.sum()]), rtol=1e-10, coop=True)


@case
def device_properties_sizing():
    @cuda.jit
    def fill_index(out):
        start = cuda.grid(1)
        for i in range(start, out.shape[0], cuda.gridsize(1)):
            out[i] = i * 3 - 7

    def make(rng):
        return (int(rng.integers(5000, 20000)),)

    def run(n):
        dev = cuda.get_current_device()
        tpb = dev.WARP_SIZE * 4
        assert tpb <= dev.MAX_THREADS_PER_BLOCK
        blocks = dev.MULTIPROCESSOR_COUNT * 2
        out = cuda.device_array(n, dtype=np.int64)
        fill_index[blocks, tpb](out)
        return out.copy_to_host()

    return Case(make, run, lambda n: np.arange(n, dtype=np.int64) * 3 - 7, rtol=0, atol=0)


@case
def device_array_reshape_slices():
    @cuda.jit
    def row_sums(m, out):
        r = cuda.grid(1)
        if r < m.shape[0]:
            s = 0
            for c in range(m.shape[1]):
                s += m[r, c]
            out[r] = s

    def make(rng):
        return (rng.integers(-100, 100, 600).astype(np.int32),)

    def run(flat):
        d = cuda.to_device(flat)
        m = d.reshape(30, 20)
        out = cuda.device_array(30, dtype=np.int64)
        row_sums[1, 32](m, out)
        head = d[:100].copy_to_host()
        return out.copy_to_host(), head, len(d), d.size

    def ref(flat):
        return flat.reshape(30, 20).sum(1), flat[:100], 600, 600

    return Case(make, run, ref, rtol=0, atol=0)


# ---- factories, chained indexing, polymorphic helpers ----

def make_scaler(factor, width):
    """a kernel factory: the kernel closes over factor and width"""
    @cuda.jit
    def scale_rows(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            tmp = cuda.local.array(width, dtype=np.float64)
            for j in range(width):
                tmp[j] = a[i][j] * factor
            for j in range(width):
                out[i][j] = tmp[width - 1 - j]
    return scale_rows


@case
def kernel_factory_closure_chained_index():
    k3 = make_scaler(2.5, 3)
    k5 = make_scaler(-1.0, 5)

    def make(rng):
        return rng.standard_normal((100, 3)), rng.standard_normal((60, 5))

    def run(a, b):
        oa = np.zeros_like(a)
        ob = np.zeros_like(b)
        k3[1, 128](a, oa)
        k5[1, 64](b, ob)
        return oa, ob

    return Case(make, run, lambda a, b: ((a * 2.5)[:, ::-1], (-b)[:, ::-1]), rtol=0, atol=0)


@case
def row_views_enumerate():
    @cuda.jit
    def weighted_row(m, w, out):
        r = cuda.grid(1)
        if r >= m.shape[0]:
            return
        row = m[r]
        acc = 0.0
        for j, v in enumerate(row):
            acc += v * w[j]
        out[r] = acc / len(row)

    def make(rng):
        return rng.standard_normal((90, 7)).astype(np.float32), rng.random(7).astype(np.float32)

    def run(m, w):
        out = cuda.device_array(m.shape[0], dtype=np.float64)
        weighted_row[2, 64](cuda.to_device(m), cuda.to_device(w), out)
        return out.copy_to_host()

    return Case(make, run, lambda m, w: (m.astype(np.float64) * w.astype(np.float64)).sum(1) / 7,
                rtol=1e-6, atol=1e-6)


@case
def polymorphic_device_fn_f32_f64():
    @cuda.jit(device=True)
    def smoothstep(e0, e1, x):
        t = min(max((x - e0) / (e1 - e0), 0.0), 1.0)
        return t * t * (3 - 2 * t)

    @cuda.jit
    def apply(a32, a64, o32, o64):
        i = cuda.grid(1)
        if i < a32.size:
            o32[i] = smoothstep(np.float32(-1), np.float32(1), a32[i])
        if i < a64.size:
            o64[i] = smoothstep(-1.0, 1.0, a64[i])

    def make(rng):
        return rng.uniform(-2, 2, 500).astype(np.float32), rng.uniform(-2, 2, 700)

    def run(a32, a64):
        o32 = np.zeros_like(a32)
        o64 = np.zeros_like(a64)
        apply[6, 128](a32, a64, o32, o64)
        return o32, o64

    def ref(a32, a64):
        def ss(x):
            t = np.clip((x + 1.0) / 2.0, 0.0, 1.0)
            return t * t * (3 - 2 * t)
        return ss(a32.astype(np.float64)).astype(np.float32), ss(a64)

    return Case(make, run, ref, rtol=1e-5, atol=1e-6)


@case
def random_walk_device_helper():
    rnd = _random()

    @cuda.jit(device=True)
    def step(states, tid, scale):
        z = rnd.xoroshiro128p_normal_float32(states, tid)
        return z * scale

    @cuda.jit
    def walk(states, nsteps, final):
        tid = cuda.grid(1)
        if tid >= final.shape[0]:
            return
        x = np.float32(0.0)
        for _ in range(nsteps):
            x += step(states, tid, np.float32(0.5))
        final[tid] = x

    def make(rng):
        return (int(rng.integers(1, 10 ** 9)),)

    def run(seed):
        n = 8192
        states = rnd.create_xoroshiro128p_states(n, seed=seed)
        final = cuda.device_array(n, dtype=np.float32)
        walk[n // 256, 256](states, 100, final)
        return final.copy_to_host()

    def check(got, want, inputs):
        f = got[0]
        # sum of 100 N(0, 0.25) steps: N(0, 25)
        assert abs(f.mean()) < 0.25 and abs(f.std() - 5.0) < 0.2, (f.mean(), f.std())

    return Case(make, run, check=check)


MV_TPB = 64


@case
def matvec_shared_x_tiles():
    @cuda.jit
    def matvec(A, x, y):
        xs = cuda.shared.array(MV_TPB * 2, dtype=np.float64)
        row = cuda.grid(1)
        t = cuda.threadIdx.x
        nrows, ncols = A.shape
        acc = 0.0
        for base in range(0, ncols, MV_TPB * 2):
            for k in range(t, MV_TPB * 2, cuda.blockDim.x):
                xs[k] = x[base + k] if base + k < ncols else 0.0
            cuda.syncthreads()
            if row < nrows:
                top = min(MV_TPB * 2, ncols - base)
                for k in range(top):
                    acc += A[row, base + k] * xs[k]
            cuda.syncthreads()
        if row < nrows:
            y[row] = acc

    def make(rng):
        return rng.standard_normal((150, 300)), rng.standard_normal(300)

    def run(A, x):
        y = cuda.device_array(A.shape[0])
        matvec[blocks_for(A.shape[0], MV_TPB), MV_TPB](cuda.to_device(A), cuda.to_device(x), y)
        return y.copy_to_host()

    return Case(make, run, lambda A, x: A @ x, rtol=1e-10, atol=1e-10, coop=True)


@case
def fastmath_and_math_ceil():
    @cuda.jit(fastmath=True)
    def gaussian(x, mu, sigma, out):
        i = cuda.grid(1)
        if i < x.size:
            d = (x[i] - mu) / sigma
            out[i] = math.exp(np.float32(-0.5) * d * d)

    @cuda.jit
    def chunk_sums(x, chunk, out):
        c = cuda.grid(1)
        nchunks = math.ceil(x.size / chunk)
        if c < nchunks:
            s = 0.0
            for j in range(c * chunk, min((c + 1) * chunk, x.size)):
                s += x[j]
            out[c] = s

    def make(rng):
        return (rng.standard_normal(1000).astype(np.float32),)

    def run(x):
        g = cuda.device_array_like(x)
        gaussian[8, 128](cuda.to_device(x), np.float32(0.3), np.float32(1.2), g)
        sums = cuda.device_array(math.ceil(x.size / 64), dtype=np.float64)
        chunk_sums[1, 32](cuda.to_device(x), 64, sums)
        return g.copy_to_host(), sums.copy_to_host()

    def ref(x):
        d = (x.astype(np.float64) - np.float32(0.3)) / np.float32(1.2)
        pad = np.zeros(1024)
        pad[:1000] = x
        return np.exp(-0.5 * d * d).astype(np.float32), pad.reshape(16, 64).sum(1)

    return Case(make, run, ref, rtol=1e-4, atol=1e-5)


@case
def int_powers_min_max_mixed():
    @cuda.jit
    def features(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            v = a[i]
            out[i, 0] = v ** 2
            out[i, 1] = 2 ** (v % 10)
            out[i, 2] = min(v, 7, abs(v - 3))
            out[i, 3] = max(v * 0.5, -2, v // 3)
            out[i, 4] = (v % 4) * 1.5 + v // -4

    def make(rng):
        return (rng.integers(-40, 40, 400),)

    def run(a):
        out = np.zeros((a.size, 5))
        features[4, 128](a, out)
        return out

    def ref(a):
        return np.stack([a ** 2, 2.0 ** (a % 10), np.minimum(np.minimum(a, 7), np.abs(a - 3)),
                         np.maximum(np.maximum(a * 0.5, -2), a // 3),
                         (a % 4) * 1.5 + a // -4], axis=1).astype(np.float64)

    return Case(make, run, ref, rtol=0, atol=0)


CONV_K = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]], dtype=np.float32) / 16


@case
def const_2d_filter_shared_tile():
    @cuda.jit
    def blur(img, out):
        k = cuda.const.array_like(CONV_K)
        tile = cuda.shared.array((TILE + 2, TILE + 2), dtype=np.float32)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        x0 = cuda.blockIdx.x * TILE - 1
        y0 = cuda.blockIdx.y * TILE - 1
        h, w = img.shape
        # the (TILE+2)^2 tile with its halo, loaded by TILE*TILE threads
        idx = ty * TILE + tx
        while idx < (TILE + 2) * (TILE + 2):
            yy = min(max(y0 + idx // (TILE + 2), 0), h - 1)
            xx = min(max(x0 + idx % (TILE + 2), 0), w - 1)
            tile[idx // (TILE + 2), idx % (TILE + 2)] = img[yy, xx]
            idx += TILE * TILE
        cuda.syncthreads()
        y, x = y0 + 1 + ty, x0 + 1 + tx
        if y < h and x < w:
            s = np.float32(0)
            for dy in range(3):
                for dx in range(3):
                    s += k[dy, dx] * tile[ty + dy, tx + dx]
            out[y, x] = s

    def make(rng):
        return (rng.random((45, 61)).astype(np.float32),)

    def run(img):
        out = cuda.device_array_like(img)
        blur[(blocks_for(61, TILE), blocks_for(45, TILE)), (TILE, TILE)](cuda.to_device(img), out)
        return out.copy_to_host()

    def ref(img):
        p = np.pad(img.astype(np.float64), 1, mode="edge")
        return sum(CONV_K[dy, dx] * p[dy:dy + 45, dx:dx + 61] for dy in range(3) for dx in range(3))

    return Case(make, run, ref, rtol=1e-5, atol=1e-6, coop=True)


@case
def copy_to_device_reuse_buffers():
    @cuda.jit
    def axpby(a, x, b, y):
        i = cuda.grid(1)
        if i < x.shape[0]:
            y[i] = a * x[i] + b * y[i]

    def make(rng):
        return rng.standard_normal(2048), rng.standard_normal(2048), rng.standard_normal(2048)

    def run(x1, x2, y0):
        d_x = cuda.device_array(x1.shape, dtype=x1.dtype)
        d_y = cuda.to_device(y0)
        results = []
        for x in (x1, x2):
            d_x.copy_to_device(x)
            axpby[16, 128, 0, 0](np.float64(2.0), d_x, -0.5, d_y)
            host = np.empty_like(x)
            d_y.copy_to_host(ary=host)
            results.append(host)
        return tuple(results)

    def ref(x1, x2, y0):
        y1 = 2.0 * x1 - 0.5 * y0
        return y1, 2.0 * x2 - 0.5 * y1

    return Case(make, run, ref, rtol=1e-12, atol=1e-12)


@case
def nested_loop_early_return_flag():
    @cuda.jit
    def first_pair(a, target, found, out):
        i = cuda.grid(1)
        n = a.shape[0]
        if i >= n:
            return
        for j in range(i + 1, n):
            for k in range(j + 1, n):
                if a[i] + a[j] + a[k] == target:
                    out[i, 0] = j
                    out[i, 1] = k
                    found[i] = True
                    return
        found[i] = False

    def make(rng):
        return rng.integers(0, 50, 120), int(rng.integers(40, 80))

    def run(a, target):
        found = np.zeros(a.size, dtype=np.bool_)
        out = np.full((a.size, 2), -1, dtype=np.int64)
        first_pair[1, 128](a, target, found, out)
        return found, out

    def ref(a, target):
        found = np.zeros(a.size, dtype=np.bool_)
        out = np.full((a.size, 2), -1, dtype=np.int64)
        for i in range(a.size):
            done = False
            for j in range(i + 1, a.size):
                for k in range(j + 1, a.size):
                    if a[i] + a[j] + a[k] == target:
                        out[i] = j, k
                        found[i] = done = True
                        break
                if done:
                    break
        return found, out

    return Case(make, run, ref, rtol=0, atol=0)


# ---- solvers and index arithmetic ----

NSYS = 12


@case
def thomas_tridiagonal_batched():
    @cuda.jit
    def thomas(a, b, c, d, x):
        s = cuda.grid(1)
        if s >= d.shape[0]:
            return
        n = d.shape[1]
        cp = cuda.local.array(NSYS, dtype=np.float64)
        dp = cuda.local.array(NSYS, dtype=np.float64)
        cp[0] = c[s, 0] / b[s, 0]
        dp[0] = d[s, 0] / b[s, 0]
        for i in range(1, n):
            m = b[s, i] - a[s, i] * cp[i - 1]
            cp[i] = c[s, i] / m
            dp[i] = (d[s, i] - a[s, i] * dp[i - 1]) / m
        x[s, n - 1] = dp[n - 1]
        for i in range(n - 2, -1, -1):
            x[s, i] = dp[i] - cp[i] * x[s, i + 1]

    def make(rng):
        shape = (200, NSYS)
        return (rng.uniform(-1, 1, shape), rng.uniform(4, 6, shape), rng.uniform(-1, 1, shape),
                rng.standard_normal(shape))

    def run(a, b, c, d):
        x = cuda.device_array_like(d)
        thomas[2, 128](cuda.to_device(a), cuda.to_device(b), cuda.to_device(c), cuda.to_device(d), x)
        return x.copy_to_host()

    def ref(a, b, c, d):
        out = np.empty_like(d)
        for s in range(d.shape[0]):
            M = np.diag(b[s]) + np.diag(a[s, 1:], -1) + np.diag(c[s, :-1], 1)
            out[s] = np.linalg.solve(M, d[s])
        return out

    return Case(make, run, ref, rtol=1e-9, atol=1e-9)


@case
def thread_index_negative_arith():
    @cuda.jit
    def offsets(out):
        t = cuda.threadIdx.x - 2
        b = cuda.blockIdx.x - 1
        g = cuda.grid(1)
        out[g, 0] = t
        out[g, 1] = b * cuda.blockDim.x + cuda.threadIdx.x
        out[g, 2] = -cuda.threadIdx.x
        out[g, 3] = 1 if cuda.threadIdx.x - 5 < 0 else 0
        out[g, 4] = (cuda.threadIdx.x - 3) // 2
        out[g, 5] = (cuda.threadIdx.x - 3) % 4
        out[g, 6] = t if t >= 0 else -100

    def make(rng):
        return (int(rng.integers(8, 33)),)

    def run(tpb):
        out = cuda.device_array((3 * tpb, 7), dtype=np.int64)
        offsets[3, tpb](out)
        return out.copy_to_host()

    def ref(tpb):
        t = np.tile(np.arange(tpb), 3)
        blk = np.repeat(np.arange(3), tpb)
        return np.stack([t - 2, (blk - 1) * tpb + t, -t, (t - 5 < 0).astype(np.int64),
                         (t - 3) // 2, (t - 3) % 4, np.where(t - 2 >= 0, t - 2, -100)],
                        axis=1)

    return Case(make, run, ref, rtol=0, atol=0)


@case
def nan_aware_row_mean():
    @cuda.jit
    def nanmean_rows(x, out, counts):
        r = cuda.grid(1)
        if r >= x.shape[0]:
            return
        s = 0.0
        n = 0
        for j in range(x.shape[1]):
            v = x[r, j]
            if math.isnan(v):
                continue
            s += v
            n += 1
        counts[r] = n
        out[r] = s / n if n > 0 else math.nan

    def make(rng):
        x = rng.standard_normal((300, 6))
        x[rng.random(x.shape) < 0.4] = np.nan
        x[:3] = np.nan
        return (x,)

    def run(x):
        out = cuda.device_array(x.shape[0])
        counts = cuda.device_array(x.shape[0], dtype=np.int32)
        nanmean_rows[3, 128](cuda.to_device(x), out, counts)
        return out.copy_to_host(), counts.copy_to_host()

    def ref(x):
        counts = (~np.isnan(x)).sum(1).astype(np.int32)
        sums = np.where(np.isnan(x), 0.0, x).sum(1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(counts > 0, sums / counts, np.nan), counts

    return Case(make, run, ref, rtol=1e-12, atol=1e-12)


@case
def complex64_fields():
    @cuda.jit
    def analyse(z, mag, ph, conj_prod):
        i = cuda.grid(1)
        if i < z.size:
            v = z[i]
            mag[i] = abs(v)
            ph[i] = cmath.phase(v)
            conj_prod[i] = v * v.conjugate() + 1j * v.imag

    def make(rng):
        return ((rng.standard_normal(900) + 1j * rng.standard_normal(900)).astype(np.complex64),)

    def run(z):
        mag = cuda.device_array(z.size, dtype=np.float32)
        ph = cuda.device_array(z.size, dtype=np.float32)
        cp = cuda.device_array(z.size, dtype=np.complex64)
        analyse[8, 128](cuda.to_device(z), mag, ph, cp)
        return mag.copy_to_host(), ph.copy_to_host(), cp.copy_to_host()

    def ref(z):
        return (np.abs(z).astype(np.float32), np.angle(z).astype(np.float32),
                (z * np.conj(z) + 1j * z.imag).astype(np.complex64))

    return Case(make, run, ref, rtol=1e-5, atol=1e-5)


@case
def csr_spmv_row_per_thread():
    @cuda.jit
    def spmv(indptr, indices, data, x, y):
        row = cuda.grid(1)
        if row < y.shape[0]:
            acc = 0.0
            for jj in range(indptr[row], indptr[row + 1]):
                acc += data[jj] * x[indices[jj]]
            y[row] = acc

    def make(rng):
        n = 400
        dense = rng.standard_normal((n, n)) * (rng.random((n, n)) < 0.03)
        return dense, rng.standard_normal(n)

    def run(dense, x):
        rows, cols = np.nonzero(dense)
        indptr = np.zeros(dense.shape[0] + 1, dtype=np.int32)
        np.add.at(indptr, rows + 1, 1)
        indptr = np.cumsum(indptr).astype(np.int32)
        indices = cols.astype(np.int32)
        data = dense[rows, cols]
        y = cuda.device_array(dense.shape[0])
        spmv[blocks_for(dense.shape[0], 128), 128](cuda.to_device(indptr), cuda.to_device(indices),
                                                   cuda.to_device(data), cuda.to_device(x), y)
        return y.copy_to_host()

    return Case(make, run, lambda dense, x: dense @ x, rtol=1e-10, atol=1e-10)


@case
def wave_leapfrog_rotating_buffers():
    @cuda.jit
    def wave_step(u_prev, u, u_next, c2):
        i = cuda.grid(1)
        n = u.shape[0]
        if i == 0 or i >= n - 1:
            if i < n:
                u_next[i] = 0.0
            return
        u_next[i] = 2 * u[i] - u_prev[i] + c2 * (u[i + 1] - 2 * u[i] + u[i - 1])

    def make(rng):
        u0 = np.zeros(500)
        u0[1:-1] = np.sin(np.linspace(0, rng.uniform(2, 6) * np.pi, 498))
        return (u0,)

    def run(u0):
        u_prev = cuda.to_device(u0)
        u = cuda.to_device(u0)
        u_next = cuda.device_array_like(u)
        for _ in range(40):
            wave_step[4, 128](u_prev, u, u_next, 0.25)
            u_prev, u, u_next = u, u_next, u_prev
        return u.copy_to_host()

    def ref(u0):
        up, u = u0.copy(), u0.copy()
        for _ in range(40):
            un = np.zeros_like(u)
            un[1:-1] = 2 * u[1:-1] - up[1:-1] + 0.25 * (u[2:] - 2 * u[1:-1] + u[:-2])
            up, u = u, un
        return u

    return Case(make, run, ref, rtol=1e-10, atol=1e-10)


@case
def param_reassign_widening():
    @cuda.jit
    def k(x, n, scale, out):
        i = cuda.grid(1)
        if i >= x.size:
            return
        scale = scale * 2
        n = n + 0.5
        v = 0
        if x[i] > 0:
            v = x[i] * scale
        else:
            v = n
        out[i] = v

    def make(rng):
        return (rng.standard_normal(600),)

    def run(x):
        out = np.zeros_like(x)
        k[5, 128](x, 3, 4, out)
        return out

    return Case(make, run, lambda x: np.where(x > 0, x * 8, 3.5), rtol=0, atol=0)


@case
def atomic_inc_exch_ring():
    @cuda.jit
    def push(x, ring, head, last):
        i = cuda.grid(1)
        if i < x.size:
            slot = cuda.atomic.inc(head, 0, 63)
            cuda.atomic.add(ring, slot, x[i])
            cuda.atomic.exch(last, 0, 1)

    def make(rng):
        return (rng.integers(1, 100, 1000).astype(np.uint32),)

    def run(x):
        ring = cuda.to_device(np.zeros(64, dtype=np.uint32))
        head = cuda.to_device(np.zeros(1, dtype=np.uint32))
        last = cuda.to_device(np.zeros(1, dtype=np.uint32))
        push[8, 128](x, ring, head, last)
        return ring.copy_to_host().sum(dtype=np.uint64), head.copy_to_host()[0], last.copy_to_host()[0]

    return Case(make, run, lambda x: (x.sum(dtype=np.uint64), 1000 % 64, 1), rtol=0, atol=0)


# ---- host memory kinds and scalars ----

@case
def managed_and_mapped_memory():
    @cuda.jit
    def square_plus(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = a[i] * a[i] + b[i]

    def make(rng):
        return rng.standard_normal(1500).astype(np.float32), rng.standard_normal(1500).astype(np.float32)

    def run(a, b):
        m = cuda.managed_array(a.size, dtype=np.float32)
        m[:] = a
        mapped = cuda.mapped_array(b.size, dtype=np.float32)
        mapped[:] = b
        out = cuda.managed_array(a.size, dtype=np.float32)
        square_plus[blocks_for(a.size, 256), 256](m, mapped, out)
        cuda.synchronize()
        return np.array(out)

    return Case(make, run, lambda a, b: a * a + b, rtol=1e-6, atol=1e-6)


@case
def numpy_scalar_arguments():
    @cuda.jit
    def affine(x, out, a, b, n, flip):
        i = cuda.grid(1)
        if i < n:
            v = a * x[i] + b
            out[i] = -v if flip else v

    def make(rng):
        return (rng.standard_normal(777).astype(np.float32),)

    def run(x):
        n = np.int64(x.size)
        out = cuda.device_array((n,), dtype=np.float32)
        stream = cuda.default_stream()
        affine[(int(np.ceil(x.size / 128)),), (128,), stream](cuda.to_device(x), out, np.float32(1.5),
                                                             np.float64(-0.25), n, np.bool_(True))
        stream.synchronize()
        return out.copy_to_host()

    return Case(make, run, lambda x: -(np.float32(1.5) * x + np.float32(-0.25)), rtol=1e-6,
                atol=1e-6)


@case
def events_on_streams_wait():
    @cuda.jit
    def fill(a, v):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = v + i

    @cuda.jit
    def add_into(a, b):
        i = cuda.grid(1)
        if i < a.size:
            b[i] += a[i]

    def make(rng):
        return (float(rng.uniform(-5, 5)),)

    def run(v):
        s1, s2 = cuda.stream(), cuda.stream()
        a = cuda.device_array(1000, dtype=np.float64, stream=s1)
        b = cuda.to_device(np.ones(1000), stream=s2)
        fill[8, 128, s1](a, v)
        ev = cuda.event()
        ev.record(s1)
        ev.wait(s2)
        add_into[8, 128, s2](a, b)
        done = cuda.event(timing=False)
        done.record(s2)
        done.synchronize()
        assert done.query()
        return b.copy_to_host(stream=s2)

    return Case(make, run, lambda v: 1.0 + v + np.arange(1000), rtol=1e-12, atol=1e-12)


@case
def transposed_view_in_kernel():
    @cuda.jit
    def sym_part(a, out, skew_t):
        i, j = cuda.grid(2)
        at = a.T
        if i < a.shape[0] and j < a.shape[1]:
            out[i, j] = 0.5 * (a[i, j] + at[i, j])
            skew_t.T[j, i] = 0.5 * (a[i, j] - a.T[i, j])

    def make(rng):
        return (rng.standard_normal((33, 33)),)

    def run(a):
        out = cuda.device_array_like(a)
        skew_t = cuda.device_array_like(a)
        sym_part[(5, 5), (8, 8)](cuda.to_device(a), out, skew_t)
        return out.copy_to_host(), skew_t.copy_to_host()

    return Case(make, run, lambda a: (0.5 * (a + a.T), 0.5 * (a - a.T)), rtol=0, atol=0)


# ---- more science: PIC deposit, colour histograms, Ising, Morton codes ----

@case
def pic_charge_deposit_periodic():
    @cuda.jit
    def deposit(x, w, dx, rho):
        p = cuda.grid(1)
        if p >= x.shape[0]:
            return
        n = rho.shape[0]
        s = x[p] / dx
        i = int(math.floor(s))
        f = s - i
        cuda.atomic.add(rho, i % n, w[p] * (1.0 - f))
        cuda.atomic.add(rho, (i + 1) % n, w[p] * f)

    def make(rng):
        return rng.uniform(0, 10.0, 5000), rng.uniform(0.5, 1.5, 5000)

    def run(x, w):
        rho = cuda.to_device(np.zeros(64))
        deposit[40, 128](cuda.to_device(x), cuda.to_device(w), 10.0 / 64, rho)
        return rho.copy_to_host()

    def ref(x, w):
        s = x / (10.0 / 64)
        i = np.floor(s).astype(np.int64)
        f = s - i
        rho = np.zeros(64)
        np.add.at(rho, i % 64, w * (1.0 - f))
        np.add.at(rho, (i + 1) % 64, w * f)
        return rho

    return Case(make, run, ref, rtol=1e-9, atol=1e-9)


@case
def rgb_histogram_3d_tuple_atomics():
    @cuda.jit
    def colour_hist(img, hist, shift):
        y, x = cuda.grid(2)
        if y < img.shape[0] and x < img.shape[1]:
            r = img[y, x, 0] >> shift
            g = img[y, x, 1] >> shift
            b = img[y, x, 2] >> shift
            cuda.atomic.add(hist, (r, g, b), 1)

    def make(rng):
        return (rng.integers(0, 256, (50, 70, 3)).astype(np.uint8),)

    def run(img):
        hist = cuda.to_device(np.zeros((8, 8, 8), dtype=np.int32))
        colour_hist[(4, 5), (16, 16)](cuda.to_device(img), hist, 5)
        return hist.copy_to_host()

    def ref(img):
        q = (img >> 5).reshape(-1, 3).astype(np.int64)
        h = np.zeros((8, 8, 8), dtype=np.int32)
        np.add.at(h, (q[:, 0], q[:, 1], q[:, 2]), 1)
        return h

    return Case(make, run, ref, atol=0)


@case
def morton_codes_bit_ops():
    @cuda.jit(device=True)
    def spread_bits(v):
        v = (v | (v << 16)) & 0x030000FF
        v = (v | (v << 8)) & 0x0300F00F
        v = (v | (v << 4)) & 0x030C30C3
        v = (v | (v << 2)) & 0x09249249
        return v

    @cuda.jit
    def morton3d(pts, codes):
        i = cuda.grid(1)
        if i < pts.shape[0]:
            xi = min(max(int(pts[i, 0] * 1024.0), 0), 1023)
            yi = min(max(int(pts[i, 1] * 1024.0), 0), 1023)
            zi = min(max(int(pts[i, 2] * 1024.0), 0), 1023)
            codes[i] = spread_bits(xi) * 4 + spread_bits(yi) * 2 + spread_bits(zi)

    def make(rng):
        return (rng.random((1000, 3)).astype(np.float32),)

    def run(pts):
        codes = cuda.device_array(pts.shape[0], dtype=np.uint32)
        morton3d[8, 128](cuda.to_device(pts), codes)
        return codes.copy_to_host()

    def ref(pts):
        q = np.clip((pts.astype(np.float64) * 1024.0).astype(np.int64), 0, 1023)

        def spread(v):
            v = (v | (v << 16)) & 0x030000FF
            v = (v | (v << 8)) & 0x0300F00F
            v = (v | (v << 4)) & 0x030C30C3
            return (v | (v << 2)) & 0x09249249
        return (spread(q[:, 0]) * 4 + spread(q[:, 1]) * 2 + spread(q[:, 2])).astype(np.uint32)

    return Case(make, run, ref, rtol=0, atol=0)


ISING_N = 32


@case
def ising_checkerboard_metropolis():
    rnd = _random()

    @cuda.jit
    def sweep(spins, states, beta, color):
        i, j = cuda.grid(2)
        n = spins.shape[0]
        if i >= n or j >= n or (i + j) % 2 != color:
            return
        nb = (spins[(i - 1) % n, j] + spins[(i + 1) % n, j]
              + spins[i, (j - 1) % n] + spins[i, (j + 1) % n])
        dE = 2 * spins[i, j] * nb
        tid = i * n + j
        if dE <= 0 or rnd.xoroshiro128p_uniform_float64(states, tid) < math.exp(-beta * dE):
            spins[i, j] = -spins[i, j]

    def make(rng):
        return (int(rng.integers(1, 2 ** 31)), rng.choice(np.array([-1, 1], dtype=np.int8),
                                                          (ISING_N, ISING_N)))

    def run(seed, hot_start):
        states = rnd.create_xoroshiro128p_states(ISING_N * ISING_N, seed=seed)
        cold = cuda.to_device(np.ones((ISING_N, ISING_N), dtype=np.int8))
        hot = cuda.to_device(hot_start)
        grid = (ISING_N // 16, ISING_N // 16)
        for _ in range(60):
            for color in (0, 1):
                sweep[grid, (16, 16)](cold, states, 1.0, color)
                sweep[grid, (16, 16)](hot, states, 0.1, color)
        return cold.copy_to_host(), hot.copy_to_host()

    def check(got, want, inputs):
        cold, hot = got
        assert cold.dtype == np.int8 and set(np.unique(cold)) <= {-1, 1}
        assert cold.mean() > 0.9, cold.mean()            # far below T_c: stays ordered
        assert abs(hot.mean()) < 0.25, hot.mean()          # far above T_c: disordered
        assert (hot != inputs[1]).any()

    return Case(make, run, check=check)


@case
def smooth_mandelbrot_tuple_return():
    @cuda.jit(device=True)
    def escape(cr, ci, max_iter):
        zr = zi = 0.0
        for n in range(max_iter):
            zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
            if zr * zr + zi * zi > 256.0:
                return n, zr, zi
        return max_iter, zr, zi

    @cuda.jit
    def smooth(img, x0, y0, step):
        y, x = cuda.grid(2)
        if y >= img.shape[0] or x >= img.shape[1]:
            return
        n, zr, zi = escape(x0 + x * step, y0 + y * step, MAX_ITERS)
        if n == MAX_ITERS:
            img[y, x] = 0.0
        else:
            img[y, x] = n + 1 - math.log2(math.log(math.sqrt(zr * zr + zi * zi)))

    def make(rng):
        return (rng.uniform(-2.2, -2.0), rng.uniform(-1.3, -1.1))

    def run(x0, y0):
        img = cuda.device_array((48, 64))
        smooth[(3, 4), (16, 16)](img, x0, y0, 2.8 / 64)
        return img.copy_to_host()

    def ref(x0, y0):
        out = np.zeros((48, 64))
        for y in range(48):
            for x in range(64):
                cr, ci = x0 + x * (2.8 / 64), y0 + y * (2.8 / 64)
                zr = zi = 0.0
                n = MAX_ITERS
                for k in range(MAX_ITERS):
                    zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
                    if zr * zr + zi * zi > 256.0:
                        n = k
                        break
                if n != MAX_ITERS:
                    out[y, x] = n + 1 - math.log2(math.log(math.sqrt(zr * zr + zi * zi)))
        return out

    def check(got, want, inputs):
        g, w = got[0], want[0]
        close = np.isclose(g, w, rtol=1e-6, atol=1e-6)
        assert close.mean() > 0.95, close.mean()
        assert (w > 0).mean() > 0.3

    return Case(make, run, ref, check=check)


# ---- negative indices, nested global tuples ----

@case
def periodic_stencil_negative_indices():
    @cuda.jit
    def periodic_laplacian(u, out):
        i = cuda.grid(1)
        n = u.shape[0]
        if i < n:
            # u[i - 1] is u[-1] at i == 0 and u[i + 1 - n] is negative below
            # the end: Python's wraparound makes the stencil periodic
            out[i] = u[i - 1] - 2 * u[i] + u[i + 1 - n]

    @cuda.jit
    def corners(a, out):
        j = cuda.grid(1)
        if j < a.shape[1]:
            out[0, j] = a[-1, j] - a[0, -1 - j]
            out[1, j] = a[-2, -j - 1]

    def make(rng):
        return rng.standard_normal(300), rng.standard_normal((5, 40))

    def run(u, a):
        # (a guard allocation first: where negative indices are not wrapped,
        # the reads before u land in it rather than outside the memory pool)
        guard = cuda.device_array(4096)
        out = cuda.device_array_like(u)
        periodic_laplacian[3, 128](cuda.to_device(u), out)
        del guard
        out2 = cuda.device_array((2, a.shape[1]))
        corners[1, 64](cuda.to_device(a), out2)
        return out.copy_to_host(), out2.copy_to_host()

    def ref(u, a):
        return (np.roll(u, 1) - 2 * u + np.roll(u, -1),
                np.stack([a[-1] - a[0, ::-1], a[-2, ::-1]]))

    return Case(make, run, ref, rtol=1e-12, atol=1e-12)


NEIGHBOURS = ((0, 1), (1, 0), (0, -1), (-1, 0))
DT = np.float32(0.05)
DIFFUSION = 1 / 3


@case
def nested_global_tuple_unpack_loop():
    @cuda.jit
    def diffuse(c, out):
        i, j = cuda.grid(2)
        h, w = c.shape
        if 0 < i < h - 1 and 0 < j < w - 1:
            flux = np.float32(0)
            for di, dj in NEIGHBOURS:
                flux += c[i + di, j + dj] - c[i, j]
            out[i, j] = c[i, j] + DT * DIFFUSION * flux
        elif i < h and j < w:
            out[i, j] = c[i, j]

    def make(rng):
        return (rng.random((30, 40)).astype(np.float32),)

    def run(c):
        out = cuda.device_array_like(c)
        diffuse[(4, 5), (8, 8)](cuda.to_device(c), out)
        return out.copy_to_host()

    def ref(c):
        c64 = c.astype(np.float64)
        out = c64.copy()
        flux = c64[1:-1, 2:] + c64[2:, 1:-1] + c64[1:-1, :-2] + c64[:-2, 1:-1] - 4 * c64[1:-1, 1:-1]
        out[1:-1, 1:-1] = c64[1:-1, 1:-1] + float(DT) * DIFFUSION * flux
        return out.astype(np.float32)

    return Case(make, run, ref, rtol=1e-5, atol=1e-6)
