"""Long run (issue 14, part 4): does anything grow over 10^6 launches and
10^5 stdlib operations?

    python bench/longrun.py [--launches N] [--ops N] [--tolerance MB]
    (from the source tree after `make`: PYTHONPATH=. python bench/longrun.py)

Launches a small raw kernel N times, then runs a mix of stdlib operations
(x + y, x.sum(), cujit.where, a slicing copy, to_device / copy_to_host) on
fresh arrays.  At the start, after a warm-up and at the end it prints the
process's RSS (VmRSS of /proc/self/status), the bytes cujit's memory pool
uses and reserves (cujit.memory_info()), the number of kernels loaded (the
runtime's memory cache), the disk cache's entries and the Python objects
the GC tracks; then a verdict line: "flat" when, from the warm-up to the
end, RSS grew by less than --tolerance MB and the pool, the kernel caches
and the object count did not grow; "GROWS" otherwise (what grew is named).

It also runs against tests/fakecuda's fake libcuda (LD_LIBRARY_PATH=<dir of
its libcuda.so.1>; launches then do nothing), which is how it was checked on
a machine without a GPU."""
import argparse
import gc
import os
import sys
import time

import numpy as np

import cujit
from cujit import jit
from cujit import _cujit as C


@jit.rawkernel()
def bump(x, n):
    i = jit.grid(1)
    if i < n:
        x[i] = x[i] + 1.0


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def snapshot(label):
    gc.collect()
    mem = cujit.memory_info()
    s = {"rss_kib": rss_kib(), "pool_used": mem["used"], "pool_reserved": mem["reserved"],
         "kernels": C._loaded_kernels(), "disk_entries": cujit.cache_info()["entries"],
         "objects": len(gc.get_objects())}
    print("%-9s RSS %8.1f MiB  pool used %10d B  reserved %10d B  kernels %4d  "
          "disk entries %5d  objects %8d" % (label, s["rss_kib"] / 1024, s["pool_used"],
                                             s["pool_reserved"], s["kernels"],
                                             s["disk_entries"], s["objects"]), flush=True)
    return s


def launches(n, x):
    size = x.size
    k = bump[(size + 255) // 256, 256]
    for _ in range(n):
        k(x, size)
    cujit.synchronize()


def stdlib_ops(n, rng, size):
    """n operations, a mix, each on arrays made for it"""
    host = rng.random(size).astype(np.float32)
    for i in range(n):
        op = i % 5
        if op == 0:
            x = cujit.to_device(host)
            y = cujit.to_device(host)
            (x + y).copy_to_host()
        elif op == 1:
            float(cujit.to_device(host).sum())
        elif op == 2:
            x = cujit.to_device(host)
            cujit.where(x > 0.5, x, -x).copy_to_host()
        elif op == 3:
            cujit.to_device(host)[1::3].copy().copy_to_host()
        else:
            cujit.to_device(host).copy_to_host()
    cujit.synchronize()


def verdict(warm, end, tolerance_mb):
    grew = []
    if end["rss_kib"] - warm["rss_kib"] > tolerance_mb * 1024:
        grew.append("RSS +%.1f MiB" % ((end["rss_kib"] - warm["rss_kib"]) / 1024))
    for key in ("pool_used", "pool_reserved", "kernels", "disk_entries"):
        if end[key] > warm[key]:
            grew.append("%s %d -> %d" % (key, warm[key], end[key]))
    # a few objects come and go with caches of the last call; a leak per
    # operation would add thousands
    if end["objects"] - warm["objects"] > 200:
        grew.append("objects %d -> %d" % (warm["objects"], end["objects"]))
    return grew


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--launches", type=int, default=10**6)
    p.add_argument("--ops", type=int, default=10**5)
    p.add_argument("--size", type=int, default=4096, help="elements per array")
    p.add_argument("--tolerance", type=float, default=8.0,
                   help="RSS growth (MiB) from the warm-up to the end still called flat")
    args = p.parse_args()
    rng = np.random.default_rng(14)
    print("cujit %s, %d launches, %d stdlib operations on %d float32" % (
        cujit.__version__, args.launches, args.ops, args.size))
    snapshot("start")
    x = cujit.to_device(rng.random(args.size).astype(np.float32))
    warm_n = max(1, min(args.launches, args.ops, 1000) // 10)
    launches(warm_n * 10, x)
    stdlib_ops(warm_n * 5, rng, args.size)
    warm = snapshot("warm")
    t0 = time.perf_counter()
    launches(args.launches, x)
    t1 = time.perf_counter()
    mid = snapshot("launches")
    stdlib_ops(args.ops, rng, args.size)
    t2 = time.perf_counter()
    end = snapshot("end")
    print("launches: %.2f us each; stdlib operations: %.1f us each" % (
        (t1 - t0) / max(args.launches, 1) * 1e6, (t2 - t1) / max(args.ops, 1) * 1e6))
    grew = verdict(warm, mid, args.tolerance) + verdict(mid, end, args.tolerance)
    print("verdict: " + ("GROWS (" + "; ".join(grew) + ")" if grew else "flat"))
    return 1 if grew else 0


if __name__ == "__main__":
    sys.exit(main())
