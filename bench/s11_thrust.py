"""Section 11: jit.thrust, each thread sorting (or scanning) its own row of a
ROWS x COLS int32 array (C order), as cupyx.jit's thrust tests do: cujit's
jit.thrust (its own per-thread algorithms, NVRTC) beside cupyx.jit.thrust
(Thrust's headers, compiled by nvcc).  numba-cuda has no Thrust in kernels.

(a) device time per launch: CUDA events around each launch, median over
    rounds in which the libraries take turns; results checked against NumPy
    on fresh random rows.
(b) first call of a new sort kernel in a warm process (a salt global new to
    every cache, so each repetition compiles): median of 3.  This is where
    Thrust's headers through nvcc cost."""
import time

import numpy as np

from benchlib import RESULTS, cp, cpjit, cujit, err, fmt, gpu_time_ms, jit, log, median

ROWS, COLS = 1024, 256
SALT = 1


def make_cujit(salt, op):
    global SALT
    SALT = salt

    def sort_rows(x, y):
        i = jit.grid(1)
        if i < x.shape[0]:
            row = x[i]
            row[0] = row[0] + SALT - SALT
            jit.thrust.sort(jit.thrust.device, row.begin(), row.end())

    def scan_rows(x, y):
        i = jit.grid(1)
        if i < x.shape[0]:
            row = x[i]
            row[0] = row[0] + SALT - SALT
            jit.thrust.inclusive_scan(jit.thrust.seq, row.begin(), row.end(), y[i].begin())
    k = jit.rawkernel()(scan_rows if op else sort_rows)
    return lambda x, y: k[(x.shape[0] + 127) // 128, 128](x, y)


def make_cupyx(salt, op):
    global SALT
    SALT = salt

    def sort_rows(x, y):
        i = cpjit.grid(1)
        if i < x.shape[0]:
            row = x[i]
            row[0] = row[0] + SALT - SALT
            cpjit.thrust.sort(cpjit.thrust.device, row.begin(), row.end())

    def scan_rows(x, y):
        i = cpjit.grid(1)
        if i < x.shape[0]:
            row = x[i]
            row[0] = row[0] + SALT - SALT
            cpjit.thrust.inclusive_scan(cpjit.thrust.seq, row.begin(), row.end(), y[i].begin())
    k = cpjit.rawkernel()(scan_rows if op else sort_rows)
    return lambda x, y: k(((x.shape[0] + 127) // 128,), (128,), (x, y))


def libraries():
    out = []
    if cujit is not None:
        out.append(("cujit", "cujit jit.thrust", make_cujit))
    if cpjit is not None and hasattr(cpjit, "thrust"):
        out.append(("cupyx_jit", "cupyx.jit.thrust", make_cupyx))
    return out


def check(run, op):
    """one launch on fresh rows against NumPy; True when right"""
    x0 = np.random.default_rng().integers(-10**6, 10**6, (ROWS, COLS)).astype(np.int32)
    x, y = cp.asarray(x0), cp.zeros((ROWS, COLS), cp.int32)
    run(x, y)
    cp.cuda.Device().synchronize()
    if op == 0:
        return bool((x.get() == np.sort(x0, axis=1)).all())
    return bool((y.get() == np.cumsum(x0, axis=1, dtype=np.int32)).all())


def section_thrust(args):
    log(f"\n== 11. jit.thrust: a sort and a scan per row ({ROWS} rows of {COLS} int32), "
        "and a first call ==")
    if cp is None:
        raise RuntimeError("CuPy is needed for section 11 (arrays and events)")
    res = RESULTS.setdefault("thrust", {})
    rounds = 2 if args.quick else 5
    for op, what in ((0, "sort"), (1, "inclusive_scan")):
        runs, times = {}, {}
        for key, name, make in libraries():
            try:
                runs[key] = make(1, op)
                res.setdefault(key, {})[what + "_correct"] = check(runs[key], op)
            except Exception as e:  # noqa: BLE001
                err(f"thrust/{key} {what}", e)
        x0 = np.random.default_rng().integers(-10**6, 10**6, (ROWS, COLS)).astype(np.int32)
        for _ in range(rounds):         # the libraries take turns
            for key, run in runs.items():
                try:
                    x, y = cp.asarray(x0), cp.zeros((ROWS, COLS), cp.int32)
                    med, _, _ = gpu_time_ms(lambda: run(x, y), 1, 5)
                    times.setdefault(key, []).append(med)
                except Exception as e:  # noqa: BLE001
                    err(f"thrust/{key} {what} time", e)
        for key, name, _ in libraries():
            if key in times:
                ok = res[key].get(what + "_correct")
                res[key][what + "_ms"] = median(times[key])
                log(f"  {name:<20} {what:<15} {median(times[key]):8.3f} ms per launch "
                    f"(median of {rounds} rounds){'' if ok else '  WRONG'}")
    reps = 1 if args.quick else 3
    for key, name, make in libraries():
        try:
            firsts = []
            for r in range(reps):
                salt = int(time.time_ns() // 1000 % 100000) * 8 + r + 2
                cp.cuda.Device().synchronize()
                t0 = time.perf_counter()
                run = make(salt, 0)
                x, y = cp.zeros((ROWS, COLS), cp.int32), cp.zeros((ROWS, COLS), cp.int32)
                run(x, y)
                cp.cuda.Device().synchronize()
                firsts.append((time.perf_counter() - t0) * 1000.0)
            res.setdefault(key, {}).update(first_ms=median(firsts), first_all=firsts)
            log(f"  {name:<20} first call of a new sort kernel {fmt(median(firsts), 1)} ms "
                f"(median of {reps}: {', '.join(fmt(t, 1) for t in firsts)})")
        except Exception as e:  # noqa: BLE001
            err(f"thrust/{key} first", e)
