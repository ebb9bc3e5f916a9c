"""Where the host time of a cujit launch goes (run on the GPU machine):
launches of kernels with no arguments, an int, an array, an array and an
int, pre-bound and not, at two queue depths."""
import time

import numpy as np

import cujit
from cujit import jit


@jit.rawkernel()
def k0():
    pass


@jit.rawkernel()
def k1(n):
    if jit.grid(1) < 0:
        n = n + 1


@jit.rawkernel()
def k2(x, n):
    i = jit.grid(1)
    if i < n:
        x[i] = x[i] + 1


def per_launch(fn, n, reps=5):
    ts = []
    for _ in range(reps):
        cujit.synchronize()
        t = time.perf_counter()
        for _ in range(n):
            fn()
        ts.append((time.perf_counter() - t) / n * 1e6)
        cujit.synchronize()
    return float(np.median(ts))


x = cujit.to_device(np.arange(32, dtype=np.int32))
b0, b1, b2 = k0[1, 32], k1[1, 32], k2[1, 32]
cases = {
    "empty python loop": lambda: None,
    "k0[1, 32]()": lambda: k0[1, 32](),
    "bound k0()": lambda: b0(),
    "bound k1(32)": lambda: b1(32),
    "bound k2(x, 32)": lambda: b2(x, 32),
    "k2[1, 32](x, 32)": lambda: k2[1, 32](x, 32),
}
import os
try:
    if os.environ.get("NO_CUPY"):
        raise ImportError("NO_CUPY set")
    import cupy
    xc = cupy.arange(32, dtype=cupy.int32)
    cases["bound k2(cupy x, 32)"] = lambda: b2(xc, 32)
    raw = cupy.RawKernel('extern "C" __global__ void r(int *x, int n)'
                         '{ int i = threadIdx.x; if (i < n) x[i] += 1; }', "r")
    cases["cupy RawKernel"] = lambda: raw((1,), (32,), (xc, np.int32(32)))
except Exception as e:     # noqa: BLE001
    print("no cupy:", e)
for f in cases.values():
    for _ in range(200):
        f()
for depth in (200, 20000):
    print(f"-- {depth} launches per repetition")
    for name, f in cases.items():
        print(f"  {name:28s} {per_launch(f, depth):7.3f} us")

print("-- from a C loop (cujit._cujit._bench_launch)")
from cujit import _cujit as C
for depth in (200, 20000):
    full0 = np.median([C._bench_launch(b0, (), depth, False) for _ in range(5)])
    raw0 = np.median([C._bench_launch(b0, (), depth, True) for _ in range(5)])
    full2 = np.median([C._bench_launch(b2, (x, 32), depth, False) for _ in range(5)])
    cujit.synchronize()
    print(f"  depth {depth}: k0 whole path {full0:.3f} us, k0 cuLaunchKernel only {raw0:.3f} us, "
          f"k2(x, 32) whole path {full2:.3f} us")

st = cujit.Stream(non_blocking=True)
for depth in (200, 20000):
    raw_s = np.median([C._bench_launch(b0, (), depth, True, st) for _ in range(5)])
    st.synchronize()
    print(f"  depth {depth}: k0 cuLaunchKernel only, on a non-blocking stream {raw_s:.3f} us")
