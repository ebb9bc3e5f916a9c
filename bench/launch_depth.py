"""Host time per launch against the number of launches queued before a
synchronize (run on the GPU machine).  With many launches in flight the
queue fills and the host waits for the GPU, so a long loop measures how fast
the GPU retires tiny kernels, not what a launch costs the host; short
batches (synchronized between batches, outside the clock) measure the host.
The C floor (bench/launch_floor.c), cujit and CuPy RawKernel are measured
at the same depths in this run.  NO_CUPY=1: cujit alone in its process."""
import os
import re
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cujit                                    # noqa: E402
from cujit import jit                           # noqa: E402

DEPTHS = (16, 64, 256, 1024, 16384)
TOTAL = 40000          # launches per measurement, split in batches of `depth`


@jit.rawkernel()
def inc(x, n):
    i = jit.grid(1)
    if i < n:
        x[i] = x[i] + 1


def per_launch(loop, sync, depth):
    reps = max(5, TOTAL // depth)
    ts = []
    loop(depth)
    sync()
    for _ in range(reps):
        t = time.perf_counter()
        loop(depth)
        ts.append((time.perf_counter() - t) / depth * 1e6)
        sync()
    return float(np.median(ts)), float(np.percentile(ts, 10))


def c_floor():
    import s1_launch           # its build helpers only
    exe, needs = s1_launch.build_launch_floor()
    out = {}
    env = dict(os.environ)
    dirs, _ = s1_launch.cuda_lib_dirs()
    env["LD_LIBRARY_PATH"] = ":".join(dirs + [env.get("LD_LIBRARY_PATH", "")]).rstrip(":")
    for d in DEPTHS:
        reps = min(100, max(5, TOTAL // d))
        argv = [exe, str(d), str(reps)] + ([s1_launch.floor_module_file()] if needs else [])
        p = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env)
        m = re.search(r"floor_us_median\s+([0-9.]+)", p.stdout)
        reps_us = sorted(float(v) for v in re.findall(r"rep \d+: ([0-9.]+) us", p.stdout))
        out[d] = (float(m.group(1)), reps_us[len(reps_us) // 10]) if m else (None, None)
    return out


def main():
    rows = {}
    if not os.environ.get("NO_CUPY"):
        rows["C floor (launch_floor.c)"] = c_floor()
    x = cujit.to_device(np.arange(32, dtype=np.int32))
    k = inc[1, 32]

    def cj_loop(m, x=x):
        for _ in range(m):
            inc[1, 32](x, 32)

    def cj_bound(m, x=x):
        for _ in range(m):
            k(x, 32)
    rows["cujit k[1, 32](x, n) DeviceArray"] = {d: per_launch(cj_loop, cujit.synchronize, d)
                                               for d in DEPTHS}
    rows["cujit bound k(x, n) DeviceArray"] = {d: per_launch(cj_bound, cujit.synchronize, d)
                                              for d in DEPTHS}
    cujit.synchronize()
    if not os.environ.get("NO_CUPY"):
        import cupy as cp
        xc = cp.arange(32, dtype=cp.int32)

        def cj_cupy(m, x=xc):
            for _ in range(m):
                inc[1, 32](x, 32)
        rows["cujit k[1, 32](x, n) CuPy array"] = {d: per_launch(cj_cupy, cujit.synchronize, d)
                                                  for d in DEPTHS}
        raw = cp.RawKernel('extern "C" __global__ void r(int *x, int n)'
                           '{ int i = threadIdx.x; if (i < n) x[i] += 1; }', "r")

        def cp_loop(m, x=xc):
            for _ in range(m):
                raw((1,), (32,), (x, np.int32(32)))
        rows["CuPy RawKernel"] = {d: per_launch(cp_loop, cp.cuda.Device().synchronize, d)
                                  for d in DEPTHS}
    print(f"{'us per launch (median / 10th pct), depth:':44s}" + "".join(f"{d:>14d}" for d in DEPTHS))
    for name, r in rows.items():
        cells = "".join(f"{r[d][0]:8.3f}/{r[d][1]:5.2f}" if r[d][0] else f"{'-':>14s}" for d in DEPTHS)
        print(f"{name:44s}{cells}")


main()
