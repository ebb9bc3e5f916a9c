"""Section 7: Numba's spelling on cujit beside numba-cuda itself.

a. One script, a Numba-spelled kernel (``@cuda.jit(cache=True)``, ``inc[1,
   32](x, 32)`` on a ``cuda.to_device`` array), run with ``from cujit import
   cuda`` and with ``from numba import cuda``: each run a new process that
   times the first call (decorator to synchronized result) and then the host
   time per launch (N launches timed with perf_counter, one synchronize after
   the clock stops, median of the repetitions).  Every round runs, for each
   library in turn (the order alternating between rounds), a process with
   empty caches (cujit's, numba's, the driver's PTX cache: fresh folders)
   and then one with the caches that process left (warm).  Medians over the
   rounds.
b. guvectorize ``"(n),(n)->()"`` dot products of 2^20 rows x 64 float32:
   ``cujit.guvectorize`` beside numba-cuda's ``@guvectorize(...,
   target='cuda')``, one body for both; inputs and output on the device
   (CuPy arrays for cujit, numba views of the same memory for numba, out=
   given), each result checked once; CUDA events around each of the calls
   (median ms per call), host time per call (calls timed back to back, then
   a synchronize), and bandwidth (both inputs read, the output written) as %
   of a device-to-device copy measured here.
"""
import os
import shutil
import tempfile
import time

from benchlib import (NUMBA_SETUP, RESULTS, child_env, copy_reference, cp, cuda, cujit, err, fmt,
                      gpu_time_ms, log, median, run_script)

LAUNCH_SCRIPT = r'''
import os, statistics, sys, time
import numpy as np
SETUP
IMPORT
N, REPS = NLAUNCH, NREPS
x = cuda.to_device(np.zeros(32, np.int32))
cuda.synchronize()
t0 = time.perf_counter()


@cuda.jit(cache=True)
def inc(x, n):
    i = cuda.grid(1)
    if i < n:
        x[i] = x[i] + 1


inc[1, 32](x, 32)
cuda.synchronize()
t1 = time.perf_counter()
ok = bool((x.copy_to_host() == 1).all())
warm = min(N, 1000)
for _ in range(warm):
    inc[1, 32](x, 32)
cuda.synchronize()
per = []
for _ in range(REPS):
    ta = time.perf_counter()
    for _ in range(N):
        inc[1, 32](x, 32)
    tb = time.perf_counter()
    cuda.synchronize()
    per.append((tb - ta) / N * 1e6)
ok = ok and bool((x.copy_to_host() == 1 + warm + N * REPS).all())
print("RESULT %.6f %.5f %s" % ((t1 - t0) * 1e3, statistics.median(per), ok), flush=True)
'''

IMPORTS = {"cujit": "from cujit import cuda", "numba": "from numba import cuda"}
LABELS = {"cujit": "cujit.cuda (from cujit import cuda)", "numba": "numba-cuda"}


def dot_body(a, b, out):
    acc = 0.0
    for i in range(a.shape[0]):
        acc += a[i] * b[i]
    out[0] = acc


def run_launch(lib, script, cache_root, args):
    env = child_env(PYTHONUNBUFFERED="1")
    for var, sub in (("CUJIT_CACHE_DIR", "cujit"), ("NUMBA_CACHE_DIR", "numba"),
                     ("CUDA_CACHE_PATH", "cuda")):
        d = os.path.join(cache_root, sub)
        os.makedirs(d, exist_ok=True)
        env[var] = d
    _, m = run_script(f"{lib} numba-spelled launch", script, env, args.first_timeout)
    return float(m[1]), float(m[2]), m[3] == "True"


def section_launch_first(args, res):
    avail = {"cujit": cujit is not None, "numba": cuda is not None}
    libs = [lib for lib in ("cujit", "numba") if avail[lib]]
    for lib in ("cujit", "numba"):
        if not avail[lib]:
            log(f"  {LABELS[lib]}: skipped (not importable here)")
            RESULTS["errors"][f"numba_compat/{lib}"] = "not importable here"
    work = tempfile.mkdtemp(prefix="cujit_s7_")
    runs = {lib: {"cold_ms": [], "warm_ms": [], "launch_us": [], "ok": True} for lib in libs}
    deadline = time.perf_counter() + args.nb_budget
    try:
        for r in range(args.nb_rounds):
            if time.perf_counter() > deadline:
                RESULTS["notes"].append("numba_compat: rounds cut short (time budget)")
                break
            for lib in (libs if r % 2 == 0 else libs[::-1]):
                cache = tempfile.mkdtemp(dir=work)
                script = os.path.join(cache, f"launch_{lib}.py")     # numba caches beside it
                with open(script, "w") as f:
                    f.write(LAUNCH_SCRIPT.replace("SETUP", NUMBA_SETUP if lib == "numba" else "")
                            .replace("IMPORT", IMPORTS[lib])
                            .replace("NLAUNCH", str(args.nb_launches))
                            .replace("NREPS", str(args.nb_reps)))
                try:
                    for kind in ("cold_ms", "warm_ms"):
                        first, us, ok = run_launch(lib, script, cache, args)
                        runs[lib][kind].append(first)
                        runs[lib]["launch_us"].append(us)
                        runs[lib]["ok"] &= ok
                except Exception as e:  # noqa: BLE001
                    err(f"numba_compat/launch {lib}", e)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for lib in libs:
        v = runs[lib]
        if not v["launch_us"]:
            continue
        res[lib] = {k: median(v[k]) for k in ("cold_ms", "warm_ms", "launch_us")}
        res[lib]["runs"] = {k: [round(x, 3) for x in v[k]] for k in ("cold_ms", "warm_ms",
                                                                    "launch_us")}
        res[lib]["correct"] = v["ok"]
        log(f"  {LABELS[lib]:<36} launch {fmt(res[lib]['launch_us'], 2):>7} us   first call: "
            f"empty caches {fmt(res[lib]['cold_ms'], 1):>8} ms, warm {fmt(res[lib]['warm_ms'], 1):>7}"
            f" ms{'' if v['ok'] else '   WRONG RESULT'}")
    if "cujit" in res and "numba" in res:
        c, n = res["cujit"], res["numba"]
        res["ratio_launch"] = c["launch_us"] / n["launch_us"]
        log(f"  cujit / numba-cuda: launch {res['ratio_launch']:.2f}x, first call empty "
            f"{c['cold_ms'] / n['cold_ms']:.2f}x, warm {c['warm_ms'] / n['warm_ms']:.2f}x")


def wall_ms(fn, iters):
    fn()
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
    cp.cuda.Device().synchronize()
    return (time.perf_counter() - t0) / iters * 1e3


def section_gufunc(args, res):
    rows, n = args.nb_rows, 64
    log(f"  guvectorize (n),(n)->() dot: {rows} rows x {n} float32, out= given")
    if cp is None:
        raise RuntimeError("CuPy is needed for the timing (events) and the copy reference")
    rng = cp.random.default_rng()
    a = rng.standard_normal((rows, n), dtype=cp.float32)
    b = rng.standard_normal((rows, n), dtype=cp.float32)
    ref = (a.astype(cp.float64) * b).sum(axis=1)
    nbytes = a.nbytes + b.nbytes + rows * 4
    src, dst = cp.empty(a.size, cp.float32), cp.empty(a.size, cp.float32)
    src.fill(1)
    copy = copy_reference(src, dst, args, "numba_compat/gufunc")
    copy_gbs = max(copy.values()) if copy else None
    res["copy_gbs"] = copy_gbs
    del src, dst
    calls = {}
    if cujit is not None:
        try:
            cdot = cujit.guvectorize(["void(float32[:], float32[:], float32[:])"],
                                     "(n),(n)->()")(dot_body)
            cout = cp.empty(rows, cp.float32)
            calls["cujit"] = (lambda: cdot(a, b, out=cout), cout)
        except Exception as e:  # noqa: BLE001
            err("numba_compat/gufunc cujit", e)
    if cuda is not None:
        try:
            import numba
            ndot = numba.guvectorize(["void(float32[:], float32[:], float32[:])"],
                                     "(n),(n)->()", target="cuda")(dot_body)
            nout = cp.empty(rows, cp.float32)
            na, nb_, no = (cuda.as_cuda_array(v) for v in (a, b, nout))
            calls["numba"] = (lambda: ndot(na, nb_, out=no), nout)
        except Exception as e:  # noqa: BLE001
            err("numba_compat/gufunc numba", e)
    labels = {"cujit": "cujit.guvectorize", "numba": "numba @guvectorize(target='cuda')"}
    for lib, (fn, out) in calls.items():
        try:
            out.fill(cp.nan)
            fn()
            cp.cuda.Device().synchronize()
            ok = bool(cp.allclose(out, ref, rtol=1e-4, atol=1e-4))
            med, _, _ = gpu_time_ms(fn, args.bw_warm, args.bw_iters)
            host = wall_ms(fn, args.bw_iters)
            gbs = nbytes / (med * 1e-3) / 1e9
            pct = 100 * gbs / copy_gbs if copy_gbs else None
            res[lib] = {"ms": med, "host_ms": host, "gbs": gbs, "pct_copy": pct, "correct": ok}
            log(f"  {labels[lib]:<36} {med:8.3f} ms/call (host {host:7.3f} ms)  "
                f"{gbs:7.1f} GB/s  {fmt(pct, 1):>6} % of copy{'' if ok else '   WRONG RESULT'}")
        except Exception as e:  # noqa: BLE001
            err(f"numba_compat/gufunc {lib}", e)
    if "cujit" in res and "numba" in res:
        log(f"  cujit / numba-cuda time per call: {res['cujit']['ms'] / res['numba']['ms']:.2f}x")


def section_numba(args):
    log("\n== 7. Numba's spelling: cujit.cuda beside numba-cuda ==")
    res = RESULTS.setdefault("numba_compat", {})
    log(f"  a. the same Numba-spelled script, a new process per run: launch k[1, 32](x, 32) "
        f"({args.nb_launches} x {args.nb_reps}), first call with empty and warm caches, "
        f"{args.nb_rounds} rounds alternating")
    try:
        section_launch_first(args, res.setdefault("launch", {}))
    except Exception as e:      # noqa: BLE001
        err("numba_compat/launch", e)
    log("  b.")
    try:
        section_gufunc(args, res.setdefault("gufunc", {}))
    except Exception as e:      # noqa: BLE001
        err("numba_compat/gufunc", e)
