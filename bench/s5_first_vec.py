"""Section 5: first call of a vectorize in a new process with every cache
empty (cujit's, CuPy's, numba's and the driver's), for each library."""
import os
import shutil
import tempfile
import time

from benchlib import (NUMBA_SETUP, RESULTS, child_env, cpjit, cuda, cujit, err, fmt, log, median,
                      run_script)


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


def run_fv(lib, script, cache_root, timeout):
    """One process with every cache empty: cujit's, CuPy's, numba's and the
    driver's PTX JIT cache (CUDA_CACHE_PATH), each a fresh folder."""
    env = child_env(PYTHONUNBUFFERED="1")
    for var, sub in (("CUJIT_CACHE_DIR", "cujit"), ("CUPY_CACHE_DIR", "cupy"),
                     ("NUMBA_CACHE_DIR", "numba"), ("CUDA_CACHE_PATH", "cuda")):
        d = os.path.join(cache_root, sub)
        os.makedirs(d, exist_ok=True)
        env[var] = d
    _, m = run_script(f"{lib} first-vectorize", script, env, timeout)
    return float(m[1]), m[2] == "True", (m[3] if len(m) > 3 else "?")


def section_first_vec(args):
    log("\n== 5. first call of a vectorize x * y + 1.0 in a new process, empty caches "
        "(n = 2^20 float32 on the device; decorator to synchronized result) ==")
    log("  every cache a fresh folder: CUJIT_CACHE_DIR, CUPY_CACHE_DIR, NUMBA_CACHE_DIR and "
        "the driver's PTX JIT cache CUDA_CACHE_PATH")
    res = RESULTS.setdefault("first_vec", {})
    deadline = time.perf_counter() + args.fv_budget
    work = tempfile.mkdtemp(prefix="cujit_fv_")
    avail = {"cujit": cujit is not None, "cupy_vectorize": cpjit is not None,
             "numba": cuda is not None}
    labels = {"cujit": "cujit @vectorize", "cupy_vectorize": "cupy.vectorize",
              "numba": "numba @vectorize(target='cuda')"}
    for lib, body in FV_SCRIPTS.items():
        if not avail[lib]:
            log(f"  {labels[lib]}: skipped (not importable here)")
            RESULTS["errors"][f"first_vec/{lib}"] = "not importable here"
            continue
        script = os.path.join(work, f"fv_{lib}.py")
        with open(script, "w") as f:
            f.write(FV_PRELUDE + body)
        try:
            runs, oks, dts = [], [], set()
            for _ in range(args.first_runs):
                if time.perf_counter() > deadline:
                    RESULTS["notes"].append(f"first-vectorize: {lib} runs cut short (time budget)")
                    break
                ms, ok, dt = run_fv(lib, script, tempfile.mkdtemp(dir=work), args.fv_timeout)
                runs.append(ms)
                oks.append(ok)
                dts.add(dt)
            if not runs:
                continue
            res[lib] = {"empty_ms": median(runs), "runs_ms": runs, "correct": all(oks),
                        "out_dtype": sorted(dts)}
            log(f"  {labels[lib]:<34} {fmt(median(runs), 1):>8} ms  runs {[round(v, 1) for v in runs]}"
                f"  (output {', '.join(sorted(dts))})"
                f"{'' if all(oks) else '   WRONG RESULT'}")
            if not all(oks):
                RESULTS["notes"].append(f"first-vectorize: {lib} gave a WRONG result")
        except Exception as e:  # noqa: BLE001
            err(f"first_vec/{lib}", e)
    shutil.rmtree(work, ignore_errors=True)
