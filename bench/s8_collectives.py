"""Section 8: block collectives.  A per-block sum (2^24 float32, blocks of
256 threads, one result per block) and a block-wide exclusive prefix sum,
each library in a new process with every cache empty: the first call
(decorator to synchronized, checked result: compilation included, where
CUB's headers cost cupyx.jit.cub and cuda.coop about a second of NVRTC
time) and then the kernel's device time (CUDA events, median of 20).
cujit: jit.block_reduce / jit.block_scan; cupyx: jit.cub.BlockReduce (CuPy
has no block scan); numba-cuda: cuda.coop's block.sum / block.exclusive_sum
(import cuda.coop, else cuda.cooperative.experimental).  Rounds take turns
between the libraries; medians."""
import importlib.util
import os
import shutil
import tempfile
import time

from benchlib import NUMBA_SETUP, RESULTS, child_env, err, fmt, log, median, run_script

PRELUDE = r'''
import os, sys, time
import numpy as np
N, TPB = 1 << 24, 256
rng = np.random.default_rng(11)
hx = rng.standard_normal(N).astype(np.float32)
REF_SUM = hx.reshape(-1, TPB).astype(np.float64).sum(axis=1)
REF_SCAN = np.cumsum(hx.reshape(-1, TPB).astype(np.float64), axis=1) - hx.reshape(-1, TPB)
def check(sums, scan):
    ok = bool(np.allclose(np.asarray(sums), REF_SUM, rtol=1e-4, atol=1e-3))
    if scan is not None:
        ok = ok and bool(np.allclose(np.asarray(scan).reshape(-1, TPB), REF_SCAN, rtol=1e-4, atol=1e-3))
    return ok
def report(first_ms, ok, sum_ms, scan_ms):
    print("RESULT %.6f %s %.6f %.6f" % (first_ms, ok, sum_ms, scan_ms), flush=True)
'''

SCRIPTS = {
    "cujit": r'''
import cujit
from cujit import jit
x = cujit.to_device(hx); sums = cujit.empty(N // TPB, np.float32); scan = cujit.empty(N, np.float32)
cujit.synchronize()
t0 = time.perf_counter()
@jit.rawkernel()
def block_sum(x, out):
    v = jit.block_reduce(x[jit.blockIdx.x * 256 + jit.threadIdx.x])
    if jit.threadIdx.x == 0:
        out[jit.blockIdx.x] = v
block_sum[N // TPB, TPB](x, sums)
cujit.synchronize()
t1 = time.perf_counter()
@jit.rawkernel()
def block_scan(x, out):
    i = jit.blockIdx.x * 256 + jit.threadIdx.x
    out[i] = jit.block_scan(x[i], inclusive=False)
block_scan[N // TPB, TPB](x, scan)
ok = check(cujit.asnumpy(sums), cujit.asnumpy(scan))
def timed(f):
    evs = [(cujit.Event(), cujit.Event()) for _ in range(23)]
    for s, e in evs:
        s.record(); f(); e.record()
    cujit.synchronize()
    return float(np.median([s.elapsed_time(e) for s, e in evs[3:]]))
report((t1 - t0) * 1e3, ok, timed(lambda: block_sum[N // TPB, TPB](x, sums)),
       timed(lambda: block_scan[N // TPB, TPB](x, scan)))
''',
    "cupyx": r'''
import cupy as cp
from cupyx import jit
x = cp.asarray(hx); sums = cp.empty(N // TPB, np.float32)
cp.cuda.Device().synchronize()
t0 = time.perf_counter()
@jit.rawkernel()
def block_sum(x, out):
    BlockReduce = jit.cub.BlockReduce[np.float32, 256]
    temp_storage = jit.shared_memory(dtype=BlockReduce.TempStorage, size=1)
    v = BlockReduce(temp_storage[0]).Sum(x[jit.blockIdx.x * 256 + jit.threadIdx.x])
    if jit.threadIdx.x == 0:
        out[jit.blockIdx.x] = v
block_sum[N // TPB, TPB](x, sums)
cp.cuda.Device().synchronize()
t1 = time.perf_counter()
ok = check(sums.get(), None)
def timed(f):
    evs = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(23)]
    for s, e in evs:
        s.record(); f(); e.record()
    cp.cuda.Device().synchronize()
    return float(np.median([cp.cuda.get_elapsed_time(s, e) for s, e in evs[3:]]))
report((t1 - t0) * 1e3, ok, timed(lambda: block_sum[N // TPB, TPB](x, sums)), float("nan"))
''',
    "numba_coop": NUMBA_SETUP + r'''
import numba
from numba import cuda
try:
    from cuda import coop
except ImportError:
    import cuda.cooperative.experimental as coop
x = cuda.to_device(hx); sums = cuda.device_array(N // TPB, np.float32)
scan = cuda.device_array(N, np.float32)
cuda.synchronize()
t0 = time.perf_counter()
block_reduce = coop.block.sum(numba.float32, 256)
@cuda.jit(link=block_reduce.files)
def block_sum(x, out):
    v = block_reduce(x[cuda.blockIdx.x * 256 + cuda.threadIdx.x])
    if cuda.threadIdx.x == 0:
        out[cuda.blockIdx.x] = v
block_sum[N // TPB, TPB](x, sums)
cuda.synchronize()
t1 = time.perf_counter()
block_exclusive = coop.block.exclusive_sum(numba.float32, 256)
@cuda.jit(link=block_exclusive.files)
def block_scan(x, out):
    i = cuda.blockIdx.x * 256 + cuda.threadIdx.x
    out[i] = block_exclusive(x[i])
block_scan[N // TPB, TPB](x, scan)
ok = check(sums.copy_to_host(), scan.copy_to_host())
def timed(f):
    evs = [(cuda.event(), cuda.event()) for _ in range(23)]
    for s, e in evs:
        s.record(); f(); e.record()
    cuda.synchronize()
    return float(np.median([cuda.event_elapsed_time(s, e) for s, e in evs[3:]]))
report((t1 - t0) * 1e3, ok, timed(lambda: block_sum[N // TPB, TPB](x, sums)),
       timed(lambda: block_scan[N // TPB, TPB](x, scan)))
''',
}

LABELS = {"cujit": "cujit jit.block_reduce / block_scan",
          "cupyx": "cupyx.jit.cub.BlockReduce",
          "numba_coop": "numba-cuda + cuda.coop"}


def have_coop():
    """CCCL's cuda.coop (or its older name cuda.cooperative) is importable"""
    for name in ("cuda.coop", "cuda.cooperative"):
        try:
            if importlib.util.find_spec(name) is not None:
                return True
        except (ImportError, ValueError):
            pass
    return False


def one_run(lib, script, root, timeout):
    env = child_env(PYTHONUNBUFFERED="1")
    for var, sub in (("CUJIT_CACHE_DIR", "cujit"), ("CUPY_CACHE_DIR", "cupy"),
                     ("NUMBA_CACHE_DIR", "numba"), ("CUDA_CACHE_PATH", "cuda")):
        d = os.path.join(root, sub)
        os.makedirs(d, exist_ok=True)
        env[var] = d
    _, m = run_script(f"{lib} collectives", script, env, timeout)
    return float(m[1]), m[2] == "True", float(m[3]), float(m[4])


def section_collectives(args):
    log("\n== 8. block collectives: per-block sum and exclusive block scan of 2^24 float32, "
        "blocks of 256, new process, every cache empty ==")
    res = RESULTS.setdefault("collectives", {})
    work = tempfile.mkdtemp(prefix="cujit_coll_")
    runs = {lib: [] for lib in SCRIPTS}
    if not have_coop():
        del runs["numba_coop"]
        log(f"  {LABELS['numba_coop']:<38} skipped: neither cuda.coop nor "
            "cuda.cooperative is installed here")
    deadline = time.perf_counter() + args.fv_budget * 2
    for rnd in range(args.first_runs):
        for lib, body in SCRIPTS.items():            # rounds take turns
            if lib not in runs or lib in res and res[lib] == "failed" or time.perf_counter() > deadline:
                continue
            script = os.path.join(work, f"coll_{lib}.py")
            with open(script, "w") as f:
                f.write(PRELUDE + body)
            try:
                runs[lib].append(one_run(lib, script, tempfile.mkdtemp(dir=work),
                                         args.fv_timeout * 2))
            except Exception as e:  # noqa: BLE001
                err(f"collectives/{lib}", e)
                res[lib] = "failed"
    for lib, rs in runs.items():
        if not rs:
            log(f"  {LABELS[lib]:<38} no result")
            continue
        first = median([r[0] for r in rs])
        ok = all(r[1] for r in rs)
        summ = median([r[2] for r in rs])
        scan = median([r[3] for r in rs])
        res[lib] = {"first_ms": first, "correct": ok, "sum_ms": summ, "scan_ms": scan,
                    "runs": rs}
        log(f"  {LABELS[lib]:<38} first call {fmt(first, 1):>8} ms   block sum "
            f"{fmt(summ, 4)} ms   block scan {fmt(scan, 4)} ms"
            f"{'' if ok else '   WRONG RESULT'}")
        if not ok:
            RESULTS["notes"].append(f"collectives: {lib} gave a WRONG result")
    shutil.rmtree(work, ignore_errors=True)
