"""Section 6: the first use of a stdlib operation in a new process with every
cache empty: cujit's DeviceArray operations beside CuPy's, each library in its
own fresh process per run (rounds taking turns, medians).  Measured: from
just before the operation to its synchronized result; the input arrays are
copied to the device (and the context made) before the clock starts."""
import shutil
import tempfile

from benchlib import RESULTS, cp, cujit, fmt, log, median
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


def section_first_stdlib(args):
    log("\n== 6. first use of a stdlib operation in a new process, every cache empty "
        "(n = 2^20, sum(axis=1) of 1024 x 1024; operation to synchronized result) ==")
    res = RESULTS.setdefault("first_stdlib", {})
    libs = [lib for lib, mod in (("cujit", cujit), ("cupy", cp)) if mod is not None]
    if not libs:
        log("  skipped: neither cujit nor CuPy imports here")
        return
    scripts = {}
    for dt in DTYPES:
        for op, (expr, ref) in OPS.items():
            for lib in libs:
                body = SCRIPTS[lib].replace("EXPR", expr).replace("REF", ref)
                scripts[(op, dt, lib)] = PRELUDE.replace("DTYPE", dt) + body
    work = tempfile.mkdtemp(prefix="cujit_fs_")
    try:
        cases = write_cases(work, scripts, "")
        alternate(cases, args.fs_runs, args.fs_budget, args.fs_timeout, work,
                  "first-stdlib", warm=False)
        log(f"  {'operation':<16} {'dtype':<8} " + " ".join(f"{lib + ' ms':>12}" for lib in libs)
            + ("   cujit / CuPy" if len(libs) == 2 else ""))
        by = {c.key: c for c in cases}
        for dt in DTYPES:
            for op in OPS:
                row = {lib: by[(op, dt, lib)] for lib in libs}
                meds = {lib: median(row[lib].empty) for lib in libs}
                for lib in libs:
                    res.setdefault(f"{op} {dt}", {})[lib] = row[lib].summary()
                ratio = (meds["cujit"] / meds["cupy"] if len(libs) == 2 and meds["cujit"]
                         and meds["cupy"] else None)
                bad = [lib for lib in libs if not row[lib].ok]
                log(f"  {op:<16} {dt:<8} " + " ".join(f"{fmt(meds[lib], 1):>12}" for lib in libs)
                    + (f"   {fmt(ratio)}x" if ratio else "")
                    + (f"   WRONG RESULT ({', '.join(bad)})" if bad else ""))
                if bad:
                    RESULTS["notes"].append(f"first-stdlib: {op} {dt} WRONG for {bad}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
