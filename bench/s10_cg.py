"""Section 9: cooperative groups.  A kernel that synchronises its grid
`steps` times (b[i] = a[i + 1] + salt; grid.sync(); a[i] = b[i];
grid.sync()), one block of 256 threads per SM, launched cooperatively by
each library: cujit (jit.cg.this_grid(), its own barrier on the driver's
grid workspace), cupyx.jit (cupyx.jit.cg.this_grid(), CUDA's
cooperative_groups.h) and numba-cuda (cuda.cg.this_grid()).

(a) device time per grid.sync(): CUDA events around each launch, median,
    divided by the syncs per launch; the result checked against NumPy.
(b) first call of a new grid-sync kernel in a warm process: from the
    decorator to the end of the first launch, with a salt (a global the
    kernel reads, so a constant in its code) new to every cache (cujit's
    disk cache and front key, CuPy's kernel cache), so each repetition
    compiles; median of 3.  This is where including
    cooperative_groups.h (cupyx.jit) costs NVRTC time."""
import time

import numpy as np

from benchlib import RESULTS, cp, cpjit, cuda, cujit, err, fmt, gpu_time_ms, jit, log, median

STEPS = 50
SALT = 1        # a global each kernel reads (all three libraries fold globals in)


def make_cujit(salt):
    global SALT
    SALT = salt
    from cujit.jit import cg

    def gsync(a, b, steps):
        g = cg.this_grid()
        i = jit.grid(1)
        n = a.size
        for s in range(steps):
            b[i] = a[(i + 1) % n] + SALT
            g.sync()
            a[i] = b[i]
            g.sync()
    k = jit.rawkernel()(gsync)
    return lambda blocks, threads, a, b, steps: k[blocks, threads](a, b, steps)


def make_cupyx(salt):
    global SALT
    SALT = salt
    def gsync(a, b, n, steps):
        g = cpjit.cg.this_grid()
        i = cpjit.grid(1)
        for s in range(steps):
            b[i] = a[(i + 1) % n] + SALT
            g.sync()
            a[i] = b[i]
            g.sync()
    k = cpjit.rawkernel()(gsync)
    return lambda blocks, threads, a, b, steps: k((blocks,), (threads,),
                                                  (a, b, np.uint32(a.size), np.uint32(steps)))


def make_numba(salt):
    global SALT
    SALT = salt
    def gsync(a, b, steps):
        g = cuda.cg.this_grid()
        i = cuda.grid(1)
        n = a.size
        for s in range(steps):
            b[i] = a[(i + 1) % n] + SALT
            g.sync()
            a[i] = b[i]
            g.sync()
    k = cuda.jit(gsync)

    def launch(blocks, threads, a, b, steps):
        k[blocks, threads](cuda.as_cuda_array(a), cuda.as_cuda_array(b), steps)
    return launch


def libraries():
    out = []
    if cujit is not None:
        out.append(("cujit", "cujit jit.cg", make_cujit))
    if cpjit is not None:
        out.append(("cupyx_jit", "cupyx.jit cg", make_cupyx))
    if cuda is not None:
        out.append(("numba", "numba-cuda cuda.cg", make_numba))
    return out


def check(run, blocks, threads, salt, steps):
    """one launch on fresh data against NumPy; True when right"""
    n = blocks * threads
    a0 = np.random.default_rng().integers(-1000, 1000, n).astype(np.int32)
    a, b = cp.asarray(a0), cp.zeros(n, cp.int32)
    run(blocks, threads, a, b, steps)
    cp.cuda.Device().synchronize()
    return bool((a.get() == np.roll(a0, -steps) + salt * steps).all())


def section_cg(args):
    log("\n== 10. cooperative groups: grid.sync() per launch, and a first call ==")
    if cp is None:
        raise RuntimeError("CuPy is needed for section 9 (arrays and events)")
    res = RESULTS.setdefault("cg", {})
    sms = cp.cuda.Device().attributes["MultiProcessorCount"]
    blocks, threads = sms, 256
    steps = 5 if args.quick else STEPS
    res.update(blocks=blocks, threads=threads, steps=steps)
    n = blocks * threads
    for key, name, make in libraries():
        try:
            run = make(1)
            ok = check(run, blocks, threads, 1, steps)
            a, b = cp.zeros(n, cp.int32), cp.zeros(n, cp.int32)
            med, mean, _ = gpu_time_ms(lambda: run(blocks, threads, a, b, steps),
                                       args.bw_warm, args.bw_iters)
            us = med * 1000.0 / (2 * steps)
            res[key] = {"launch_ms": med, "us_per_sync": us, "correct": ok}
            log(f"  {name:<22} {med:8.3f} ms per launch, {us:7.2f} us per grid.sync() "
                f"({2 * steps} per launch, {blocks} x {threads}){'' if ok else '  WRONG'}")
        except Exception as e:  # noqa: BLE001
            err(f"cg/{key} sync", e)
    reps = 1 if args.quick else 3
    for key, name, make in libraries():
        try:
            times, ok = [], True
            for r in range(reps):
                salt = int(time.time_ns() // 1000 % 100000) * 8 + r + 2
                cp.cuda.Device().synchronize()
                t0 = time.perf_counter()
                run = make(salt)
                a, b = cp.zeros(n, cp.int32), cp.zeros(n, cp.int32)
                run(blocks, threads, a, b, 1)
                cp.cuda.Device().synchronize()
                times.append((time.perf_counter() - t0) * 1000.0)
                ok = ok and bool((a.get() == salt).all())
            res.setdefault(key, {}).update(first_ms=median(times), first_all=times,
                                           first_correct=ok)
            log(f"  {name:<22} first call of a new grid-sync kernel {fmt(median(times), 1)} ms "
                f"(median of {reps}: {', '.join(fmt(t, 1) for t in times)}){'' if ok else '  WRONG'}")
        except Exception as e:  # noqa: BLE001
            err(f"cg/{key} first", e)
