"""Section 6: @cujit.fuse beside cupy.fuse, CuPy's unfused expression and
cujit's unfused stdlib, in one run.

- sum(x * y, axis=-1) of a (2^14, 2^14) float32 pair, and sum(x * y) of a
  flat 2^28 pair: bandwidth counting the bytes read once (2 x 1 GiB);
- exp(a * sin(x) + cos(y)) * z - 1 on 2^28 float32 (a a scalar): 3 reads
  and a write;
  each as a share of a device-to-device copy measured here; every result
  checked once against CuPy's unfused expression (float64 for the sums);
  the libraries take turns round by round (CUDA events, medians of each
  round, the median over the rounds);
- the first call of the fused chain in a new process with every cache empty
  (cujit's, CuPy's, the driver's), cujit and cupy.fuse alternating, medians.
"""
import os
import shutil
import tempfile
import time

import numpy as np

from benchlib import (RESULTS, child_env, copy_reference, cp, cujit, err, fmt, gpu_time_ms,
                      log, median, run_script)
from s4_forms import to_cujit


def fused_cujit():
    @cujit.fuse
    def dot_rows(x, y):
        return np.sum(x * y, axis=-1)

    @cujit.fuse
    def dot_all(x, y):
        return np.sum(x * y)

    @cujit.fuse
    def chain(a, x, y, z):
        return np.exp(a * np.sin(x) + np.cos(y)) * z - 1
    return dot_rows, dot_all, chain


def fused_cupy():
    @cp.fuse()
    def dot_rows(x, y):
        return cp.sum(x * y, axis=-1)

    @cp.fuse()
    def dot_all(x, y):
        return cp.sum(x * y)

    @cp.fuse()
    def chain(a, x, y, z):
        return cp.exp(a * cp.sin(x) + cp.cos(y)) * z - 1
    return dot_rows, dot_all, chain


def unfused_cupy_chain(a, x, y, z):
    return cp.exp(a * cp.sin(x) + cp.cos(y)) * z - 1


def check(got, ref, tol):
    g = cp.asarray(got).astype(cp.float64).ravel()
    r = ref.astype(cp.float64).ravel()
    if g.size != r.size:
        return False, f"size {g.size}, expected {r.size}"
    rel = float(cp.linalg.norm(g - r) / cp.linalg.norm(r))
    return rel < tol, f"rel err {rel:.1e}, output {cp.asarray(got).dtype}"


def rounds(cases, args, nbytes, copy_gbs, res):
    """cases: [(key, label, fn, verify)]; each checked once, then timed in
    rounds, the libraries taking turns."""
    live = []
    for key, label, fn, verify in cases:
        try:
            r = fn()
            cp.cuda.Device().synchronize()
            ok, detail = verify(r)
            del r
            live.append((key, label, fn, ok, detail))
        except Exception as e:  # noqa: BLE001
            err(f"fuse/{key}", e)
    per = {key: [] for key, *_ in live}
    nround = 3 if args.quick else 7
    iters = max(2, args.bw_iters // 4)
    for _ in range(nround):
        for key, label, fn, ok, detail in live:
            med, _, _ = gpu_time_ms(fn, 1, iters)
            per[key].append(med)
    for key, label, fn, ok, detail in live:
        ms = median(per[key])
        gbs = nbytes / (ms * 1e-3) / 1e9
        pct = 100.0 * gbs / copy_gbs if copy_gbs else None
        res[key] = {"label": label, "ms": ms, "rounds_ms": per[key], "gbs": gbs,
                    "pct_copy": pct, "correct": ok, "check": detail}
        log(f"  {label:<46} {ms:8.4f} ms  {gbs:7.1f} GB/s  {fmt(pct, 1):>5} % copy  [{detail}]"
            f"{'' if ok else '   WRONG RESULT'}")


FIRST_PRELUDE = r'''
import os, sys, time
import numpy as np
N = 1 << 20
rng = np.random.default_rng(7)
hx, hy, hz = (rng.random(N, dtype=np.float32) for _ in range(3))
REF = np.exp(np.float32(1.5) * np.sin(hx) + np.cos(hy)) * hz - 1
def report(t0, t1, got):
    got = np.asarray(got)
    ok = got.shape == REF.shape and bool(np.allclose(got, REF, rtol=1e-5, atol=1e-5))
    print("RESULT %.6f %s %s" % ((t1 - t0) * 1e3, ok, got.dtype), flush=True)
'''

FIRST_SCRIPTS = {
    "cujit_fuse": r'''
import cujit
x, y, z = (cujit.to_device(h) for h in (hx, hy, hz))
cujit.synchronize()
t0 = time.perf_counter()
@cujit.fuse
def chain(a, x, y, z):
    return np.exp(a * np.sin(x) + np.cos(y)) * z - 1
o = chain(np.float32(1.5), x, y, z)
cujit.synchronize()
t1 = time.perf_counter()
report(t0, t1, cujit.asnumpy(o))
''',
    "cupy_fuse": r'''
import cupy as cp
x, y, z = (cp.asarray(h) for h in (hx, hy, hz))
cp.cuda.Device().synchronize()
t0 = time.perf_counter()
@cp.fuse()
def chain(a, x, y, z):
    return cp.exp(a * cp.sin(x) + cp.cos(y)) * z - 1
o = chain(np.float32(1.5), x, y, z)
cp.cuda.Device().synchronize()
t1 = time.perf_counter()
report(t0, t1, o.get())
''',
}


def first_calls(args, res):
    log("  first call of the fused chain, new process, every cache empty (n = 2^20; "
        "decorator to synchronized result); cujit and cupy.fuse alternating")
    work = tempfile.mkdtemp(prefix="cujit_fuse_first_")
    runs = {k: [] for k in FIRST_SCRIPTS}
    oks = {k: True for k in FIRST_SCRIPTS}
    scripts = {}
    for lib, body in FIRST_SCRIPTS.items():
        scripts[lib] = os.path.join(work, f"first_{lib}.py")
        with open(scripts[lib], "w") as f:
            f.write(FIRST_PRELUDE + body)
    deadline = time.perf_counter() + args.fv_budget
    for r in range(args.first_runs):
        order = list(FIRST_SCRIPTS) if r % 2 == 0 else list(FIRST_SCRIPTS)[::-1]
        for lib in order:
            if time.perf_counter() > deadline:
                RESULTS["notes"].append("fuse first call: runs cut short (time budget)")
                break
            env = child_env(PYTHONUNBUFFERED="1")
            root = tempfile.mkdtemp(dir=work)
            for var, sub in (("CUJIT_CACHE_DIR", "cujit"), ("CUPY_CACHE_DIR", "cupy"),
                             ("CUDA_CACHE_PATH", "cuda")):
                os.makedirs(os.path.join(root, sub))
                env[var] = os.path.join(root, sub)
            try:
                _, m = run_script(f"{lib} first fused call", scripts[lib], env,
                                  args.fv_timeout)
                runs[lib].append(float(m[1]))
                oks[lib] &= m[2] == "True"
            except Exception as e:  # noqa: BLE001
                err(f"fuse/first/{lib}", e)
    shutil.rmtree(work, ignore_errors=True)
    for lib, v in runs.items():
        if v:
            res["first_" + lib] = {"empty_ms": median(v), "runs_ms": v, "correct": oks[lib]}
            log(f"  {lib:<46} {fmt(median(v), 1):>8} ms  runs {[round(t, 1) for t in v]}"
                f"{'' if oks[lib] else '   WRONG RESULT'}")
    a, b = res.get("first_cujit_fuse"), res.get("first_cupy_fuse")
    if a and b:
        log(f"  first call cujit / cupy.fuse: {a['empty_ms'] / b['empty_ms']:.2f} (goal <= 1)")


def section_fuse(args):
    log("\n== 9. @cujit.fuse: sum(x * y, axis=-1), sum(x * y), exp(a*sin(x)+cos(y))*z-1; "
        "first fused call ==")
    if cujit is None or cp is None:
        log("  skipped: needs cujit and CuPy")
        return
    res = RESULTS.setdefault("fuse", {})
    side, n = args.side, args.n
    f32 = np.float32
    rng = cp.random.default_rng(11)
    cj_rows, cj_all, cj_chain = fused_cujit()
    cp_rows, cp_all, cp_chain = fused_cupy()

    # sum(x * y, axis=-1) over a (side, side) pair
    x = rng.random((side, side), dtype=f32)
    y = rng.random((side, side), dtype=f32)
    copy_gbs = max(copy_reference(x, cp.empty_like(x), args, "fuse").values() or [None])
    res["copy_gbs"] = copy_gbs
    ref = cp.sum(x.astype(cp.float64) * y, axis=-1)
    dx, dy = to_cujit(x), to_cujit(y)     # cujit DeviceArrays for its unfused stdlib
    log(f"  -- sum(x * y, axis=-1), ({side}, {side}) float32, bytes read once")
    rounds([("rows_cujit_fuse", "cujit.fuse", lambda: cj_rows(x, y), lambda r: check(r, ref, 1e-4)),
            ("rows_cupy_fuse", "cupy.fuse", lambda: cp_rows(x, y), lambda r: check(r, ref, 1e-4)),
            ("rows_cupy", "cupy, unfused: cp.sum(x * y, axis=-1)",
             lambda: cp.sum(x * y, axis=-1), lambda r: check(r, ref, 1e-4)),
            ("rows_cujit", "cujit stdlib, unfused: (x * y).sum(axis=-1)",
             lambda: (dx * dy).sum(axis=-1), lambda r: check(r, ref, 1e-4))],
           args, 2 * x.nbytes, copy_gbs, res)
    del x, y, ref, dx, dy

    # sum(x * y) of a flat pair
    x = rng.random(n, dtype=f32)
    y = rng.random(n, dtype=f32)
    ref = cp.sum(x.astype(cp.float64) * y).reshape(1)
    dx, dy = to_cujit(x), to_cujit(y)
    log(f"  -- sum(x * y), {n} float32, bytes read once")
    rounds([("all_cujit_fuse", "cujit.fuse", lambda: cj_all(x, y), lambda r: check(r, ref, 1e-4)),
            ("all_cupy_fuse", "cupy.fuse", lambda: cp_all(x, y), lambda r: check(r, ref, 1e-4)),
            ("all_cupy", "cupy, unfused: cp.sum(x * y)", lambda: cp.sum(x * y),
             lambda r: check(r, ref, 1e-4)),
            ("all_cujit", "cujit stdlib, unfused: (x * y).sum()",
             lambda: (dx * dy).sum(), lambda r: check(r, ref, 1e-4))],
           args, 2 * x.nbytes, copy_gbs, res)
    del dx, dy

    # the chain
    z = rng.random(n, dtype=f32)
    a = f32(1.5)
    ref = cp.exp(a * cp.sin(x.astype(cp.float64)) + cp.cos(y.astype(cp.float64))) * z - 1
    log(f"  -- exp(a * sin(x) + cos(y)) * z - 1, {n} float32, 3 reads + 1 write")
    rounds([("chain_cujit_fuse", "cujit.fuse", lambda: cj_chain(a, x, y, z),
             lambda r: check(r, ref, 1e-5)),
            ("chain_cupy_fuse", "cupy.fuse", lambda: cp_chain(a, x, y, z),
             lambda r: check(r, ref, 1e-5)),
            ("chain_cupy", "cupy, unfused expression", lambda: unfused_cupy_chain(a, x, y, z),
             lambda r: check(r, ref, 1e-5))],
           args, 4 * x.nbytes, copy_gbs, res)
    del x, y, z, ref
    try:
        first_calls(args, res)
    except Exception as e:  # noqa: BLE001
        err("fuse/first", e)

