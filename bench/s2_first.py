"""Section 2: first call of saxpy in a new process, with an empty and with a
warm disk cache, for each library (the scripts each process runs)."""
import os
import shutil
import tempfile
import time

from benchlib import (NUMBA_SETUP, RESULTS, SAXPY_CUDA, child_env, cp, cpjit, cuda, cujit, err,
                      fmt, log, median, run_script)


FIRST_PRELUDE = r'''
import os, sys, time
import numpy as np
N = 1 << 20
BLOCKS = (N + 255) // 256
rng = np.random.default_rng(2)
hx = rng.random(N, dtype=np.float32)
hy = rng.random(N, dtype=np.float32)
A = np.float32(2.0)
REF = A * hx + hy
def report(t0, t1, got):
    ok = bool(np.allclose(np.asarray(got), REF, rtol=1e-5, atol=1e-6))
    print("RESULT %.6f %s" % ((t1 - t0) * 1e3, ok), flush=True)
'''

FIRST_SCRIPTS = {
    "cujit": r'''
import cujit
from cujit import jit
try:
    x = cujit.to_device(hx); y = cujit.to_device(hy); out = cujit.empty(N, dtype=np.float32)
    back = lambda a: a.copy_to_host()
except Exception as e:
    print("NOTE cujit arrays failed (%s: %s); using CuPy arrays" % (type(e).__name__, e))
    import cupy as cp
    x = cp.asarray(hx); y = cp.asarray(hy); out = cp.empty(N, dtype=cp.float32)
    back = lambda a: a.get()
cujit.synchronize()
t0 = time.perf_counter()
@jit.rawkernel()
def saxpy(a, x, y, out):
    i = jit.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]
saxpy[BLOCKS, 256](np.float32(2.0), x, y, out)
cujit.synchronize()
t1 = time.perf_counter()
report(t0, t1, back(out))
''',
    "cupy_raw": r'''
import cupy as cp
x = cp.asarray(hx); y = cp.asarray(hy); out = cp.empty(N, dtype=cp.float32)
cp.cuda.Device().synchronize()
SRC = """SAXPY_CUDA"""
t0 = time.perf_counter()
k = cp.RawKernel(SRC, "saxpy")
k((BLOCKS,), (256,), (np.float32(2.0), x, y, out, np.int32(N)))
cp.cuda.Device().synchronize()
t1 = time.perf_counter()
report(t0, t1, out.get())
''',
    "cupyx_jit": r'''
import cupy as cp
from cupyx import jit as cpjit
x = cp.asarray(hx); y = cp.asarray(hy); out = cp.empty(N, dtype=cp.float32)
cp.cuda.Device().synchronize()
t0 = time.perf_counter()
@cpjit.rawkernel()
def saxpy(a, x, y, out, n):
    i = cpjit.grid(1)
    if i < n:
        out[i] = a * x[i] + y[i]
saxpy((BLOCKS,), (256,), (np.float32(2.0), x, y, out, N))
cp.cuda.Device().synchronize()
t1 = time.perf_counter()
report(t0, t1, out.get())
''',
    "numba": NUMBA_SETUP + r'''from numba import cuda
x = cuda.to_device(hx); y = cuda.to_device(hy); out = cuda.device_array(N, dtype=np.float32)
cuda.synchronize()
CACHE = os.environ.get("BENCH_NUMBA_CACHE") == "1"
def _probe(a):
    a[0] = 1
if CACHE:
    try:
        cuda.jit(cache=True)(_probe)
    except Exception as e:
        print("NOTE numba cache=True unavailable: %s: %s" % (type(e).__name__, e))
        CACHE = False
print("NOTE numba cache=%s" % CACHE)
t0 = time.perf_counter()
@cuda.jit(cache=CACHE)
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]
saxpy[BLOCKS, 256](np.float32(2.0), x, y, out)
cuda.synchronize()
t1 = time.perf_counter()
report(t0, t1, out.copy_to_host())
''',
}

CACHE_ENV = {"cujit": "CUJIT_CACHE_DIR", "cupy_raw": "CUPY_CACHE_DIR",
             "cupyx_jit": "CUPY_CACHE_DIR", "numba": "NUMBA_CACHE_DIR"}


def run_first(lib, script, cache_dir, timeout):
    env = child_env(PYTHONUNBUFFERED="1")
    env[CACHE_ENV[lib]] = cache_dir
    if lib == "numba":
        env["BENCH_NUMBA_CACHE"] = "1"
    out, m = run_script(f"{lib} first-call", script, env, timeout)
    notes = [ln[5:] for ln in out.splitlines() if ln.startswith("NOTE ")]
    return float(m[1]), m[2] == "True", notes


def count_files(d):
    return sum(len(fs) for _, _, fs in os.walk(d))


def section_first(args):
    log("\n== 2. first call in a new process (saxpy, n = 2^20; imports and arrays excluded) ==")
    res = RESULTS.setdefault("first", {})
    runs = args.first_runs
    deadline = time.perf_counter() + args.first_budget
    work = tempfile.mkdtemp(prefix="cujit_first_")
    avail = {"cujit": cujit is not None, "cupy_raw": cp is not None,
             "cupyx_jit": cpjit is not None, "numba": cuda is not None}
    for lib, body in FIRST_SCRIPTS.items():
        if not avail[lib]:
            log(f"  {lib}: skipped (not importable here)")
            continue
        if time.perf_counter() > deadline:
            RESULTS["notes"].append(f"first-call: {lib} skipped (time budget spent)")
            continue
        script = os.path.join(work, f"first_{lib}.py")
        with open(script, "w") as f:
            f.write(FIRST_PRELUDE + body.replace("SAXPY_CUDA", SAXPY_CUDA))
        entry = res.setdefault(lib, {})
        try:
            empty, oks, notes = [], [], set()
            for r in range(runs):
                if time.perf_counter() > deadline:
                    RESULTS["notes"].append(f"first-call: {lib} empty runs cut short (time budget)")
                    break
                ms, ok, nt = run_first(lib, script, tempfile.mkdtemp(dir=work), args.first_timeout)
                empty.append(ms)
                oks.append(ok)
                notes.update(nt)
            warm_dir = tempfile.mkdtemp(dir=work)
            fill_ms, ok, nt = run_first(lib, script, warm_dir, args.first_timeout)
            oks.append(ok)
            notes.update(nt)
            nfiles = count_files(warm_dir)
            warm = []
            for r in range(runs):
                if time.perf_counter() > deadline:
                    RESULTS["notes"].append(f"first-call: {lib} warm runs cut short (time budget)")
                    break
                ms, ok, nt = run_first(lib, script, warm_dir, args.first_timeout)
                warm.append(ms)
                oks.append(ok)
                notes.update(nt)
            entry.update({"empty_ms": median(empty), "empty_runs_ms": empty,
                          "warm_ms": median(warm), "warm_runs_ms": warm, "fill_ms": fill_ms,
                          "cache_files": nfiles, "correct": all(oks), "notes": sorted(notes)})
            log(f"  {lib:<10} empty {fmt(median(empty))} ms {[round(v, 2) for v in empty]}   "
                f"warm {fmt(median(warm))} ms {[round(v, 2) for v in warm]}   "
                f"(fill {fill_ms:.1f} ms, {nfiles} cache files)"
                f"{'' if all(oks) else '   WRONG RESULT'}")
            for nt in sorted(notes):
                log(f"      note: {nt}")
            if not all(oks):
                RESULTS["notes"].append(f"first-call: {lib} gave a WRONG saxpy result")
        except Exception as e:  # noqa: BLE001
            err(f"first/{lib}", e)
    shutil.rmtree(work, ignore_errors=True)
