"""Transpile time: Python function -> CUDA C++ source, without NVRTC.

For each of a suite of representative kernels this times the whole way from
the Python function object to the CUDA C++ text (reading the function's AST
into IR, type inference, code generation), bypassing every cache: each
repetition uses cujit._cujit._transpile(func, sig) when the extension has that
private hook, else a fresh `jit.rawkernel()(func)` object's
inspect_cuda(sig).  It prints the median per kernel and the median of those
medians against the goal (0.3 ms per kernel).

    make bench-transpile            # or: PYTHONPATH=. python3 bench/transpile.py [--reps N]
"""
import argparse
import math
import statistics
import sys
import time

import numpy as np

import cujit
from cujit import jit

GOAL_MS = 0.3


def saxpy(a, x, y, out):
    i = jit.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def stencil2d(u, v):
    i, j = jit.grid(2)
    if 0 < i < u.shape[0] - 1 and 0 < j < u.shape[1] - 1:
        v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]) - u[i, j]


def block_sum(x, out):
    buf = jit.shared_memory(np.float32, 256)
    tid = jit.threadIdx.x
    i = jit.grid(1)
    acc = np.float32(0)
    while i < x.size:
        acc += x[i]
        i += jit.gridsize(1)
    buf[tid] = acc
    jit.syncthreads()
    s = 128
    while s >= 32:
        if tid < s:
            buf[tid] += buf[tid + s]
        jit.syncthreads()
        s //= 2
    if tid < 32:
        v = buf[tid]
        off = 16
        while off > 0:
            v += jit.shfl_down_sync(0xFFFFFFFF, v, off)
            off //= 2
        if tid == 0:
            jit.atomic_add(out, 0, v)


def histogram(data, bins):
    i = jit.grid(1)
    if i < data.size:
        jit.atomic_add(bins, data[i], 1)


@jit.rawkernel(device=True)
def clamp(v, lo, hi):
    return min(max(v, lo), hi)


@jit.rawkernel(device=True)
def lerp(a, b, t):
    return a + (b - a) * clamp(t, 0.0, 1.0)


def blend(a, b, t, out):
    i = jit.grid(1)
    if i < out.size:
        out[i] = lerp(a[i], b[i], t[i])


def mandelbrot(c, iters, maxit):
    i = jit.grid(1)
    if i < c.size:
        z = c[i] * 0
        n = 0
        while n < maxit and abs(z) <= 2.0:
            z = z * z + c[i]
            n += 1
        iters[i] = n


def collatz(start, steps):
    i = jit.grid(1)
    if i < start.size:
        n = start[i]
        k = 0
        while n != 1:
            if n % 2 == 0:
                n //= 2
            else:
                n = 3 * n + 1
            k += 1
        steps[i] = k


def math_mix(x, out):
    i = jit.grid(1)
    if i < x.size:
        v = x[i]
        out[i] = (math.sin(v) * math.cos(v) + math.exp(-v * v) + math.log1p(abs(v))
                  + math.sqrt(abs(v)) + math.tanh(v) + math.erf(v) + math.atan2(v, 1.0))


def matmul(a, b, c):
    i, j = jit.grid(2)
    if i < c.shape[0] and j < c.shape[1]:
        acc = 0.0
        for k in range(a.shape[1]):
            acc += a[i, k] * b[k, j]
        c[i, j] = acc


def matmul_tiled(a, b, c):
    ta = jit.shared_memory(np.float32, (16, 16))
    tb = jit.shared_memory(np.float32, (16, 16))
    tx = jit.threadIdx.x
    ty = jit.threadIdx.y
    row = jit.blockIdx.y * 16 + ty
    col = jit.blockIdx.x * 16 + tx
    acc = np.float32(0)
    for t in range((a.shape[1] + 15) // 16):
        ta[ty, tx] = a[row, t * 16 + tx] if row < a.shape[0] and t * 16 + tx < a.shape[1] else 0
        tb[ty, tx] = b[t * 16 + ty, col] if col < b.shape[1] and t * 16 + ty < b.shape[0] else 0
        jit.syncthreads()
        for k in range(16):
            acc += ta[ty, k] * tb[k, tx]
        jit.syncthreads()
    if row < c.shape[0] and col < c.shape[1]:
        c[row, col] = acc


def transpose(a, b):
    tile = jit.shared_memory(np.float32, (32, 33))
    x = jit.blockIdx.x * 32 + jit.threadIdx.x
    y = jit.blockIdx.y * 32 + jit.threadIdx.y
    if x < a.shape[1] and y < a.shape[0]:
        tile[jit.threadIdx.y, jit.threadIdx.x] = a[y, x]
    jit.syncthreads()
    x = jit.blockIdx.y * 32 + jit.threadIdx.x
    y = jit.blockIdx.x * 32 + jit.threadIdx.y
    if x < b.shape[1] and y < b.shape[0]:
        b[y, x] = tile[jit.threadIdx.x, jit.threadIdx.y]


def warp_scan(x, out):
    i = jit.grid(1)
    lane = jit.threadIdx.x % 32
    v = x[i] if i < x.size else 0
    d = 1
    while d < 32:
        u = jit.shfl_up_sync(0xFFFFFFFF, v, d)
        if lane >= d:
            v += u
        d *= 2
    if i < out.size:
        out[i] = v


def softmax_rows(x, out):
    r = jit.grid(1)
    if r < x.shape[0]:
        m = x[r, 0]
        for j in range(1, x.shape[1]):
            m = max(m, x[r, j])
        s = 0.0
        for j in range(x.shape[1]):
            e = math.exp(x[r, j] - m)
            out[r, j] = e
            s += e
        for j in range(x.shape[1]):
            out[r, j] /= s


def nbody_accel(pos, acc, eps2):
    i = jit.grid(1)
    if i < pos.shape[0]:
        ax = np.float32(0)
        ay = np.float32(0)
        az = np.float32(0)
        for j in range(pos.shape[0]):
            dx = pos[j, 0] - pos[i, 0]
            dy = pos[j, 1] - pos[i, 1]
            dz = pos[j, 2] - pos[i, 2]
            inv = 1 / math.sqrt(dx * dx + dy * dy + dz * dz + eps2)
            s = pos[j, 3] * inv * inv * inv
            ax += dx * s
            ay += dy * s
            az += dz * s
        acc[i, 0] = ax
        acc[i, 1] = ay
        acc[i, 2] = az


def black_scholes(s, k, t, r, sigma, call, put):
    i = jit.grid(1)
    if i < s.size:
        sq = sigma * math.sqrt(t[i])
        d1 = (math.log(s[i] / k[i]) + (r + 0.5 * sigma * sigma) * t[i]) / sq
        d2 = d1 - sq
        n1 = 0.5 * (1 + math.erf(d1 / math.sqrt(2.0)))
        n2 = 0.5 * (1 + math.erf(d2 / math.sqrt(2.0)))
        disc = k[i] * math.exp(-r * t[i])
        call[i] = s[i] * n1 - disc * n2
        put[i] = call[i] - s[i] + disc


def half_axpy(a, x, y):
    i = jit.grid(1)
    if i < y.size:
        y[i] = np.float16(a) * x[i] + y[i]


SUITE = [
    ("saxpy", saxpy, "(float32, float32[::1], float32[::1], float32[::1])"),
    ("stencil2d", stencil2d, "(float32[:, ::1], float32[:, ::1])"),
    ("block_sum (shared+shfl+atomic)", block_sum, "(float32[::1], float32[::1])"),
    ("histogram (atomics)", histogram, "(uint8[::1], int32[::1])"),
    ("blend (device functions)", blend,
     "(float32[::1], float32[::1], float32[::1], float32[::1])"),
    ("mandelbrot (complex, while)", mandelbrot, "(complex64[::1], int32[::1], int32)"),
    ("collatz (while)", collatz, "(int64[::1], int32[::1])"),
    ("math_mix", math_mix, "(float64[::1], float64[::1])"),
    ("matmul (for)", matmul, "(float32[:, ::1], float32[:, ::1], float32[:, ::1])"),
    ("matmul_tiled (2-d shared)", matmul_tiled,
     "(float32[:, ::1], float32[:, ::1], float32[:, ::1])"),
    ("transpose (shared tile)", transpose, "(float32[:, :], float32[:, ::1])"),
    ("warp_scan (shfl_up)", warp_scan, "(int32[::1], int32[::1])"),
    ("softmax_rows", softmax_rows, "(float32[:, ::1], float32[:, ::1])"),
    ("nbody_accel", nbody_accel, "(float32[:, ::1], float32[:, ::1], float32)"),
    ("black_scholes (math)", black_scholes,
     "(float32[::1], float32[::1], float32[::1], float32, float32, float32[::1], float32[::1])"),
    ("half_axpy (float16)", half_axpy, "(float32, float16[::1], float16[::1])"),
]


def transpiler():
    """(description, f(func, sig) -> CUDA text) for the fastest uncached path."""
    hook = getattr(getattr(cujit, "_cujit", None), "_transpile", None)
    if hook is not None:
        return "cujit._cujit._transpile(func, sig)", hook
    return ("jit.rawkernel()(func).inspect_cuda(sig), a fresh kernel each time",
            lambda func, sig: jit.rawkernel()(func).inspect_cuda(sig))


def time_one(fn, func, sig, reps, warmup):
    """Median and minimum in ms over reps calls, and the last output."""
    src = None
    for _ in range(warmup):
        src = fn(func, sig)
    times = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        src = fn(func, sig)
        times.append(time.perf_counter_ns() - t0)
    return statistics.median(times) / 1e6, min(times) / 1e6, src


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=300, help="timed repetitions per kernel")
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--kernel", help="only kernels whose name contains this")
    args = ap.parse_args(argv)
    how, fn = transpiler()
    print(f"transpile time, Python function -> CUDA C++ (no NVRTC), via {how}")
    print(f"median of {args.reps} repetitions after {args.warmup} warm-up calls\n")
    print(f"{'kernel':34} {'median ms':>10} {'min ms':>8} {'CUDA lines':>11}")
    medians, failed = [], 0
    for name, func, sig in SUITE:
        if args.kernel and args.kernel not in name:
            continue
        try:
            med, best, src = time_one(fn, func, sig, args.reps, args.warmup)
        except Exception as e:          # report and go on: one kernel must not hide the rest
            failed += 1
            msg = str(e).splitlines()[0] if str(e) else type(e).__name__
            print(f"{name:34} {'failed':>10}  {type(e).__name__}: {msg[:90]}")
            continue
        medians.append(med)
        print(f"{name:34} {med:10.3f} {best:8.3f} {len(src.splitlines()):11d}")
    if not medians:
        print("\nno kernel transpiled")
        return 1
    overall = statistics.median(medians)
    verdict = "meets" if overall <= GOAL_MS else "MISSES"
    print(f"\noverall median {overall:.3f} ms per kernel over {len(medians)} kernels: "
          f"{verdict} the goal of <= {GOAL_MS} ms" + (f"; {failed} failed" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
