"""Section 5: first call of a vectorize in a new process with every cache
empty (cujit's, CuPy's, numba's and the driver's), and with the caches a
first run left, for each library: cujit @vectorize, cupy.vectorize,
cupy.ElementwiseKernel (the body in CUDA C++) and numba @vectorize(target='cuda')."""
import shutil
import tempfile

from benchlib import NUMBA_SETUP, RESULTS, cp, cpjit, cuda, cujit, fmt, log, median
from firstlib import alternate, runs_text, write_cases


FV_PRELUDE = r'''
import os, sys, time
import numpy as np
N = 1 << 20
rng = np.random.default_rng(7)
hx = rng.random(N, dtype=np.float32) + np.float32(0.5)
hy = rng.random(N, dtype=np.float32) + np.float32(0.5)
REF = hx * hy + np.float32(1.0)
def report(t0, t1, got):
    got = np.asarray(got)
    ok = got.shape == REF.shape and bool(np.allclose(got, REF, rtol=1e-5, atol=1e-6))
    print("NOTE output %s" % got.dtype)
    print("RESULT %.6f %s %s" % ((t1 - t0) * 1e3, ok, got.dtype), flush=True)
'''

FV_SCRIPTS = {
    "cujit": r'''
import cujit
x = cujit.to_device(hx); y = cujit.to_device(hy)
cujit.synchronize()
t0 = time.perf_counter()
@cujit.vectorize
def f(x, y):
    return x * y + 1.0
o = f(x, y)
cujit.synchronize()
t1 = time.perf_counter()
report(t0, t1, cujit.asnumpy(o))
''',
    "cupy_vectorize": r'''
import cupy as cp
x = cp.asarray(hx); y = cp.asarray(hy)
cp.cuda.Device().synchronize()
t0 = time.perf_counter()
def body(x, y):
    return x * y + 1.0
f = cp.vectorize(body)
o = f(x, y)
cp.cuda.Device().synchronize()
t1 = time.perf_counter()
report(t0, t1, o.get())
''',
    "cupy_ewk": r'''
import cupy as cp
x = cp.asarray(hx); y = cp.asarray(hy)
cp.cuda.Device().synchronize()
t0 = time.perf_counter()
f = cp.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x * y + 1.0f", "fv_ewk")
o = f(x, y)
cp.cuda.Device().synchronize()
t1 = time.perf_counter()
report(t0, t1, o.get())
''',
    "numba": NUMBA_SETUP + r'''import numba
from numba import cuda
x = cuda.to_device(hx); y = cuda.to_device(hy)
cuda.synchronize()
t0 = time.perf_counter()
@numba.vectorize(["float32(float32, float32)"], target="cuda")
def f(x, y):
    return x * y + 1.0
o = f(x, y)
cuda.synchronize()
t1 = time.perf_counter()
report(t0, t1, o.copy_to_host())
''',
}


LABELS = {"cujit": "cujit @vectorize", "cupy_vectorize": "cupy.vectorize",
          "cupy_ewk": "cupy.ElementwiseKernel", "numba": "numba @vectorize(target='cuda')"}


def section_first_vec(args):
    log("\n== 5. first call of a vectorize x * y + 1.0 in a new process, empty and warm caches "
        "(n = 2^20 float32 on the device; decorator to synchronized result) ==")
    log(f"  {args.first_runs} rounds, each library in turn, a fresh process per run; every cache "
        "(CUJIT_CACHE_DIR, CUPY_CACHE_DIR, NUMBA_CACHE_DIR, the driver's CUDA_CACHE_PATH) empty, "
        "or as one filling run left it (numba's vectorize has no disk cache)")
    res = RESULTS.setdefault("first_vec", {})
    avail = {"cujit": cujit is not None, "cupy_vectorize": cpjit is not None,
             "cupy_ewk": cp is not None, "numba": cuda is not None}
    scripts = {}
    for lib, body in FV_SCRIPTS.items():
        if avail[lib]:
            scripts[lib] = body
        else:
            log(f"  {LABELS[lib]}: skipped (not importable here)")
            RESULTS["errors"][f"first_vec/{lib}"] = "not importable here"
    work = tempfile.mkdtemp(prefix="cujit_fv_")
    try:
        cases = write_cases(work, scripts, FV_PRELUDE)
        alternate(cases, args.first_runs, args.fv_budget, args.fv_timeout, work,
                  "first-vectorize")
        for c in cases:
            res[c.key] = c.summary()
            log(f"  {LABELS[c.key]:<34} empty {fmt(median(c.empty), 1):>8} ms "
                f"{runs_text(c.empty)}   warm {fmt(median(c.warm), 1):>8} ms "
                f"{runs_text(c.warm)}{'' if c.ok else '   WRONG RESULT'}")
            for nt in sorted(c.notes):
                log(f"      note: {nt}")
            if not c.ok:
                RESULTS["notes"].append(f"first-vectorize: {c.key} gave a WRONG result")
    finally:
        shutil.rmtree(work, ignore_errors=True)
