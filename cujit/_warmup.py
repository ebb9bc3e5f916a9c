"""`python -m cujit warmup`: the stdlib's common specialisations compiled
ahead of their first use, into the disk cache.

    python -m cujit warmup [--dtypes float32,int64,...] [--ops add,sum,...]
                           [--jobs N] [--nice] [--list] [--quiet]

It runs each operation once, on small arrays of each dtype on the current
GPU, from a pool of threads: NVRTC lets go of the GIL while it compiles, so
the operations' kernels compile in parallel, one per core.  The binaries go
to the disk cache (CUJIT_CACHE_DIR, written atomically, so processes may
share it while this runs), where a later process's first use of the same
operation finds them: a cache read instead of NVRTC.  Run it once after
installing cujit or changing GPUs (a binary is kept per architecture), or at
the start of a job in the background (`cujit.warmup(background=True)`).

The arrays are what the operations meet most: contiguous, 2^20 elements or
512 x 512, so that each takes the multi-block paths (a small array takes
other kernels, compiled at its own first use).
"""
import argparse
import os
import subprocess
import sys
import time

DEFAULT_DTYPES = ("float32", "float64", "int64")

# name -> the operation on x, y (1-d), m (2-d) of one dtype
OPS = {
    "add": lambda x, y, m: x + y,
    "subtract": lambda x, y, m: x - y,
    "multiply": lambda x, y, m: x * y,
    "true_divide": lambda x, y, m: x / y,
    "scale": lambda x, y, m: x * 2.0,
    "add_int": lambda x, y, m: x + 1,
    "greater": lambda x, y, m: x > y,
    "where": lambda x, y, m: _std().where(x > y, x, y),
    "sum": lambda x, y, m: x.sum(),
    "sum_axis0": lambda x, y, m: m.sum(axis=0),
    "sum_axis1": lambda x, y, m: m.sum(axis=1),
    "max": lambda x, y, m: x.max(),
    "min": lambda x, y, m: x.min(),
    "argmax": lambda x, y, m: _std().argmax(x),
    "argmin": lambda x, y, m: _std().argmin(x),
    "cumsum": lambda x, y, m: _std().cumsum(x),
}


def _std():
    import cujit
    return cujit


def _arrays(cujit, np, dtype):
    """x, y (2^20 elements) and m (512 x 512) of dtype, random, on the GPU."""
    rng = np.random.default_rng(0)
    n = 1 << 20
    if np.dtype(dtype).kind in "iu":
        hx, hy = rng.integers(1, 100, n), rng.integers(1, 100, n)
    else:
        hx, hy = rng.random(n) + 0.5, rng.random(n) + 0.5
    hx, hy = hx.astype(dtype), hy.astype(dtype)
    return (cujit.to_device(hx), cujit.to_device(hy),
            cujit.to_device(hx[:512 * 512].reshape(512, 512)))


def _load_kernel_modules():
    """The stdlib's kernel modules, loaded before the threads start (two
    threads would each load their own copy)."""
    from cujit._stdlib import _load
    for name in ("elementwise", "reductions", "scan"):
        _load._kmod(name)


def warmup(dtypes=None, ops=None, jobs=None, quiet=True, background=False):
    """Compiles the stdlib's common specialisations into the disk cache (see
    `python -m cujit warmup -h`).  dtypes: names or NumPy dtypes (default
    float32, float64, int64); ops: names of OPS (default all); jobs: threads
    (default: the CPUs this process may use).  Returns a dict: ops run,
    failures {(dtype, op): message}, kernels compiled (NVRTC) and read from
    the disk cache, seconds.  background=True runs it in another process at
    the lowest CPU priority and returns that subprocess.Popen at once."""
    import numpy as np
    dtypes = [np.dtype(d).name for d in (dtypes or DEFAULT_DTYPES)]
    ops = list(ops or OPS)
    bad = [o for o in ops if o not in OPS]
    if bad:
        raise ValueError("cujit.warmup(): unknown operation%s %s; the operations are: %s"
                         % ("s" if len(bad) > 1 else "", ", ".join(bad), ", ".join(OPS)))
    if background:
        return _spawn(dtypes, ops, jobs)
    import cujit
    from concurrent.futures import ThreadPoolExecutor
    if not jobs:
        jobs = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
            else (os.cpu_count() or 1)
    t0 = time.perf_counter()
    before = cujit.cache_info()
    if not before["enabled"]:
        raise ValueError("the disk cache is off (CUJIT_CACHE=0): a warm-up would keep nothing")
    _load_kernel_modules()
    arrays = {d: _arrays(cujit, np, d) for d in dtypes}
    failures = {}

    def run(task):
        d, op = task
        try:
            OPS[op](*arrays[d])
        except Exception as e:          # noqa: BLE001 - reported, the others go on
            failures[(d, op)] = "%s: %s" % (type(e).__name__, e)
        if not quiet:
            print("cujit warmup: %s %s%s" % (d, op, " failed" if (d, op) in failures else ""),
                  flush=True)

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        list(pool.map(run, [(d, op) for d in dtypes for op in ops]))
    cujit.synchronize()
    after = cujit.cache_info()
    return {"ops": len(dtypes) * len(ops), "failures": failures,
            "compiled": after["misses"] - before["misses"],
            "from_disk": after["hits"] - before["hits"],
            "seconds": time.perf_counter() - t0, "cache": after["dir"]}


def _spawn(dtypes, ops, jobs):
    """`python -m cujit warmup --nice ...` in a new process (which lowers its
    own CPU priority: no preexec_fn, unsafe in a process with threads), its
    output discarded."""
    cmd = [sys.executable, "-m", "cujit", "warmup", "--quiet", "--nice", "--dtypes",
           ",".join(dtypes), "--ops", ",".join(ops)]
    if jobs:
        cmd += ["--jobs", str(jobs)]
    return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def _parser(prog):
    p = argparse.ArgumentParser(prog=prog, allow_abbrev=False,
                                description="Compiles the stdlib's common specialisations "
                                            "into the disk cache, in parallel.")
    p.add_argument("--dtypes", default=",".join(DEFAULT_DTYPES),
                   help="comma-separated dtypes (default: %(default)s)")
    p.add_argument("--ops", default="", help="comma-separated operations (default: all; "
                                             "--list shows them)")
    p.add_argument("--jobs", type=int, default=0,
                   help="compiler threads (default: the CPUs available)")
    p.add_argument("--nice", action="store_true",
                   help="run at the lowest CPU priority (nice 19), as background=True does")
    p.add_argument("--list", action="store_true", help="list the operations and exit")
    p.add_argument("--quiet", action="store_true", help="print nothing but errors")
    return p


def main(argv, prog="python -m cujit warmup"):
    """The exit status: 0 done, 1 an operation failed, 2 a usage error."""
    p = _parser(prog)
    try:
        a = p.parse_args(argv)
    except SystemExit as e:
        return e.code
    if a.list:
        print("\n".join(OPS))
        return 0
    if a.nice and hasattr(os, "nice"):
        os.nice(19 - os.nice(0))
    import numpy as np
    import cujit
    try:
        dtypes = [np.dtype(d.strip()).name for d in a.dtypes.split(",") if d.strip()]
        ops = [o.strip() for o in a.ops.split(",") if o.strip()]
        r = warmup(dtypes, ops or None, a.jobs or None, quiet=True)
    except (TypeError, ValueError) as e:
        sys.stderr.write("%s: %s\n" % (prog, e))
        return 2
    except cujit.CudaError as e:
        sys.stderr.write("%s: the warm-up runs the operations on the GPU it compiles "
                         "for: %s\n" % (prog, e))
        return 1
    for (d, op), msg in sorted(r["failures"].items()):
        sys.stderr.write("%s: %s %s failed: %s\n" % (prog, d, op, msg))
    if not a.quiet:
        print("cujit warmup: %d operations (%s) in %.1f s: %d kernels compiled, %d already "
              "in the disk cache (%s)" % (r["ops"], ", ".join(dtypes), r["seconds"],
                                          r["compiled"], r["from_disk"], r["cache"] or "off"))
    return 1 if r["failures"] else 0
