"""Section 6: the first use of a stdlib operation in a new process with every
cache empty: cujit's DeviceArray operations beside CuPy's, each library in its
own fresh process per run (rounds taking turns, medians).  Measured: from
just before the operation to its synchronized result; the input arrays are
copied to the device (and the context made) before the clock starts.

cujit runs twice per row: with the prebuilt store off (CUJIT_NO_PREBUILT=1:
NVRTC compiles every kernel) and on, reading a store that the section builds
first with `python -m cujit prebuild` for the GPU present (timed and printed:
the install-time step on this machine) into a folder of its own
(CUJIT_PREBUILT_DIR), so the figures do not depend on how cujit was
installed.  CuPy's first use ships precompiled CUB for its sums."""
import os
import shutil
import subprocess
import sys
import tempfile
import time

from benchlib import RESULTS, child_env, cp, cujit, fmt, log, median
from firstlib import alternate, write_cases

PRELUDE = r'''
import time
import numpy as np
DT = np.dtype("DTYPE")
N = 1 << 20
rng = np.random.default_rng(11)
if DT.kind == "f":
    hx = rng.random(N).astype(DT); hy = rng.random(N).astype(DT)
else:                                       # distinct values: argmax has one answer
    hx = (rng.permutation(N) - N // 2).astype(DT); hy = (rng.permutation(N) - N // 2).astype(DT)
hm = hx.reshape(1024, 1024)
hc = rng.random(N) < 0.5
def acc(a):
    """the reference of a sum or a scan in float64 (NumPy's float32 cumsum is sequential)"""
    return a.astype(np.float64) if DT.kind == "f" else a
def check(got, ref):
    got = np.asarray(got)
    if got.shape != np.shape(ref):
        return False
    if DT.kind != "f":
        return bool((got == ref).all())
    return bool(np.allclose(got, ref, rtol=2e-4, atol=1e-3))
def report(t0, t1, got, ref):
    print("RESULT %.6f %s" % ((t1 - t0) * 1e3, check(got, ref)), flush=True)
'''

# name: (expression on x, y, m, c and the library's module L, NumPy's reference)
OPS = {
    "x + y": ("x + y", "hx + hy"),
    "x * 2.0": ("x * 2.0", "hx * 2.0"),
    "x.sum()": ("x.sum()", "acc(hx).sum()"),
    "x.sum(axis=1)": ("m.sum(axis=1)", "acc(hm).sum(axis=1)"),
    "argmax": ("L.argmax(x)", "np.argmax(hx)"),
    "cumsum": ("L.cumsum(x)", "np.cumsum(acc(hx))"),
    "where": ("L.where(c, x, y)", "np.where(hc, hx, hy)"),
}

SCRIPTS = {
    "cujit": r'''
import cujit as L
x, y, m, c = L.to_device(hx), L.to_device(hy), L.to_device(hm), L.to_device(hc)
L.synchronize()
t0 = time.perf_counter()
r = EXPR
L.synchronize()
t1 = time.perf_counter()
report(t0, t1, L.asnumpy(r), REF)
''',
    "cupy": r'''
import cupy as L
x, y, m, c = L.asarray(hx), L.asarray(hy), L.asarray(hm), L.asarray(hc)
L.cuda.Device().synchronize()
t0 = time.perf_counter()
r = EXPR
L.cuda.Device().synchronize()
t1 = time.perf_counter()
report(t0, t1, L.asnumpy(r), REF)
''',
}

DTYPES = ("float32", "int64")
LIBS = {"cujit": "cujit", "cujit prebuilt": "cujit", "cupy": "cupy"}


def build_store(work, res):
    """`python -m cujit prebuild` for the GPU present into work/store, timed;
    the store's folder, or None when it failed (said)"""
    store = os.path.join(work, "store")
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "cujit", "prebuild", "--out", store],
                       env=child_env(), capture_output=True, text=True, timeout=900)
    secs = time.perf_counter() - t0
    files = [f for f in os.listdir(store) if f.endswith(".cjc")] if os.path.isdir(store) else []
    size = sum(os.path.getsize(os.path.join(store, f)) for f in files)
    res["prebuild"] = {"seconds": secs, "files": len(files), "bytes": size,
                       "cpus": os.cpu_count(), "output": r.stdout.strip().splitlines()}
    if r.returncode != 0 or not files:
        log(f"  prebuild failed ({r.returncode}): {(r.stderr or r.stdout).strip()[-500:]}")
        RESULTS["notes"].append("first-stdlib: the prebuilt store could not be built")
        return None
    log(f"  install-time step (python -m cujit prebuild, {os.cpu_count()} CPUs): {secs:.1f} s, "
        f"{len(files)} kernels, {size / 2**20:.1f} MiB")
    return store


def section_first_stdlib(args):
    log("\n== 6. first use of a stdlib operation in a new process, every cache empty "
        "(n = 2^20, sum(axis=1) of 1024 x 1024; operation to synchronized result) ==")
    res = RESULTS.setdefault("first_stdlib", {})
    libs = [lib for lib, mod in (("cujit", cujit), ("cujit prebuilt", cujit), ("cupy", cp))
            if mod is not None]
    if not libs:
        log("  skipped: neither cujit nor CuPy imports here")
        return
    work = tempfile.mkdtemp(prefix="cujit_fs_")
    try:
        extras = {}
        if cujit is not None:
            store = build_store(work, RESULTS.setdefault("first_stdlib_prebuild", {}))
            if store is None:
                libs.remove("cujit prebuilt")
        scripts = {}
        for dt in DTYPES:
            for op, (expr, ref) in OPS.items():
                for lib in libs:
                    body = SCRIPTS[LIBS[lib]].replace("EXPR", expr).replace("REF", ref)
                    scripts[(op, dt, lib)] = PRELUDE.replace("DTYPE", dt) + body
                    if lib == "cujit":
                        extras[(op, dt, lib)] = {"CUJIT_NO_PREBUILT": "1"}
                    elif lib == "cujit prebuilt":
                        extras[(op, dt, lib)] = {"CUJIT_PREBUILT_DIR": store,
                                                 "CUJIT_NO_PREBUILT": "0"}
        cases = write_cases(work, scripts, "", extras)
        alternate(cases, args.fs_runs, args.fs_budget, args.fs_timeout, work,
                  "first-stdlib", warm=False)
        both = "cupy" in libs
        log(f"  {'operation':<16} {'dtype':<8} " + " ".join(f"{lib + ' ms':>19}" for lib in libs)
            + ("   cujit / CuPy   prebuilt / CuPy" if both else ""))
        by = {c.key: c for c in cases}
        for dt in DTYPES:
            for op in OPS:
                row = {lib: by[(op, dt, lib)] for lib in libs}
                meds = {lib: median(row[lib].empty) for lib in libs}
                for lib in libs:
                    res.setdefault(f"{op} {dt}", {})[lib] = row[lib].summary()
                ratios = ""
                if both:
                    for lib in ("cujit", "cujit prebuilt"):
                        r = (meds[lib] / meds["cupy"] if lib in meds and meds[lib]
                             and meds["cupy"] else None)
                        ratios += f"   {fmt(r) + 'x' if r else 'n/a':>12}"
                bad = [lib for lib in libs if not row[lib].ok]
                log(f"  {op:<16} {dt:<8} " + " ".join(f"{fmt(meds[lib], 1):>19}" for lib in libs)
                    + ratios + (f"   WRONG RESULT ({', '.join(bad)})" if bad else ""))
                if bad:
                    RESULTS["notes"].append(f"first-stdlib: {op} {dt} WRONG for {bad}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
