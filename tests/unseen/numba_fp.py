"""Floating-point kernels written the way numba.cuda users write them: long
dot products and row sums of float32 data into `s = 0.0` / `s = 0`
accumulators, softmax / log-sum-exp / layer and RMS norms, activations,
attention scores, convolutions and pooling, heat / wave / Gauss-Seidel
stencils, particle forces with softening, RK4 per thread, Monte-Carlo with
xoroshiro128p, fractals in complex128 and in float32 parts, Horner
polynomials, interpolation, float16 and complex64 arrays, NaN and infinity
handling, rounding of negative numbers, one kernel launched with float32 and
float64 arrays, and np.float32 constants where the author wanted float32.

What the cases check is what compiled Numba computes: a Python float is a
float64 (`x_f32 * 0.5` is float64), a `s = 0.0` or `s = 0` accumulator
meets float32 items in float64, math functions of float32 stay float32,
np.float32(...) constants keep float32.  Their tolerances are those a
Numba user's test would use; where the point of a case is the float64
accumulator, a float32 accumulation fails them.

The module imports neither cujit nor numba: load(api, tag) gives a copy of
it in which the global `cuda` is the API module (cujit.cuda, numba.cuda or
Numba's simulator), as after a user's `from numba import cuda`.  CASES
lists functions that take no argument and return a Case (see Case below).
Numba's simulator follows NumPy's promotion (a Python float beside a
float32 stays float32), so the kernels were checked there with
UNSEEN_FP_LOOSE=1, which widens the tolerances of the cases that depend on
float64 accumulation.

tests/gpu/test_unseen_numba_fp.py runs every case on the GPU (under cujit,
and under numba-cuda where it is installed); tests/test_unseen_numba_fp_nogpu.py
compiles and runs every case on the fake driver, checking values on the
host where the kernels' threads need not run together."""
import cmath
import math
import os

import numpy
import numpy as np

import corpus  # tests/unseen is on sys.path
from corpus import blocks_for  # noqa: F401

try:
    cuda  # noqa: B018  (set by load() before the module's code runs)
except NameError:
    cuda = None

CASES, case = corpus.registry()
LOOSE = os.environ.get("UNSEEN_FP_LOOSE") == "1"

# cases where cujit knowingly differs from Numba: xfail(strict=True) under cujit
CUJIT_XFAIL = {}


def load(api, tag):
    """A fresh copy of this module whose kernels see `api` as the global
    `cuda`; each API gets its own copy, so kernels compiled by one never
    see the other's module."""
    return corpus.load(__file__, "%s_%s" % (__name__, tag), api)


class Case(corpus.Case):
    """corpus.Case with what a float case adds: the results' dtypes are the
    references' (unless LOOSE); wide: the tolerances assume Numba's float64
    accumulation (UNSEEN_FP_LOOSE widens them)."""
    ATOL = 0.0

    def __init__(self, *args, wide=False, **kwargs):
        super().__init__(*args, **kwargs)
        if wide and LOOSE:
            self.rtol, self.atol = max(self.rtol, 0.1), max(self.atol, 1e-3)

    def compare(self, g, w):
        if not LOOSE:
            assert g.dtype == w.dtype, (g.dtype, w.dtype)
        super().compare(g, w)


def _random():
    import importlib
    return importlib.import_module(cuda.__name__ + ".random")


def _f64_sum(terms, axis=-1):
    """terms summed in float64 (what a float64 accumulator gives)"""
    return np.asarray(terms, dtype=np.float64).sum(axis=axis)


# ---- long accumulations of float32 data ----

@case
def dot_rows_float_accumulator():
    @cuda.jit
    def matvec(A, x, y):
        row = cuda.grid(1)
        if row < A.shape[0]:
            s = 0.0
            for j in range(A.shape[1]):
                s += A[row, j] * x[j]
            y[row] = s

    def make(rng):
        return (rng.random((64, 20000), dtype=np.float32), rng.random(20000, dtype=np.float32))

    def run(A, x):
        y = np.zeros(A.shape[0], dtype=np.float64)
        matvec[2, 32](A, x, y)
        return y

    # Numba: float32 * float32 is float32, added to the float64 s
    return Case(make, run, lambda A, x: _f64_sum(A * x), rtol=1e-8, wide=True)


@case
def row_sums_int_zero_start():
    @cuda.jit
    def row_sums(a, out):
        i = cuda.grid(1)
        if i >= a.shape[0]:
            return
        total = 0                    # an int: meets float32 in float64 (Numba)
        for j in range(a.shape[1]):
            total += a[i, j]
        out[i] = total

    def make(rng):
        return (rng.uniform(0.0, 100.0, (100, 30000)).astype(np.float32),)

    def run(a):
        out = np.empty(a.shape[0], dtype=np.float32)
        row_sums[4, 32](a, out)
        return out

    # float32 accumulation would be off by ~1e-4 relative; float64's rounds once
    return Case(make, run, lambda a: _f64_sum(a).astype(np.float32), rtol=2e-7, wide=True)


@case
def one_pass_variance():
    @cuda.jit
    def stats(x, mean, var):
        r = cuda.grid(1)
        if r < x.shape[0]:
            n = x.shape[1]
            s = 0.0
            s2 = 0.0
            for k in range(n):
                v = x[r, k]
                s += v
                s2 += v * v
            m = s / n
            mean[r] = m
            var[r] = s2 / n - m * m

    def make(rng):
        return ((100.0 + rng.standard_normal((48, 4000))).astype(np.float32),)

    def run(x):
        d_x = cuda.to_device(x)
        mean = cuda.device_array(x.shape[0], dtype=np.float64)
        var = cuda.device_array(x.shape[0], dtype=np.float64)
        stats[1, 64](d_x, mean, var)
        return mean.copy_to_host(), var.copy_to_host()

    def ref(x):
        n = x.shape[1]
        m = _f64_sum(x) / n
        return m, _f64_sum(x * x) / n - m * m    # v * v is a float32 product

    def check(got, want, inputs):
        # a float32 accumulator misses the mean by ~1e-6 and the variance
        # (s2 / n - m * m, cancelling) by per cents
        np.testing.assert_allclose(got[0], want[0], rtol=1e-9)
        np.testing.assert_allclose(got[1], want[1], rtol=2e-4 if not LOOSE else 0.1)

    return Case(make, run, ref, check=check)


@case
def kahan_float32_on_purpose():
    @cuda.jit
    def kahan_rows(a, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            s = np.float32(0.0)
            c = np.float32(0.0)
            for j in range(a.shape[1]):
                y = a[i, j] - c
                t = s + y
                c = (t - s) - y
                s = t
            out[i] = s

    def make(rng):
        return (rng.random((32, 50000), dtype=np.float32),)

    def run(a):
        out = np.zeros(a.shape[0], dtype=np.float32)
        kahan_rows[1, 32](a, out)
        return out

    return Case(make, run, lambda a: _f64_sum(a).astype(np.float32), rtol=3e-7)


TPB = 128


@case
def dot_block_reduce_atomic():
    @cuda.jit
    def dot(a, b, result):
        cache = cuda.shared.array(TPB, dtype=numpy.float64)
        tid = cuda.threadIdx.x
        i = cuda.grid(1)
        temp = 0.0
        while i < a.shape[0]:
            temp += a[i] * b[i]
            i += cuda.gridDim.x * cuda.blockDim.x
        cache[tid] = temp
        cuda.syncthreads()
        half = cuda.blockDim.x // 2
        while half > 0:
            if tid < half:
                cache[tid] += cache[tid + half]
            cuda.syncthreads()
            half //= 2
        if tid == 0:
            cuda.atomic.add(result, 0, cache[0])

    def make(rng):
        return (rng.standard_normal(300000).astype(np.float32),
                rng.standard_normal(300000).astype(np.float32))

    def run(a, b):
        res = cuda.to_device(np.zeros(1, dtype=np.float64))
        dot[16, TPB](cuda.to_device(a), cuda.to_device(b), res)
        return res.copy_to_host()

    return Case(make, run, lambda a, b: np.array([_f64_sum(a * b)]), rtol=1e-7, atol=5e-5,
                coop=True, wide=True)


@case
def welford_rows():
    @cuda.jit(device=True)
    def welford_update(count, mean, m2, x):
        count += 1
        delta = x - mean
        mean += delta / count
        m2 += delta * (x - mean)
        return count, mean, m2

    @cuda.jit
    def row_stats(data, out):
        r = cuda.grid(1)
        if r < data.shape[0]:
            count, mean, m2 = 0, 0.0, 0.0
            for c in range(data.shape[1]):
                count, mean, m2 = welford_update(count, mean, m2, data[r, c])
            out[r, 0] = mean
            out[r, 1] = m2 / (count - 1)

    def make(rng):
        return ((1000.0 + 3.0 * rng.standard_normal((40, 5000))).astype(np.float32),)

    def run(data):
        out = np.zeros((data.shape[0], 2))
        row_stats[2, 32](data, out)
        return out

    def ref(data):
        d = data.astype(np.float64)
        return np.stack([d.mean(axis=1), d.var(axis=1, ddof=1)], axis=1)

    return Case(make, run, ref, rtol=1e-9, wide=True)


@case
def trapezoid_rows():
    DX = 0.001

    @cuda.jit
    def trapz(y, out):
        i = cuda.grid(1)
        if i < y.shape[0]:
            acc = 0.0
            for j in range(y.shape[1] - 1):
                acc += 0.5 * (y[i, j] + y[i, j + 1]) * DX
            out[i] = acc

    def make(rng):
        t = np.linspace(0.0, 1.0, 10001)
        f = rng.uniform(1.0, 5.0, (50, 1))
        return ((np.sin(f * t) + 2.0).astype(np.float32),)

    def run(y):
        out = np.zeros(y.shape[0])
        trapz[1, 64](y, out)
        return out

    def ref(y):
        # y[i, j] + y[i, j + 1] adds float32s; 0.5 * that is float64
        pair = (y[:, :-1] + y[:, 1:]).astype(np.float64)
        return (0.5 * pair * DX).sum(axis=1)

    return Case(make, run, ref, rtol=1e-11, wide=True)


# ---- ML rows ----

@case
def softmax_rows():
    @cuda.jit
    def softmax(x, out):
        row = cuda.grid(1)
        if row >= x.shape[0]:
            return
        m = x[row, 0]
        for j in range(1, x.shape[1]):
            m = max(m, x[row, j])
        denom = 0.0
        for j in range(x.shape[1]):
            denom += math.exp(x[row, j] - m)
        for j in range(x.shape[1]):
            out[row, j] = math.exp(x[row, j] - m) / denom

    def make(rng):
        return ((4.0 * rng.standard_normal((200, 300))).astype(np.float32),)

    def run(x):
        out = np.zeros_like(x)
        softmax[blocks_for(x.shape[0], 64), 64](x, out)
        return out

    def ref(x):
        e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
        return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)

    return Case(make, run, ref, rtol=2e-6, atol=1e-12)


@case
def logsumexp_rows():
    @cuda.jit
    def lse(x, out):
        i = cuda.grid(1)
        if i < x.shape[0]:
            hi = -math.inf
            for j in range(x.shape[1]):
                if x[i, j] > hi:
                    hi = x[i, j]
            acc = 0.0
            for j in range(x.shape[1]):
                acc += math.exp(x[i, j] - hi)
            out[i] = hi + math.log(acc)

    def make(rng):
        return ((30.0 * rng.standard_normal((128, 2000))).astype(np.float32),)

    def run(x):
        out = np.zeros(x.shape[0], dtype=np.float64)
        lse[2, 64](x, out)
        return out

    def ref(x):
        x = x.astype(np.float64)
        m = x.max(axis=1)
        return m + np.log(np.exp(x - m[:, None]).sum(axis=1))

    return Case(make, run, ref, rtol=1e-6)


EPS = 1e-5


@case
def layer_norm_rows():
    @cuda.jit
    def layernorm(x, gamma, beta, y):
        r = cuda.grid(1)
        if r < x.shape[0]:
            n = x.shape[1]
            mu = 0.0
            for c in range(n):
                mu += x[r, c]
            mu /= n
            var = 0.0
            for c in range(n):
                d = x[r, c] - mu
                var += d * d
            var /= n
            inv = 1.0 / math.sqrt(var + EPS)
            for c in range(n):
                y[r, c] = (x[r, c] - mu) * inv * gamma[c] + beta[c]

    def make(rng):
        n = 768
        return ((5.0 + 2.0 * rng.standard_normal((64, n))).astype(np.float32),
                rng.uniform(0.5, 1.5, n).astype(np.float32),
                rng.uniform(-0.5, 0.5, n).astype(np.float32))

    def run(x, g, b):
        y = cuda.device_array_like(x)
        layernorm[2, 32](cuda.to_device(x), cuda.to_device(g), cuda.to_device(b), y)
        return y.copy_to_host()

    def ref(x, g, b):
        x64 = x.astype(np.float64)
        mu = x64.mean(axis=1, keepdims=True)
        var = ((x64 - mu) ** 2).mean(axis=1, keepdims=True)
        return ((x64 - mu) / np.sqrt(var + EPS) * g + b).astype(np.float32)

    return Case(make, run, ref, rtol=1e-5, atol=1e-6, wide=True)


@case
def rms_norm_rows():
    @cuda.jit
    def rmsnorm(x, w, out, eps):
        row = cuda.blockIdx.x
        col = cuda.threadIdx.x
        if row < x.shape[0]:
            ss = 0
            for k in range(x.shape[1]):
                ss += x[row, k] * x[row, k]
            scale = 1 / math.sqrt(ss / x.shape[1] + eps)
            k = col
            while k < x.shape[1]:
                out[row, k] = x[row, k] * scale * w[k]
                k += cuda.blockDim.x

    def make(rng):
        return (rng.standard_normal((96, 1024)).astype(np.float32),
                rng.uniform(0.5, 2.0, 1024).astype(np.float32))

    def run(x, w):
        out = np.zeros_like(x)
        rmsnorm[x.shape[0], 128](x, w, out, 1e-6)
        return out

    def ref(x, w):
        ss = _f64_sum(x * x)
        scale = 1.0 / np.sqrt(ss / x.shape[1] + 1e-6)
        return (x * scale[:, None] * w).astype(np.float32)

    return Case(make, run, ref, rtol=2e-6, atol=1e-7)


SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


@cuda.jit(device=True) if cuda is not None else (lambda f: f)
def gelu_tanh(x):
    return 0.5 * x * (1.0 + math.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x ** 3)))


@case
def gelu_sigmoid_silu_activations():
    @cuda.jit
    def activations(x, gelu, sig, silu, erfgelu):
        i = cuda.grid(1)
        if i < x.size:
            v = x[i]
            gelu[i] = gelu_tanh(v)
            sig[i] = 1 / (1 + math.exp(-v))
            one = np.float32(1.0)
            silu[i] = v / (one + math.exp(-v))       # float32 on purpose
            erfgelu[i] = 0.5 * v * (1.0 + math.erf(v / math.sqrt(2.0)))

    def make(rng):
        return ((3.0 * rng.standard_normal(50000)).astype(np.float32),)

    def run(x):
        outs = [np.zeros_like(x) for _ in range(4)]
        activations[blocks_for(x.size, 256), 256](x, *outs)
        return tuple(outs)

    def ref(x):
        v = x.astype(np.float64)
        gelu = 0.5 * v * (1.0 + np.tanh(SQRT_2_OVER_PI * (v + 0.044715 * v ** 3)))
        sig = 1.0 / (1.0 + np.exp(-v))
        silu = x / (np.float32(1.0) + np.exp(-x))
        erf = np.vectorize(math.erf)
        eg = 0.5 * v * (1.0 + erf(v / math.sqrt(2.0)))
        return tuple(a.astype(np.float32) for a in (gelu, sig, silu, eg))

    return Case(make, run, ref, rtol=3e-6, atol=1e-7)


@case
def leaky_relu_clip_mixed_minmax():
    @cuda.jit
    def act(x, leaky, clipped, hardsig):
        i = cuda.grid(1)
        if i < x.shape[0]:
            leaky[i] = max(x[i], 0.01 * x[i])
            clipped[i] = min(max(x[i], -1.0), 1.0)
            hardsig[i] = max(0, min(1, x[i] / 6 + 0.5))

    def make(rng):
        return ((4.0 * rng.standard_normal(20000)).astype(np.float32),)

    def run(x):
        a, b, c = (np.zeros(x.size, np.float64) for _ in range(3))
        act[blocks_for(x.size, 128), 128](x, a, b, c)
        return a, b, c

    def ref(x):
        v = x.astype(np.float64)
        return np.maximum(v, 0.01 * v), np.clip(v, -1.0, 1.0), np.clip(v / 6 + 0.5, 0, 1)

    return Case(make, run, ref, rtol=1e-15, wide=True)


@case
def attention_scores_scaled():
    @cuda.jit
    def scores(q, k, out):
        i, j = cuda.grid(2)
        if i < q.shape[0] and j < k.shape[0]:
            d = q.shape[1]
            scale = 1.0 / math.sqrt(d)
            s = 0.0
            for t in range(d):
                s += q[i, t] * k[j, t]
            out[i, j] = s * scale

    def make(rng):
        return (rng.standard_normal((70, 256)).astype(np.float32),
                rng.standard_normal((90, 256)).astype(np.float32))

    def run(q, k):
        out = cuda.device_array((q.shape[0], k.shape[0]), dtype=np.float32)
        tpb = (16, 16)
        bpg = (blocks_for(q.shape[0], 16), blocks_for(k.shape[0], 16))
        scores[bpg, tpb](cuda.to_device(q), cuda.to_device(k), out)
        return out.copy_to_host()

    def ref(q, k):
        s = _f64_sum(q[:, None, :] * k[None, :, :])
        return (s * (1.0 / math.sqrt(q.shape[1]))).astype(np.float32)

    return Case(make, run, ref, rtol=1e-6, atol=1e-6, wide=True)


# ---- convolution and pooling ----

@case
def conv1d_valid_float32_weights():
    @cuda.jit
    def conv1d(signal, w, out):
        i = cuda.grid(1)
        K = w.shape[0]
        if i < out.shape[0]:
            acc = 0.0
            for k in range(K):
                acc += signal[i + k] * w[K - 1 - k]
            out[i] = acc

    def make(rng):
        return (rng.standard_normal(100000).astype(np.float32),
                rng.standard_normal(31).astype(np.float32))

    def run(s, w):
        out = np.zeros(s.size - w.size + 1, dtype=np.float64)
        conv1d[blocks_for(out.size, 256), 256](s, w, out)
        return out

    def ref(s, w):
        K = w.size
        win = np.lib.stride_tricks.sliding_window_view(s, K)
        return _f64_sum(win * w[::-1])

    return Case(make, run, ref, rtol=2e-6, atol=2e-6)


@case
def conv2d_same_zero_padding():
    @cuda.jit
    def conv2d(img, kern, out):
        y, x = cuda.grid(2)
        H, W = img.shape
        kh, kw = kern.shape
        ry, rx = kh // 2, kw // 2
        if y >= H or x >= W:
            return
        acc = 0.0
        for dy in range(-ry, ry + 1):
            for dx in range(-rx, rx + 1):
                yy, xx = y + dy, x + dx
                if 0 <= yy < H and 0 <= xx < W:
                    acc += img[yy, xx] * kern[dy + ry, dx + rx]
        out[y, x] = acc

    def make(rng):
        return (rng.random((120, 97), dtype=np.float32),
                rng.standard_normal((5, 5)).astype(np.float32))

    def run(img, kern):
        out = np.zeros_like(img)
        conv2d[(blocks_for(120, 16), blocks_for(97, 16)), (16, 16)](img, kern, out)
        return out

    def ref(img, kern):
        H, W = img.shape
        p = np.pad(img, 2)
        acc = np.zeros((H, W))
        for dy in range(5):
            for dx in range(5):
                acc += (p[dy:dy + H, dx:dx + W] * kern[dy, dx]).astype(np.float64)
        return acc.astype(np.float32)

    return Case(make, run, ref, rtol=1e-6, atol=1e-6)


@case
def pooling_max_avg():
    @cuda.jit
    def pool2x2(img, mx, avg):
        i, j = cuda.grid(2)
        if i < mx.shape[0] and j < mx.shape[1]:
            a = img[2 * i, 2 * j]
            b = img[2 * i, 2 * j + 1]
            c = img[2 * i + 1, 2 * j]
            d = img[2 * i + 1, 2 * j + 1]
            mx[i, j] = max(a, b, c, d)
            avg[i, j] = (a + b + c + d) * 0.25

    def make(rng):
        return (rng.standard_normal((256, 300)).astype(np.float32),)

    def run(img):
        mx = np.zeros((128, 150), np.float32)
        avg = np.zeros((128, 150), np.float64)
        pool2x2[(8, 10), (16, 16)](img, mx, avg)
        return mx, avg

    def ref(img):
        a, b = img[0::2, 0::2], img[0::2, 1::2]
        c, d = img[1::2, 0::2], img[1::2, 1::2]
        mx = np.maximum(np.maximum(a, b), np.maximum(c, d))
        return mx, ((a + b + c + d) * 0.25).astype(np.float64)   # float32 sum, float64 scale

    return Case(make, run, ref, rtol=0, atol=0)


# ---- PDE stencils ----

@case
def jacobi_heat_2d_float64():
    @cuda.jit
    def jacobi(u, unew):
        i, j = cuda.grid(2)
        n, m = u.shape
        if 0 < i < n - 1 and 0 < j < m - 1:
            unew[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])

    def make(rng):
        u = np.zeros((64, 80))
        u[0, :] = rng.uniform(50, 100, 80)
        u[:, 0] = rng.uniform(0, 20, 64)
        u[1:-1, 1:-1] = rng.random((62, 78))
        return (u,)

    def run(u0):
        a = cuda.to_device(u0)
        b = cuda.to_device(u0)
        grid = (blocks_for(64, 16), blocks_for(80, 16))
        for _ in range(100):
            jacobi[grid, (16, 16)](a, b)
            a, b = b, a
        return a.copy_to_host()

    def ref(u0):
        u = u0.copy()
        for _ in range(100):
            v = u.copy()
            v[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
            u = v
        return u

    return Case(make, run, ref, rtol=1e-12, atol=1e-12)


@case
def red_black_gauss_seidel_float32():
    @cuda.jit
    def sweep(u, f, h2, color):
        i, j = cuda.grid(2)
        if i < 1 or j < 1 or i >= u.shape[0] - 1 or j >= u.shape[1] - 1:
            return
        if (i + j) % 2 != color:
            return
        u[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - h2 * f[i, j])

    def make(rng):
        u = rng.random((48, 40)).astype(np.float32)
        f = rng.standard_normal((48, 40)).astype(np.float32)
        return u, f

    def run(u0, f):
        u = cuda.to_device(u0)
        df = cuda.to_device(f)
        h2 = np.float32(1.0 / 47 ** 2)
        for _ in range(30):
            for color in (0, 1):
                sweep[(3, 3), (16, 16)](u, df, h2, color)
        return u.copy_to_host()

    def ref(u0, f):
        u = u0.copy()
        h2 = np.float32(1.0 / 47 ** 2)
        I, J = np.meshgrid(np.arange(48), np.arange(40), indexing="ij")
        inner = (I > 0) & (J > 0) & (I < 47) & (J < 39)
        for _ in range(30):
            for color in (0, 1):
                m = inner & ((I + J) % 2 == color)
                s = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - h2 * f[1:-1, 1:-1]
                new = (0.25 * s.astype(np.float64)).astype(np.float32)
                u[1:-1, 1:-1] = np.where(m[1:-1, 1:-1], new, u[1:-1, 1:-1])
        return u

    # float32 sums (the GPU may fuse h2 * f into the subtraction)
    return Case(make, run, ref, rtol=1e-5, atol=1e-6)


C_WAVE, DX_WAVE, DT_WAVE = 1.0, 0.01, 0.005


@case
def wave_leapfrog_1d():
    @cuda.jit
    def leapfrog(prev, cur, nxt):
        i = cuda.grid(1)
        n = cur.shape[0]
        c2 = (C_WAVE * DT_WAVE / DX_WAVE) ** 2
        if i == 0 or i == n - 1:
            if i < n:
                nxt[i] = 0.0
        elif i < n:
            nxt[i] = 2 * cur[i] - prev[i] + c2 * (cur[i + 1] - 2 * cur[i] + cur[i - 1])

    def make(rng):
        x = np.linspace(0, 1, 401)
        k = rng.integers(1, 6)
        u0 = np.sin(k * np.pi * x) * rng.uniform(0.5, 1.5)
        return (u0,)

    def run(u0):
        prev = cuda.to_device(u0)
        cur = cuda.to_device(u0)
        nxt = cuda.device_array_like(u0)
        for _ in range(300):
            leapfrog[blocks_for(u0.size, 128), 128](prev, cur, nxt)
            prev, cur, nxt = cur, nxt, prev
        return cur.copy_to_host()

    def ref(u0):
        c2 = (C_WAVE * DT_WAVE / DX_WAVE) ** 2
        prev, cur = u0.copy(), u0.copy()
        for _ in range(300):
            nxt = np.zeros_like(cur)
            nxt[1:-1] = 2 * cur[1:-1] - prev[1:-1] + c2 * (cur[2:] - 2 * cur[1:-1] + cur[:-2])
            prev, cur = cur, nxt
        return cur

    return Case(make, run, ref, rtol=1e-9, atol=1e-11)


# ---- particles ----

SOFT2 = 1e-3


@case
def lennard_jones_softened_forces():
    @cuda.jit
    def lj_forces(pos, force, n):
        i = cuda.grid(1)
        if i >= n:
            return
        xi, yi, zi = pos[i, 0], pos[i, 1], pos[i, 2]
        fx = fy = fz = 0.0
        for j in range(n):
            if j == i:
                continue
            dx = xi - pos[j, 0]
            dy = yi - pos[j, 1]
            dz = zi - pos[j, 2]
            r2 = dx * dx + dy * dy + dz * dz + SOFT2
            inv2 = 1.0 / r2
            inv6 = inv2 * inv2 * inv2
            f = 24.0 * inv2 * inv6 * (2.0 * inv6 - 1.0)
            fx += f * dx
            fy += f * dy
            fz += f * dz
        force[i, 0] = fx
        force[i, 1] = fy
        force[i, 2] = fz

    def make(rng):
        g = np.stack(np.meshgrid(np.arange(6), np.arange(6), np.arange(6)), -1).reshape(-1, 3)
        pos = 1.5 * g + rng.uniform(-0.2, 0.2, g.shape)
        return (pos.astype(np.float32),)

    def run(pos):
        n = pos.shape[0]
        force = np.zeros((n, 3), dtype=np.float64)
        lj_forces[blocks_for(n, 64), 64](pos, force, n)
        return force

    def ref(pos):
        d = pos[:, None, :] - pos[None, :, :]              # float32 differences
        d2 = (d * d).sum(axis=-1).astype(np.float64)        # float32 products and sums
        # the kernel's dx * dx + dy * dy + dz * dz adds in order, in float32
        d2 = (((d[..., 0] * d[..., 0]) + d[..., 1] * d[..., 1]) + d[..., 2] * d[..., 2])
        r2 = d2.astype(np.float64) + SOFT2
        inv2 = 1.0 / r2
        inv6 = inv2 ** 3
        f = 24.0 * inv2 * inv6 * (2.0 * inv6 - 1.0)
        np.fill_diagonal(f, 0.0)
        return (f[..., None] * d.astype(np.float64)).sum(axis=1)

    def check(got, want, inputs):
        (g,), (w,) = got, want
        scale = np.abs(w).max()
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=2e-6 * scale)

    return Case(make, run, ref, check=check if not LOOSE else None, rtol=1e-3, atol=1e-3)


G_CONST = 1.0


@case
def gravity_softened_accelerations_shared_tiles():
    @cuda.jit
    def accel(pos, mass, acc, eps2):
        sx = cuda.shared.array(TPB, dtype=numpy.float64)
        sy = cuda.shared.array(TPB, dtype=numpy.float64)
        sm = cuda.shared.array(TPB, dtype=numpy.float64)
        i = cuda.grid(1)
        t = cuda.threadIdx.x
        n = pos.shape[0]
        xi = pos[i, 0] if i < n else 0.0
        yi = pos[i, 1] if i < n else 0.0
        ax = 0.0
        ay = 0.0
        for tile in range((n + TPB - 1) // TPB):
            j = tile * TPB + t
            if j < n:
                sx[t] = pos[j, 0]
                sy[t] = pos[j, 1]
                sm[t] = mass[j]
            else:
                sx[t] = 0.0
                sy[t] = 0.0
                sm[t] = 0.0
            cuda.syncthreads()
            for k in range(TPB):
                dx = sx[k] - xi
                dy = sy[k] - yi
                r2 = dx * dx + dy * dy + eps2
                inv_r3 = 1.0 / (r2 * math.sqrt(r2))
                ax += G_CONST * sm[k] * dx * inv_r3
                ay += G_CONST * sm[k] * dy * inv_r3
            cuda.syncthreads()
        if i < n:
            acc[i, 0] = ax
            acc[i, 1] = ay

    def make(rng):
        return rng.standard_normal((300, 2)), rng.uniform(0.5, 1.5, 300)

    def run(pos, mass):
        acc = np.zeros_like(pos)
        accel[blocks_for(300, TPB), TPB](pos, mass, acc, 0.01)
        return acc

    def ref(pos, mass):
        d = pos[None, :, :] - pos[:, None, :]
        r2 = (d ** 2).sum(-1) + 0.01
        return (mass[None, :, None] * d / (r2 * np.sqrt(r2))[..., None]).sum(axis=1)

    return Case(make, run, ref, rtol=1e-10, atol=1e-10, coop=True)


# ---- ODEs per thread ----

@case
def rk4_damped_oscillators():
    DT = 0.01

    @cuda.jit(device=True)
    def deriv(x, v, k, c):
        return v, -k * x - c * v

    @cuda.jit
    def integrate(x0, v0, k, c, steps, out):
        i = cuda.grid(1)
        if i >= x0.shape[0]:
            return
        x, v = x0[i], v0[i]
        for _ in range(steps):
            k1x, k1v = deriv(x, v, k[i], c[i])
            k2x, k2v = deriv(x + 0.5 * DT * k1x, v + 0.5 * DT * k1v, k[i], c[i])
            k3x, k3v = deriv(x + 0.5 * DT * k2x, v + 0.5 * DT * k2v, k[i], c[i])
            k4x, k4v = deriv(x + DT * k3x, v + DT * k3v, k[i], c[i])
            x += DT / 6.0 * (k1x + 2 * k2x + 2 * k3x + k4x)
            v += DT / 6.0 * (k1v + 2 * k2v + 2 * k3v + k4v)
        out[i, 0] = x
        out[i, 1] = v

    def make(rng):
        n = 500
        return (rng.uniform(-1, 1, n), rng.uniform(-1, 1, n), rng.uniform(1, 10, n),
                rng.uniform(0.1, 1.0, n))

    def run(x0, v0, k, c):
        out = np.zeros((x0.size, 2))
        integrate[blocks_for(x0.size, 128), 128](x0, v0, k, c, 400, out)
        return out

    def ref(x0, v0, k, c):
        x, v = x0.copy(), v0.copy()

        def f(x, v):
            return v, -k * x - c * v
        for _ in range(400):
            k1x, k1v = f(x, v)
            k2x, k2v = f(x + 0.5 * DT * k1x, v + 0.5 * DT * k1v)
            k3x, k3v = f(x + 0.5 * DT * k2x, v + 0.5 * DT * k2v)
            k4x, k4v = f(x + DT * k3x, v + DT * k3v)
            x = x + DT / 6.0 * (k1x + 2 * k2x + 2 * k3x + k4x)
            v = v + DT / 6.0 * (k1v + 2 * k2v + 2 * k3v + k4v)
        return np.stack([x, v], axis=1)

    return Case(make, run, ref, rtol=1e-9, atol=1e-12)


@case
def rk4_logistic_float32_state_widens():
    @cuda.jit
    def logistic(y0, r, T, out):
        i = cuda.grid(1)
        if i < y0.size:
            y = y0[i]                # float32 ...
            h = 0.01
            for _ in range(int(T / h)):
                k1 = r[i] * y * (1 - y)
                k2 = r[i] * (y + h / 2 * k1) * (1 - (y + h / 2 * k1))
                k3 = r[i] * (y + h / 2 * k2) * (1 - (y + h / 2 * k2))
                k4 = r[i] * (y + h * k3) * (1 - (y + h * k3))
                y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)    # ... float64 from here (Numba)
            out[i] = y

    def make(rng):
        return (rng.uniform(0.01, 0.2, 1000).astype(np.float32),
                rng.uniform(0.5, 2.0, 1000).astype(np.float32))

    def run(y0, r):
        out = np.zeros(y0.size, dtype=np.float64)
        logistic[blocks_for(1000, 256), 256](y0, r, 5.0, out)
        return out

    def ref(y0, r):
        y = y0.astype(np.float64)
        r = r.astype(np.float64)
        h = 0.01
        for _ in range(int(5.0 / h)):
            k1 = r * y * (1 - y)
            k2 = r * (y + h / 2 * k1) * (1 - (y + h / 2 * k1))
            k3 = r * (y + h / 2 * k2) * (1 - (y + h / 2 * k2))
            k4 = r * (y + h * k3) * (1 - (y + h * k3))
            y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        return y

    return Case(make, run, ref, rtol=1e-11, wide=True)


# ---- Monte-Carlo ----

@case
def monte_carlo_pi_float32_draws():
    rnd = _random()
    from numpy import float32 as f32  # noqa: F401  (users import names like this)

    @cuda.jit
    def pi_kernel(states, iterations, out):
        tid = cuda.grid(1)
        inside = 0
        for _ in range(iterations):
            x = rnd.xoroshiro128p_uniform_float32(states, tid)
            y = rnd.xoroshiro128p_uniform_float32(states, tid)
            if x ** 2 + y ** 2 <= 1.0:
                inside += 1
        out[tid] = 4.0 * inside / iterations

    def make(rng):
        return (int(rng.integers(1, 2 ** 31)),)

    def run(seed):
        threads, blocks = 64, 24
        states = rnd.create_xoroshiro128p_states(threads * blocks, seed=seed)
        out = np.zeros(threads * blocks, dtype=np.float32)
        pi_kernel[blocks, threads](states, 500, out)
        return (out,)

    def check(got, want, inputs):
        (out,) = got
        assert out.dtype == np.float32
        assert abs(out.mean() - math.pi) < 0.02, out.mean()
        # each thread's estimate is 4 * k / 500 exactly (rounded to float32)
        k = np.round(out.astype(np.float64) * 125.0)
        np.testing.assert_allclose(out, (4.0 * k / 500).astype(np.float32), rtol=0)
        assert len(np.unique(out)) > 10

    return Case(make, run, check=check)


@case
def monte_carlo_european_call_float64():
    rnd = _random()

    @cuda.jit
    def price_paths(states, S0, K, r, sigma, T, npaths, out):
        tid = cuda.grid(1)
        if tid >= out.shape[0]:
            return
        drift = (r - 0.5 * sigma * sigma) * T
        vol = sigma * math.sqrt(T)
        payoff = 0.0
        for _ in range(npaths):
            z = rnd.xoroshiro128p_normal_float64(states, tid)
            ST = S0 * math.exp(drift + vol * z)
            payoff += max(ST - K, 0.0)
        out[tid] = math.exp(-r * T) * payoff / npaths

    def make(rng):
        return (int(rng.integers(1, 2 ** 31)), rng.uniform(90, 110), rng.uniform(95, 105))

    def run(seed, S0, K):
        n = 4096
        states = rnd.create_xoroshiro128p_states(n, seed=seed)
        out = cuda.device_array(n, dtype=np.float64)
        price_paths[n // 128, 128](states, S0, K, 0.03, 0.25, 1.0, 200, out)
        return (out.copy_to_host(),)

    def check(got, want, inputs):
        (out,) = got
        _, S0, K = inputs
        d1 = (math.log(S0 / K) + (0.03 + 0.5 * 0.25 ** 2)) / 0.25
        d2 = d1 - 0.25
        N = lambda d: 0.5 * (1.0 + math.erf(d / math.sqrt(2.0)))  # noqa: E731
        exact = S0 * N(d1) - K * math.exp(-0.03) * N(d2)
        se = out.std() / math.sqrt(out.size)
        assert abs(out.mean() - exact) < 5 * se + 1e-3, (out.mean(), exact, se)
        assert len(np.unique(out)) == out.size

    return Case(make, run, check=check)


@case
def monte_carlo_moments_normal_float32():
    rnd = _random()
    normal32 = rnd.xoroshiro128p_normal_float32

    @cuda.jit
    def moments(states, n, out):
        t = cuda.grid(1)
        if t < out.shape[0]:
            s1 = 0.0
            s2 = 0.0
            s4 = 0.0
            for _ in range(n):
                z = normal32(states, t)
                z2 = z * z
                s1 += z
                s2 += z2
                s4 += z2 * z2
            out[t, 0] = s1 / n
            out[t, 1] = s2 / n
            out[t, 2] = s4 / n

    def make(rng):
        return (int(rng.integers(1, 2 ** 31)),)

    def run(seed):
        states = rnd.create_xoroshiro128p_states(2048, seed=seed)
        out = np.zeros((2048, 3))
        moments[16, 128](states, 400, out)
        return (out,)

    def check(got, want, inputs):
        m = got[0].mean(axis=0)
        assert abs(m[0]) < 0.01 and abs(m[1] - 1.0) < 0.01 and abs(m[2] - 3.0) < 0.06, m

    return Case(make, run, check=check)


# ---- fractals ----

def _fraction_equal(frac):
    def check(got, want, inputs):
        (g,), (w,) = got, want
        assert g.shape == w.shape and g.dtype == w.dtype, (g.dtype, w.dtype)
        bad = np.mean(g != w)
        assert bad <= frac, "%.4f of the pixels differ" % bad
    return check


MAX_ITER = 80


@case
def mandelbrot_complex128():
    @cuda.jit(device=True)
    def escape(c, max_iter):
        z = 0j
        for n in range(max_iter):
            z = z * z + c
            if abs(z) > 2.0:
                return n
        return max_iter

    @cuda.jit
    def mandel(xmin, xmax, ymin, ymax, image):
        h, w = image.shape
        row, col = cuda.grid(2)
        if row < h and col < w:
            x = xmin + col * (xmax - xmin) / w
            y = ymin + row * (ymax - ymin) / h
            image[row, col] = escape(complex(x, y), MAX_ITER)

    def make(rng):
        return (rng.uniform(-2.2, -2.0), rng.uniform(0.6, 0.8))

    def run(xmin, xmax):
        img = np.zeros((120, 160), dtype=np.uint16)
        mandel[(8, 10), (16, 16)](xmin, xmax, -1.2, 1.2, img)
        return img

    def ref(xmin, xmax):
        h, w = 120, 160
        col = np.arange(w)
        row = np.arange(h)
        x = xmin + col * (xmax - xmin) / w
        y = -1.2 + row * (1.2 - -1.2) / h
        c = x[None, :] + 1j * y[:, None]
        z = np.zeros_like(c)
        out = np.full(c.shape, MAX_ITER, dtype=np.uint16)
        done = np.zeros(c.shape, bool)
        for n in range(MAX_ITER):
            z = np.where(done, z, z * z + c)
            esc = ~done & (np.abs(z) > 2.0)
            out[esc] = n
            done |= esc
        return out

    return Case(make, run, ref, check=_fraction_equal(0.02))


@case
def julia_float32_parts():
    CR = np.float32(-0.8)
    CI = np.float32(0.156)

    @cuda.jit
    def julia(out, scale):
        j, i = cuda.grid(2)
        h, w = out.shape
        if i >= h or j >= w:
            return
        zr = np.float32(j - w / 2) * scale
        zi = np.float32(i - h / 2) * scale
        n = 0
        while n < 100:
            zr2 = zr * zr
            zi2 = zi * zi
            if zr2 + zi2 > np.float32(4.0):
                break
            zi = np.float32(2.0) * zr * zi + CI
            zr = zr2 - zi2 + CR
            n += 1
        out[i, j] = n

    def make(rng):
        return (np.float32(rng.uniform(0.008, 0.012)),)

    def run(scale):
        out = np.zeros((100, 140), dtype=np.int32)
        julia[(blocks_for(140, 16), blocks_for(100, 16)), (16, 16)](out, scale)
        return out

    def ref(scale):
        h, w = 100, 140
        J, I = np.meshgrid(np.arange(w), np.arange(h))
        zr = (J - w / 2).astype(np.float32) * scale
        zi = (I - h / 2).astype(np.float32) * scale
        out = np.zeros((h, w), np.int32)
        alive = np.ones((h, w), bool)
        for _ in range(100):
            zr2, zi2 = zr * zr, zi * zi
            alive &= ~(zr2 + zi2 > np.float32(4.0))
            nzi = np.float32(2.0) * zr * zi + CI
            nzr = zr2 - zi2 + CR
            zr = np.where(alive, nzr, zr)
            zi = np.where(alive, nzi, zi)
            out += alive
        return out

    return Case(make, run, ref, check=_fraction_equal(0.05))


# ---- polynomials and interpolation ----

COEFFS = (0.5, -1.25, 2.0, 0.75, -3.0, 1.0)


@case
def horner_module_tuple_coefficients():
    @cuda.jit
    def horner(x, out):
        i = cuda.grid(1)
        if i < x.shape[0]:
            acc = 0.0
            for c in COEFFS:
                acc = acc * x[i] + c
            out[i] = acc

    def make(rng):
        return (rng.uniform(-2, 2, 10000).astype(np.float32),)

    def run(x):
        out = np.zeros(x.size)
        horner[blocks_for(x.size, 256), 256](x, out)
        return out

    def ref(x):
        acc = np.zeros(x.size)
        v = x.astype(np.float64)
        for c in COEFFS:
            acc = acc * v + c
        return acc

    # the GPU fuses acc * x + c (one rounding less per step)
    return Case(make, run, ref, rtol=1e-12, atol=1e-13, wide=True)


@case
def horner_float32_array_coefficients():
    @cuda.jit
    def polyval32(coef, x, out):
        i = cuda.grid(1)
        if i < x.size:
            p = np.float32(0)
            for k in range(coef.size):
                p = p * x[i] + coef[k]
            out[i] = p

    def make(rng):
        return (rng.standard_normal(7).astype(np.float32),
                rng.uniform(-1.5, 1.5, 5000).astype(np.float32))

    def run(coef, x):
        out = np.zeros(x.size, dtype=np.float32)
        polyval32[blocks_for(x.size, 128), 128](coef, x, out)
        return out

    def ref(coef, x):
        return np.polyval(coef.astype(np.float64), x.astype(np.float64)).astype(np.float32)

    def check(got, want, inputs):
        (g,), (w,) = got, want
        coef, x = inputs
        assert g.dtype == np.float32
        scale = np.polyval(np.abs(coef).astype(np.float64), np.abs(x).astype(np.float64))
        np.testing.assert_allclose(g, w, rtol=0, atol=1e-5 * scale.max())

    return Case(make, run, ref, check=check)


@case
def linear_interp_uniform_grid():
    @cuda.jit
    def interp(xq, x0, dx, y, out):
        i = cuda.grid(1)
        if i < xq.shape[0]:
            t = (xq[i] - x0) / dx
            k = int(t)
            if k < 0:
                k = 0
            if k > y.shape[0] - 2:
                k = y.shape[0] - 2
            w = t - k
            out[i] = (1 - w) * y[k] + w * y[k + 1]

    def make(rng):
        y = rng.standard_normal(200).astype(np.float32)
        xq = rng.uniform(0.0, 19.9, 5000).astype(np.float32)
        return xq, y

    def run(xq, y):
        out = np.zeros(xq.size)
        interp[blocks_for(xq.size, 128), 128](xq, 0.0, 0.1, y, out)
        return out

    def ref(xq, y):
        xs = np.arange(200) * 0.1
        return np.interp(xq.astype(np.float64), xs, y.astype(np.float64))

    return Case(make, run, ref, rtol=1e-9, atol=1e-9, wide=True)


@case
def bilinear_sample_floor_ceil():
    @cuda.jit
    def sample(img, xs, ys, out):
        i = cuda.grid(1)
        if i >= xs.size:
            return
        x = xs[i]
        y = ys[i]
        x0 = int(math.floor(x))
        y0 = int(math.floor(y))
        x1 = min(int(math.ceil(x)), img.shape[1] - 1)
        y1 = min(int(math.ceil(y)), img.shape[0] - 1)
        fx = x - x0
        fy = y - y0
        top = img[y0, x0] * (1 - fx) + img[y0, x1] * fx
        bot = img[y1, x0] * (1 - fx) + img[y1, x1] * fx
        out[i] = top * (1 - fy) + bot * fy

    def make(rng):
        img = rng.random((64, 48), dtype=np.float32)
        return img, rng.uniform(0, 47, 4000).astype(np.float32), \
            rng.uniform(0, 63, 4000).astype(np.float32)

    def run(img, xs, ys):
        out = np.zeros(xs.size, np.float32)
        sample[blocks_for(xs.size, 256), 256](img, xs, ys, out)
        return out

    def ref(img, xs, ys):
        x, y = xs.astype(np.float64), ys.astype(np.float64)
        x0, y0 = np.floor(x).astype(int), np.floor(y).astype(int)
        x1 = np.minimum(np.ceil(x).astype(int), 47)
        y1 = np.minimum(np.ceil(y).astype(int), 63)
        fx, fy = x - x0, y - y0
        im = img.astype(np.float64)
        top = im[y0, x0] * (1 - fx) + im[y0, x1] * fx
        bot = im[y1, x0] * (1 - fx) + im[y1, x1] * fx
        return (top * (1 - fy) + bot * fy).astype(np.float32)

    return Case(make, run, ref, rtol=1e-6, atol=1e-7)


@case
def resize_bilinear_align_corners():
    @cuda.jit
    def resize(src, dst):
        r, c = cuda.grid(2)
        H, W = src.shape
        h, w = dst.shape
        if r < h and c < w:
            sy = (H - 1) / (h - 1)
            sx = (W - 1) / (w - 1)
            y = r * sy
            x = c * sx
            y0 = int(y)
            x0 = int(x)
            y1 = y0 + 1 if y0 + 1 < H else y0
            x1 = x0 + 1 if x0 + 1 < W else x0
            wy = y - y0
            wx = x - x0
            dst[r, c] = (src[y0, x0] * (1 - wy) * (1 - wx) + src[y0, x1] * (1 - wy) * wx
                         + src[y1, x0] * wy * (1 - wx) + src[y1, x1] * wy * wx)

    def make(rng):
        return (rng.random((37, 53)).astype(np.float32),)

    def run(src):
        dst = np.zeros((90, 71), dtype=np.float32)
        resize[(blocks_for(90, 8), blocks_for(71, 8)), (8, 8)](src, dst)
        return dst

    def ref(src):
        H, W = src.shape
        y = np.arange(90) * ((H - 1) / 89)
        x = np.arange(71) * ((W - 1) / 70)
        y0, x0 = y.astype(int), x.astype(int)
        y1 = np.where(y0 + 1 < H, y0 + 1, y0)
        x1 = np.where(x0 + 1 < W, x0 + 1, x0)
        wy, wx = (y - y0)[:, None], (x - x0)[None, :]
        s = src.astype(np.float64)
        Y0, X0, Y1, X1 = y0[:, None], x0[None, :], y1[:, None], x1[None, :]
        v = (s[Y0, X0] * (1 - wy) * (1 - wx) + s[Y0, X1] * (1 - wy) * wx
             + s[Y1, X0] * wy * (1 - wx) + s[Y1, X1] * wy * wx)
        return v.astype(np.float32)

    return Case(make, run, ref, rtol=1e-6, atol=1e-7)


# ---- float16 ----

@case
def fp16_axpy_hfma():
    @cuda.jit
    def haxpy(a, x, y, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = cuda.fp16.hfma(a, x[i], y[i])

    def make(rng):
        return (np.float16(rng.uniform(0.5, 2.0)), rng.standard_normal(4096).astype(np.float16),
                rng.standard_normal(4096).astype(np.float16))

    def run(a, x, y):
        out = np.zeros_like(x)
        haxpy[16, 256](a, x, y, out)
        return out

    def ref(a, x, y):
        return (np.float32(a) * x.astype(np.float32) + y.astype(np.float32)).astype(np.float16)

    return Case(make, run, ref, rtol=2e-3, atol=4e-3)


@case
def fp16_ops_and_math():
    @cuda.jit
    def half_math(x, y, out):
        i = cuda.grid(1)
        if i < x.shape[0]:
            a = x[i]
            b = y[i]
            out[i, 0] = a * b + a          # float16 operators
            out[i, 1] = cuda.fp16.hsqrt(cuda.fp16.habs(a))
            out[i, 2] = cuda.fp16.hmax(a, b)
            out[i, 3] = cuda.fp16.hexp(cuda.fp16.hneg(cuda.fp16.habs(b)))
            out[i, 4] = -a if cuda.fp16.hlt(a, b) else b

    def make(rng):
        return (rng.uniform(-3, 3, 3000).astype(np.float16),
                rng.uniform(-3, 3, 3000).astype(np.float16))

    def run(x, y):
        out = np.zeros((x.size, 5), dtype=np.float16)
        half_math[blocks_for(x.size, 128), 128](x, y, out)
        return out

    def ref(x, y):
        a, b = x.astype(np.float32), y.astype(np.float32)
        cols = [a * b + a, np.sqrt(np.abs(a)), np.maximum(a, b), np.exp(-np.abs(b)),
                np.where(a < b, -a, b)]
        return np.stack(cols, axis=1).astype(np.float16)

    return Case(make, run, ref, rtol=4e-3, atol=2e-2)


@case
def fp16_sum_into_float64_accumulator():
    @cuda.jit
    def half_row_sums(h, out32, out64):
        r = cuda.grid(1)
        if r < h.shape[0]:
            s = 0.0
            for c in range(h.shape[1]):
                s += h[r, c]
            out32[r] = s
            out64[r] = s

    def make(rng):
        return (rng.uniform(0, 1, (64, 3000)).astype(np.float16),)

    def run(h):
        o32 = np.zeros(64, np.float32)
        o64 = np.zeros(64, np.float64)
        half_row_sums[1, 64](h, o32, o64)
        return o32, o64

    def ref(h):
        s = _f64_sum(h)
        return s.astype(np.float32), s

    # a float16 (or float32) accumulator of 3000 values misses by far more
    return Case(make, run, ref, rtol=1e-12, wide=True)


@case
def fp16_convert_scale_store():
    SCALE = 0.125

    @cuda.jit
    def to_half(src, dst, back):
        i = cuda.grid(1)
        if i < src.size:
            h = np.float16(src[i] * SCALE)
            dst[i] = h
            back[i] = np.float32(h) / SCALE

    def make(rng):
        return ((100 * rng.standard_normal(5000)).astype(np.float32),)

    def run(src):
        dst = np.zeros(src.size, np.float16)
        back = np.zeros(src.size, np.float32)
        to_half[blocks_for(src.size, 256), 256](src, dst, back)
        return dst, back

    def ref(src):
        h = (src.astype(np.float64) * 0.125).astype(np.float16)
        return h, (h.astype(np.float32) / 0.125).astype(np.float32)

    return Case(make, run, ref, rtol=0, atol=0)


# ---- complex64 ----

@case
def complex64_multiply_conjugate():
    @cuda.jit
    def cmul(a, b, out, mag):
        i = cuda.grid(1)
        if i < a.size:
            p = a[i] * b[i].conjugate()
            out[i] = p
            mag[i] = abs(p)

    def make(rng):
        a = (rng.standard_normal(4000) + 1j * rng.standard_normal(4000)).astype(np.complex64)
        b = (rng.standard_normal(4000) + 1j * rng.standard_normal(4000)).astype(np.complex64)
        return a, b

    def run(a, b):
        out = np.zeros_like(a)
        mag = np.zeros(a.size, np.float32)
        cmul[blocks_for(a.size, 128), 128](a, b, out, mag)
        return out, mag

    def ref(a, b):
        p = a * np.conj(b)
        return p, np.abs(p)

    return Case(make, run, ref, rtol=2e-6, atol=5e-6)


@case
def fft_radix2_butterflies_complex64():
    @cuda.jit
    def bit_reverse(src, dst, bits):
        i = cuda.grid(1)
        if i < src.size:
            r = 0
            v = i
            for _ in range(bits):
                r = (r << 1) | (v & 1)
                v >>= 1
            dst[r] = src[i]

    @cuda.jit
    def butterfly(x, half):
        t = cuda.grid(1)
        n = x.size
        if t >= n // 2:
            return
        group = t // half
        k = t % half
        i = group * 2 * half + k
        j = i + half
        ang = -math.pi * k / half
        w = complex(math.cos(ang), math.sin(ang))
        u = x[i]
        v = x[j] * w
        x[i] = u + v
        x[j] = u - v

    def make(rng):
        n = 1024
        return ((rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64),)

    def run(sig):
        n = sig.size
        bits = n.bit_length() - 1
        d_src = cuda.to_device(sig)
        d_x = cuda.device_array_like(d_src)
        bit_reverse[blocks_for(n, 128), 128](d_src, d_x, bits)
        half = 1
        while half < n:
            butterfly[blocks_for(n // 2, 128), 128](d_x, half)
            half *= 2
        return d_x.copy_to_host()

    def check(got, want, inputs):
        (g,), (w,) = got, want
        assert g.dtype == np.complex64
        np.testing.assert_allclose(g, w, rtol=0, atol=2e-5 * np.abs(w).max())

    return Case(make, run, lambda s: np.fft.fft(s.astype(np.complex128)).astype(np.complex64),
                check=check)


@case
def complex_twiddle_cmath_dft_small():
    @cuda.jit
    def dft(x, out):
        k = cuda.grid(1)
        n = x.shape[0]
        if k < n:
            acc = 0j
            for t in range(n):
                acc += x[t] * cmath.exp(-2j * cmath.pi * k * t / n)
            out[k] = acc

    def make(rng):
        return ((rng.standard_normal(96) + 1j * rng.standard_normal(96)).astype(np.complex64),)

    def run(x):
        out = np.zeros(x.size, np.complex128)
        dft[1, 96](x, out)
        return out

    return Case(make, run, lambda x: np.fft.fft(x.astype(np.complex128)), rtol=1e-9,
                atol=1e-9, wide=True)


# ---- special values ----

@case
def nan_inf_cleanup_and_count():
    @cuda.jit
    def clean(x, out, counts):
        i = cuda.grid(1)
        if i < x.size:
            v = x[i]
            if math.isnan(v):
                out[i] = 0.0
                cuda.atomic.add(counts, 0, 1)
            elif math.isinf(v):
                out[i] = 1e30 if v > 0 else -1e30
                cuda.atomic.add(counts, 1, 1)
            else:
                out[i] = v
                if not math.isfinite(v * np.float32(1e30)):
                    cuda.atomic.add(counts, 2, 1)

    def make(rng):
        x = (rng.standard_normal(8000) * 1e10).astype(np.float32)
        x[rng.choice(8000, 300, replace=False)] = np.nan
        x[rng.choice(8000, 200, replace=False)] = np.inf
        x[rng.choice(8000, 100, replace=False)] = -np.inf
        return (x,)

    def run(x):
        out = np.zeros_like(x)
        counts = np.zeros(3, dtype=np.int32)
        clean[blocks_for(x.size, 256), 256](x, out, counts)
        return out, counts

    def ref(x):
        out = np.where(np.isnan(x), 0, np.where(np.isinf(x), np.sign(x) * 1e30, x))
        fin = np.isfinite(x)
        with np.errstate(over="ignore"):
            big = ~np.isfinite(x * np.float32(1e30))
        return out.astype(np.float32), np.array([np.isnan(x).sum(), np.isinf(x).sum(),
                                                 (fin & big).sum()], np.int32)

    return Case(make, run, ref, rtol=0, atol=0)


@case
def minmax_with_nan_python_order():
    @cuda.jit
    def pairwise(a, b, mx, mn, rowmax):
        i = cuda.grid(1)
        if i < a.shape[0]:
            mx[i] = max(a[i], b[i])
            mn[i] = min(a[i], b[i])
            best = -math.inf
            for j in range(a.shape[0] // 64):
                v = a[(i + j) % a.shape[0]]
                if not math.isnan(v):
                    best = max(best, v)
            rowmax[i] = best

    def make(rng):
        a = rng.standard_normal(4096)
        b = rng.standard_normal(4096)
        a[rng.choice(4096, 400, replace=False)] = np.nan
        b[rng.choice(4096, 400, replace=False)] = np.nan
        return a, b

    def run(a, b):
        mx, mn, rm = (np.zeros(a.size) for _ in range(3))
        pairwise[blocks_for(a.size, 128), 128](a, b, mx, mn, rm)
        return mx, mn, rm

    def ref(a, b):
        # numba-cuda's max(a, b) of two floats is libdevice's fmax (cudaimpl.py):
        # a NaN loses on either side (Python's max would keep a NaN a)
        mx = np.fmax(a, b)
        mn = np.fmin(a, b)
        n = a.size
        idx = (np.arange(n)[:, None] + np.arange(n // 64)[None, :]) % n
        win = a[idx]
        rm = np.where(np.isnan(win), -np.inf, win).max(axis=1)
        return mx, mn, rm

    def check(got, want, inputs):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)     # NaN where NaN, equal elsewhere

    return Case(make, run, ref, check=check)


@case
def rounding_negative_floats():
    @cuda.jit
    def rounders(x, ints, floats):
        i = cuda.grid(1)
        if i < x.size:
            v = x[i]
            ints[i, 0] = round(v)            # banker's rounding, an int
            ints[i, 1] = int(v)              # toward zero
            ints[i, 2] = math.floor(v)
            ints[i, 3] = math.ceil(v)
            ints[i, 4] = math.trunc(v)
            ints[i, 5] = int(v // 1)
            floats[i, 0] = round(v, 1)
            floats[i, 1] = v % 1.0           # Python's modulo: the divisor's sign
            floats[i, 2] = math.fmod(v, 1.0)
            floats[i, 3] = v // 0.5

    def make(rng):
        x = rng.uniform(-50, 50, 3000)
        x[:200] = np.round(x[:200]) + 0.5       # exact halves
        x[200:300] = -np.abs(np.round(x[200:300])) - 0.5
        return (x,)

    def run(x):
        ints = np.zeros((x.size, 6), dtype=np.int64)
        floats = np.zeros((x.size, 4), dtype=np.float64)
        rounders[blocks_for(x.size, 128), 128](x, ints, floats)
        return ints, floats

    def ref(x):
        ints = np.stack([np.round(x), np.trunc(x), np.floor(x), np.ceil(x), np.trunc(x),
                         np.floor(x)], axis=1).astype(np.int64)
        floats = np.stack([np.round(x, 1), np.mod(x, 1.0), np.fmod(x, 1.0),
                           np.floor_divide(x, 0.5)], axis=1)
        return ints, floats

    return Case(make, run, ref, rtol=1e-12, atol=1e-12)


# ---- one source, two dtypes; float32 on purpose ----

@case
def same_kernel_float32_and_float64():
    @cuda.jit
    def blend(a, x, y, out):
        i = cuda.grid(1)
        if i < x.shape[0]:
            out[i] = a * x[i] + 0.5 * y[i] - x[i] / 3

    def make(rng):
        x = rng.standard_normal(6000)
        y = rng.standard_normal(6000)
        return x, y

    def run(x, y):
        res = []
        for dt in (np.float32, np.float64):
            xd, yd = x.astype(dt), y.astype(dt)
            out = np.zeros(x.size, dtype=dt)
            blend[blocks_for(x.size, 256), 256](dt(1.5), xd, yd, out)
            res.append(out)
        return tuple(res)

    def ref(x, y):
        x32, y32 = x.astype(np.float32), y.astype(np.float32)
        # a float32 a * x[i] stays float32; 0.5 * y[i] and x[i] / 3 are float64 (Numba)
        r32 = ((np.float32(1.5) * x32).astype(np.float64) + 0.5 * y32.astype(np.float64)
               - x32.astype(np.float64) / 3).astype(np.float32)
        return r32, 1.5 * x + 0.5 * y - x / 3

    return Case(make, run, ref, rtol=1e-6, atol=1e-7)


HALF32 = np.float32(0.5)
TENTH32 = np.float32(0.1)


@case
def np_float32_constants_stay_float32():
    @cuda.jit
    def scale32(x, out64, out32):
        i = cuda.grid(1)
        if i < x.size:
            out64[i] = x[i] * TENTH32                 # a float32 product ...
            out32[i] = x[i] * HALF32 + np.float32(1.5)
            out64[i] += np.float32(x[i] / np.float32(3.0)) - x[i] / np.float32(3.0)

    def make(rng):
        return (rng.standard_normal(5000).astype(np.float32),)

    def run(x):
        o64 = np.zeros(x.size, np.float64)
        o32 = np.zeros(x.size, np.float32)
        scale32[blocks_for(x.size, 256), 256](x, o64, o32)
        return o64, o32

    def ref(x):
        # ... stored into float64: exactly the float32 product, not x * 0.1
        return (x * TENTH32).astype(np.float64), x * HALF32 + np.float32(1.5)

    return Case(make, run, ref, rtol=1e-12, atol=0)


@case
def generic_device_function_both_widths():
    @cuda.jit(device=True)
    def smoothstep(e0, e1, x):
        t = min(max((x - e0) / (e1 - e0), 0.0), 1.0)
        return t * t * (3.0 - 2.0 * t)

    @cuda.jit
    def apply(x, e0, e1, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = smoothstep(e0, e1, x[i])

    def make(rng):
        return (rng.uniform(-1, 2, 3000),)

    def run(x):
        outs = []
        for dt in (np.float32, np.float64):
            out = np.zeros(x.size, dt)
            apply[blocks_for(x.size, 128), 128](x.astype(dt), dt(0.2), dt(0.9), out)
            outs.append(out)
        return tuple(outs)

    def ref(x):
        res = []
        for dt in (np.float32, np.float64):
            xd, e0, e1 = x.astype(dt), dt(0.2), dt(0.9)
            q = ((xd - e0) / (e1 - e0)).astype(np.float64)     # float32 arithmetic, then 0.0
            t = np.clip(q, 0.0, 1.0)
            res.append((t * t * (3.0 - 2.0 * t)).astype(dt))
        return tuple(res)

    return Case(make, run, ref, rtol=1e-6, atol=1e-7)


@case
def polar_atan2_hypot_copysign():
    @cuda.jit
    def polar(x, y, r, theta, sgn):
        i = cuda.grid(1)
        if i < x.size:
            r[i] = math.hypot(x[i], y[i])
            theta[i] = math.atan2(y[i], x[i])
            sgn[i] = math.copysign(1.0, x[i]) * math.sqrt(abs(y[i]))

    def make(rng):
        x = rng.standard_normal(5000).astype(np.float32)
        x[:50] = -0.0
        return x, rng.standard_normal(5000).astype(np.float32)

    def run(x, y):
        r = np.zeros(x.size, np.float32)
        th = np.zeros(x.size, np.float32)
        s = np.zeros(x.size, np.float64)
        polar[blocks_for(x.size, 256), 256](x, y, r, th, s)
        return r, th, s

    def ref(x, y):
        # math.sqrt(abs(float32)) is float32; copysign(1.0, float32) float64
        return (np.hypot(x, y), np.arctan2(y, x),
                np.copysign(1.0, x.astype(np.float64)) * np.sqrt(np.abs(y)).astype(np.float64))

    return Case(make, run, ref, rtol=2e-6, atol=1e-7)


@case
def float_powers_and_roots():
    @cuda.jit
    def powers(x, out):
        i = cuda.grid(1)
        if i < x.size:
            v = x[i]
            out[i, 0] = v ** 2              # float32 ** int: float32
            out[i, 1] = v ** 0.5            # float32 ** float: float64
            out[i, 2] = v ** 2.5
            out[i, 3] = math.pow(v, 3)
            out[i, 4] = 1.0 / v ** 3

    def make(rng):
        return (rng.uniform(0.1, 10.0, 4000).astype(np.float32),)

    def run(x):
        out = np.zeros((x.size, 5), dtype=np.float64)
        powers[blocks_for(x.size, 128), 128](x, out)
        return out

    def ref(x):
        v = x.astype(np.float64)
        return np.stack([(x * x).astype(np.float64), v ** 0.5, v ** 2.5, v ** 3,
                         1.0 / (x * x * x).astype(np.float64)], axis=1)

    return Case(make, run, ref, rtol=4e-7, atol=0, wide=True)


@case
def histogram_weighted_float_atomics():
    NBINS = 32
    LO, HI = -4.0, 4.0

    @cuda.jit
    def whist(x, w, hist):
        i = cuda.grid(1)
        stride = cuda.gridsize(1)
        while i < x.size:
            b = int((x[i] - LO) / (HI - LO) * NBINS)
            if 0 <= b < NBINS:
                cuda.atomic.add(hist, b, w[i])
            i += stride

    def make(rng):
        return rng.standard_normal(100000), rng.uniform(0, 1, 100000)

    def run(x, w):
        hist = np.zeros(NBINS)
        whist[32, 256](x, w, hist)
        return hist

    def ref(x, w):
        b = ((x - LO) / (HI - LO) * NBINS).astype(np.int64)
        ok = (b >= 0) & (b < NBINS)
        return np.bincount(b[ok], weights=w[ok], minlength=NBINS)

    return Case(make, run, ref, rtol=1e-10)


# ---- what Numba's typing of math, float() and complex() decides ----

@case
def grid_snap_floor_stays_float32():
    @cuda.jit
    def snap(x, h, centre, cell_of):
        i = cuda.grid(1)
        if i < x.size:
            cell = math.floor(x[i] / h)         # float32 in numba-cuda, not an int
            centre[i] = cell * h + 0.5 * h
            cell_of[i] = cell

    def make(rng):
        return (rng.uniform(-100, 100, 4000).astype(np.float32), np.float32(rng.uniform(0.3, 0.7)))

    def run(x, h):
        centre = np.zeros(x.size)
        cell_of = np.zeros(x.size, np.int32)
        snap[blocks_for(x.size, 128), 128](x, h, centre, cell_of)
        return centre, cell_of

    def ref(x, h):
        cell = np.floor(x / h)                  # float32
        return (cell * h).astype(np.float64) + 0.5 * np.float64(h), cell.astype(np.int32)

    return Case(make, run, ref, rtol=1e-14, atol=1e-14, wide=True)


@case
def quantize_floor_keeps_nan_and_inf():
    STEP = 0.25

    @cuda.jit
    def quantize(x, q, up):
        i = cuda.grid(1)
        if i < x.shape[0]:
            q[i] = math.floor(x[i] / STEP) * STEP
            up[i] = math.ceil(x[i]) - math.trunc(x[i])

    def make(rng):
        x = 10 * rng.standard_normal(3000)
        x[rng.choice(3000, 100, replace=False)] = np.nan
        x[rng.choice(3000, 50, replace=False)] = np.inf
        x[rng.choice(3000, 50, replace=False)] = -np.inf
        return (x,)

    def run(x):
        q = np.zeros_like(x)
        up = np.zeros_like(x)
        quantize[blocks_for(x.size, 256), 256](x, q, up)
        return q, up

    def ref(x):
        with np.errstate(invalid="ignore"):
            return np.floor(x / STEP) * STEP, np.ceil(x) - np.trunc(x)

    def check(got, want, inputs):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)     # NaN where NaN, inf where inf

    return Case(make, run, ref, check=check)


@case
def float_call_keeps_float32_accumulator():
    @cuda.jit
    def running(a, out):
        r = cuda.grid(1)
        if r < a.shape[0]:
            acc = float(a[r, 0])       # float() of a float32 is a float32 in Numba
            for c in range(1, a.shape[1]):
                acc += a[r, c]
            out[r] = acc

    def make(rng):
        return (rng.random((40, 20000), dtype=np.float32),)

    def run(a):
        out = np.zeros(a.shape[0])
        running[1, 64](a, out)
        return out

    def ref(a):
        # float32 additions in order: np.cumsum adds one after another
        return np.cumsum(a, axis=1, dtype=np.float32)[:, -1].astype(np.float64)

    return Case(make, run, ref, rtol=1e-12, wide=True)


@case
def fp16_math_computes_in_float32():
    @cuda.jit
    def half_angles(gx, gy, ang, mag, soft):
        i = cuda.grid(1)
        if i < gx.size:
            ang[i] = math.atan2(gy[i], gx[i])      # float16 arguments: float32 in Numba
            mag[i] = math.hypot(gx[i], gy[i])
            soft[i] = math.erf(gx[i]) + math.log1p(abs(gy[i]))

    def make(rng):
        return (rng.standard_normal(4000).astype(np.float16),
                rng.standard_normal(4000).astype(np.float16))

    def run(gx, gy):
        ang, mag, soft = (np.zeros(gx.size, np.float32) for _ in range(3))
        half_angles[blocks_for(gx.size, 128), 128](gx, gy, ang, mag, soft)
        return ang, mag, soft

    def ref(gx, gy):
        x, y = gx.astype(np.float32), gy.astype(np.float32)
        erf = np.vectorize(math.erf)
        return (np.arctan2(y, x), np.hypot(x, y),
                (erf(x.astype(np.float64)).astype(np.float32) + np.log1p(np.abs(y))))

    return Case(make, run, ref, rtol=2e-6, atol=1e-6)


@case
def uint8_pixels_math_in_float64():
    @cuda.jit
    def tone(img, out):
        r, c = cuda.grid(2)
        if r < img.shape[0] and c < img.shape[1]:
            p = img[r, c]
            out[r, c, 0] = math.sqrt(p)                    # float64 in Numba
            out[r, c, 1] = math.exp(-(p / 64))  # -p alone is uint64 in Numba
            out[r, c, 2] = math.log(p + 1) * np.float32(0.5)

    def make(rng):
        return (rng.integers(0, 256, (50, 70), dtype=np.uint8),)

    def run(img):
        out = np.zeros(img.shape + (3,))
        tone[(4, 5), (16, 16)](img, out)
        return out

    def ref(img):
        p = img.astype(np.float64)
        return np.stack([np.sqrt(p), np.exp(-p / 64), np.log(p + 1) * 0.5], axis=-1)

    return Case(make, run, ref, rtol=1e-14, atol=1e-15, wide=True)


@case
def float64_values_into_float32_atomics_and_shared():
    @cuda.jit
    def scatter(idx, w, hist, peak):
        tile = cuda.shared.array(64, dtype=np.float32)
        t = cuda.threadIdx.x
        i = cuda.grid(1)
        tile[t] = 0
        cuda.syncthreads()
        if i < idx.size:
            cuda.atomic.add(tile, idx[i], w[i] * 0.5)      # a float64 value, float32 slots
            cuda.atomic.max(peak, 0, w[i] * 2.0)
        cuda.syncthreads()
        cuda.atomic.add(hist, t, tile[t])

    def make(rng):
        return (rng.integers(0, 64, 64 * 40).astype(np.int32),
                rng.uniform(0, 1, 64 * 40).astype(np.float32))

    def run(idx, w):
        hist = np.zeros(64, np.float32)
        peak = np.zeros(1, np.float32)
        scatter[40, 64](idx, w, hist, peak)
        return hist, peak

    def ref(idx, w):
        return (np.bincount(idx, weights=(w * np.float32(0.5)).astype(np.float64),
                            minlength=64).astype(np.float32),
                np.array([w.max() * 2], np.float32))

    return Case(make, run, ref, rtol=1e-5, atol=1e-6, coop=True)
