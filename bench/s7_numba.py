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
b. guvectorize ``"(n),(n)->()"`` dot products of 2^20 rows x 64 float32,
   and the same 2^26 elements per input as rows of 7 and of 1000:
   ``cujit.guvectorize`` with its staged entry (``stage='auto'``), cujit on
   the plain entry (``stage='off'``, a thread per row), at 1000 also
   ``stage='always'`` (one input staged in 128 KB blocks) and numba-cuda's
   ``@guvectorize(..., target='cuda')``, one body for all; inputs and output
   on the device (CuPy arrays for cujit, numba views of the same memory for
   numba, out= given), each result checked once; rounds taking turns (the
   order alternating), CUDA events around each call, the median ms per
   round and the median over rounds; host time per call (calls timed back
   to back, then a synchronize), bandwidth (both inputs read, the output
   written) as % of a device-to-device copy measured here, and which entry
   cujit's launch took (threads per block, shared bytes).
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


GU_SIZES = (64, 7, 1000)
GU_LABELS = {"staged": "cujit.guvectorize (staged)", "plain": "cujit.guvectorize (stage='off')",
             "always": "cujit.guvectorize (stage='always')",
             "numba": "numba @guvectorize(target='cuda')"}


def gufunc_calls(a, b, rows, n):
    """name -> (call, output, gufunc): cujit with the staged entry allowed,
    cujit on the plain entry (a thread per row reading where the rows are),
    at 1000 also cujit with stage='always' (the first input staged, 32 rows
    per block in 128 KB: auto takes the plain entry there), numba."""
    calls = {}
    stages = (("staged", "auto"), ("plain", "off")) + ((("always", "always"),) if n >= 1000
                                                        else ())
    if cujit is not None:
        for name, stage in stages:
            try:
                g = cujit.guvectorize(["void(float32[:], float32[:], float32[:])"],
                                      "(n),(n)->()")(dot_body)
                g.stage = stage
                out = cp.empty(rows, cp.float32)
                calls[name] = (lambda g=g, out=out: g(a, b, out=out), out, g)
            except Exception as e:  # noqa: BLE001
                err(f"numba_compat/gufunc cujit {name}", e)
    if cuda is not None:
        try:
            import numba
            ndot = numba.guvectorize(["void(float32[:], float32[:], float32[:])"],
                                     "(n),(n)->()", target="cuda")(dot_body)
            nout = cp.empty(rows, cp.float32)
            na, nb_, no = (cuda.as_cuda_array(v) for v in (a, b, nout))
            calls["numba"] = (lambda: ndot(na, nb_, out=no), nout, None)
        except Exception as e:  # noqa: BLE001
            err("numba_compat/gufunc numba", e)
    return calls


def gufunc_size(args, res, n, copy_gbs):
    """One core size: the same 2^26 elements per input (2^20 rows at 64),
    each contender checked once, then rounds taking turns (the order
    alternating), median ms per round, the median over rounds."""
    rows = args.nb_rows * 64 // n
    rng = cp.random.default_rng()
    a = rng.standard_normal((rows, n), dtype=cp.float32)
    b = rng.standard_normal((rows, n), dtype=cp.float32)
    ref = (a.astype(cp.float64) * b).sum(axis=1)
    nbytes = a.nbytes + b.nbytes + rows * 4
    calls = gufunc_calls(a, b, rows, n)
    log(f"  (n),(n)->() dot: {rows} rows x {n} float32, out= given")
    ok, runs = {}, {name: [] for name in calls}
    for name, (fn, out, g) in list(calls.items()):
        try:
            out.fill(cp.nan)
            fn()
            cp.cuda.Device().synchronize()
            ok[name] = bool(cp.allclose(out, ref, rtol=1e-4, atol=1e-3))
            if g is not None:
                res.setdefault("entry", {})[name] = list(g.last_launch[:3])
        except Exception as e:  # noqa: BLE001
            err(f"numba_compat/gufunc {name} n={n}", e)
            del calls[name]
    names = list(calls)
    for r in range(args.nb_rounds):
        for name in (names if r % 2 == 0 else names[::-1]):
            med, _, _ = gpu_time_ms(calls[name][0], args.bw_warm, args.bw_iters)
            runs[name].append(med)
    for name in names:
        med = median(runs[name])
        host = wall_ms(calls[name][0], args.bw_iters)
        gbs = nbytes / (med * 1e-3) / 1e9
        pct = 100 * gbs / copy_gbs if copy_gbs else None
        res[name] = {"ms": med, "host_ms": host, "gbs": gbs, "pct_copy": pct,
                     "correct": ok[name], "runs": [round(x, 4) for x in runs[name]]}
        how = ""
        if name in res.get("entry", {}):
            e = res["entry"][name]
            how = f"  [{e[0]}, {e[1]} threads, {e[2]} B shared]"
        log(f"  {GU_LABELS[name]:<36} {med:8.3f} ms/call (host {host:7.3f} ms)  "
            f"{gbs:7.1f} GB/s  {fmt(pct, 1):>6} % of copy{'' if ok[name] else '   WRONG RESULT'}"
            f"{how}")
    if "numba" in res:
        for name in ("staged", "plain", "always"):
            if name in res:
                log(f"  {GU_LABELS[name]} / numba-cuda time per call: "
                    f"{res[name]['ms'] / res['numba']['ms']:.2f}x")


def section_gufunc(args, res):
    if cp is None:
        raise RuntimeError("CuPy is needed for the timing (events) and the copy reference")
    n0 = args.nb_rows * 64
    src, dst = cp.empty(n0, cp.float32), cp.empty(n0, cp.float32)
    src.fill(1)
    copy = copy_reference(src, dst, args, "numba_compat/gufunc")
    copy_gbs = max(copy.values()) if copy else None
    res["copy_gbs"] = copy_gbs
    del src, dst
    log(f"  guvectorize dot products, {args.nb_rounds} rounds taking turns: cujit with the "
        f"staged entry, cujit with stage='off', numba-cuda")
    for n in GU_SIZES:
        try:
            gufunc_size(args, res.setdefault(f"n{n}", {}), n, copy_gbs)
        except Exception as e:  # noqa: BLE001
            err(f"numba_compat/gufunc n={n}", e)
        cp.get_default_memory_pool().free_all_blocks()


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
