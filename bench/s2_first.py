"""Section 2: first call of saxpy in a new process, with an empty and with a
warm disk cache, for each library (the scripts each process runs)."""
import shutil
import tempfile

from benchlib import NUMBA_SETUP, RESULTS, SAXPY_CUDA, cp, cpjit, cuda, cujit, fmt, log, median
from firstlib import alternate, runs_text, write_cases


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

LABELS = {"cujit": "cujit @jit.rawkernel", "cupy_raw": "CuPy RawKernel (CUDA C++)",
          "cupyx_jit": "cupyx.jit @jit.rawkernel", "numba": "numba-cuda @cuda.jit(cache=True)"}


def section_first(args):
    log("\n== 2. first call in a new process (saxpy rawkernel, n = 2^20; imports and arrays "
        "excluded), empty and warm disk caches ==")
    log(f"  {args.first_runs} rounds, each library in turn, a fresh process per run; every "
        "cache (the library's and the driver's CUDA_CACHE_PATH) empty, or as one filling run "
        "left it")
    res = RESULTS.setdefault("first", {})
    avail = {"cujit": cujit is not None, "cupy_raw": cp is not None,
             "cupyx_jit": cpjit is not None, "numba": cuda is not None}
    scripts = {}
    for lib, body in FIRST_SCRIPTS.items():
        if avail[lib]:
            scripts[lib] = body.replace("SAXPY_CUDA", SAXPY_CUDA)
        else:
            log(f"  {lib}: skipped (not importable here)")
    work = tempfile.mkdtemp(prefix="cujit_first_")
    try:
        cases = write_cases(work, scripts, FIRST_PRELUDE, {"numba": {"BENCH_NUMBA_CACHE": "1"}})
        alternate(cases, args.first_runs, args.first_budget, args.first_timeout, work,
                  "first-call")
        for c in cases:
            res[c.key] = c.summary()
            log(f"  {LABELS[c.key]:<34} empty {fmt(median(c.empty)):>8} ms "
                f"{runs_text(c.empty)}   warm {fmt(median(c.warm)):>8} ms {runs_text(c.warm, 2)}"
                f"{'' if c.ok else '   WRONG RESULT'}")
            for nt in sorted(c.notes):
                log(f"      note: {nt}")
            if not c.ok:
                RESULTS["notes"].append(f"first-call: {c.key} gave a WRONG saxpy result")
    finally:
        shutil.rmtree(work, ignore_errors=True)
