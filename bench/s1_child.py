"""Section 1, the library's side: `bench.py --launch-child LIB` builds
LIB's launch cases (launch_cases), serves one timed repetition per line it
reads and checks every case's result at the end (launch_child)."""
import json
import sys
import time

import numpy as np

from benchlib import (CHILD, INC_CUDA, RESULTS, cp, cpjit, cuda, cujit, err, inc_cujit,
                      inc_cupyx, inc_numba, jit, log)


NELEM = 32


def check_counts(name, got, start, launches):
    ok = bool(np.array_equal(np.asarray(got).astype(np.int64),
                             start.astype(np.int64) + launches))
    if not ok:
        RESULTS["notes"].append(f"{name}: WRONG RESULT after {launches} launches "
                                f"(x[:4] = {np.asarray(got)[:4]}, expected {start[:4] + launches})")
        log(f"  !! {name}: result wrong after {launches} launches")
    return ok


def launch_cases(args):
    """(key, name, loop, sync, readback, start) for each launch case of the
    libraries this process imported."""
    rng = np.random.default_rng(1)
    n = NELEM
    cases = []

    def case(*c):
        cases.append(c)

    def fresh_start():
        return rng.integers(0, 1000, n).astype(np.int32)

    if cujit is not None:
        try:
            k = jit.rawkernel()(inc_cujit)
        except Exception as e:  # noqa: BLE001
            err("launch/cujit decorate", e)
            k = None
        if k is not None:
            try:
                s = fresh_start()
                xd = cujit.to_device(s)

                def loop(m, k=k, x=xd, n=n):
                    for _ in range(m):
                        k[1, 32](x, n)
                case("cujit_devarray", "cujit k[1, 32](x, n), cujit DeviceArray", loop,
                     cujit.synchronize, lambda x=xd: x.copy_to_host(), s)
                s = fresh_start()
                xr = cujit.to_device(s)
                from cujit import _cujit

                def loop(m, b=k[1, 32], x=xr, n=n):
                    # _bench_launch(n) makes one launch through the whole
                    # path (its parameters are copied) and n from C
                    if m == 1:
                        b(x, n)
                    elif m > 1:
                        _cujit._bench_launch(b, (x, n), m - 1, 1)
                case("cujit_raw", "in cujit's process: cuLaunchKernel from C", loop,
                     cujit.synchronize, lambda x=xr: x.copy_to_host(), s)
            except Exception as e:  # noqa: BLE001
                err("launch/cujit_devarray", e)
        if k is not None and cp is not None:
            s = fresh_start()
            x = cp.asarray(s)

            def loop(m, k=k, x=x, n=n):
                for _ in range(m):
                    k[1, 32](x, n)
            case("cujit_cupy", "cujit k[1, 32](x, n), CuPy array", loop,
                 cujit.synchronize, lambda x=x: x.get(), s)
            s = fresh_start()
            x = cp.asarray(s)

            def loop(m, k=k, x=x, n=n):
                kc = k[1, 32]
                for _ in range(m):
                    kc(x, n)
            case("cujit_cupy_bound", "cujit kc = k[1, 32]; kc(x, n), CuPy array", loop,
                 cujit.synchronize, lambda x=x: x.get(), s)
            s = fresh_start()
            x = cp.asarray(s)

            def loop(m, k=k, x=x, n=n):
                for _ in range(m):
                    k((1,), (32,), (x, n))
            case("cujit_cupy_style", "cujit k((1,), (32,), (x, n)), CuPy array", loop,
                 cujit.synchronize, lambda x=x: x.get(), s)

    if cp is not None and CHILD in (None, "cupy"):
        try:
            rk = cp.RawKernel(INC_CUDA, "inc")
            s = fresh_start()
            x = cp.asarray(s)

            def loop(m, rk=rk, x=x, n=n):
                for _ in range(m):
                    rk((1,), (32,), (x, np.int32(n)))
            case("cupy_raw", "CuPy RawKernel rk((1,), (32,), (x, np.int32(n)))", loop,
                 cp.cuda.Device().synchronize, lambda x=x: x.get(), s)
        except Exception as e:  # noqa: BLE001
            err("launch/cupy_raw", e)

    if cpjit is not None:
        try:
            ck = cpjit.rawkernel()(inc_cupyx)
            s = fresh_start()
            x = cp.asarray(s)

            def loop(m, ck=ck, x=x, n=n):
                for _ in range(m):
                    ck((1,), (32,), (x, n))
            case("cupyx_jit", "cupyx.jit ck((1,), (32,), (x, n))", loop,
                 cp.cuda.Device().synchronize, lambda x=x: x.get(), s)
        except Exception as e:  # noqa: BLE001
            err("launch/cupyx_jit", e)

    if cuda is not None:
        try:
            nk = cuda.jit(inc_numba)
            s = fresh_start()
            xd = cuda.to_device(s)

            def loop(m, nk=nk, x=xd, n=n):
                for _ in range(m):
                    nk[1, 32](x, n)
            case("numba_devarray", "numba-cuda nk[1, 32](x, n), numba device array", loop,
                 cuda.synchronize, lambda x=xd: x.copy_to_host(), s)
            if cp is not None:
                s = fresh_start()
                x = cp.asarray(s)

                def loop(m, nk=nk, x=x, n=n):
                    for _ in range(m):
                        nk[1, 32](x, n)
                case("numba_cupy", "numba-cuda nk[1, 32](x, n), CuPy array", loop,
                     cuda.synchronize, lambda x=x: x.get(), s)
        except Exception as e:  # noqa: BLE001
            err("launch/numba", e)

    return cases


def this_cpu():
    """the CPU this process last ran on (/proc/self/stat field 39), or -1"""
    try:
        with open("/proc/self/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[36])
    except Exception:   # noqa: BLE001
        return -1


def launch_child(args):
    """--launch-child LIB: serves LIB's cases.  Prints `READY {key: name}`,
    then for each case key read from stdin runs one repetition (args.launches
    launches, one synchronize after the clock stops) and prints `T us` (or
    `E message`); on "quit" checks every case's result and prints them as
    `LAUNCH_JSON {...}`."""
    cases = {}
    for key, name, loop, sync, readback, start in launch_cases(args):
        try:
            loop(1)                 # compile / first-call costs out of the way
            loop(args.warm)
            sync()
            cases[key] = [name, loop, sync, readback, start, 1 + args.warm]
        except Exception as e:  # noqa: BLE001
            err(key, e)
    print("READY " + json.dumps({k: c[0] for k, c in cases.items()}), flush=True)
    while True:
        key = sys.stdin.readline().strip()
        if not key or key == "quit":
            break
        c = cases.get(key)
        if c is None:
            print(f"E no case {key}", flush=True)
            continue
        try:
            t0 = time.perf_counter()
            c[1](args.launches)
            t1 = time.perf_counter()
            c[2]()
            c[5] += args.launches
            print(f"T {(t1 - t0) / args.launches * 1e6} {this_cpu()}", flush=True)
        except Exception as e:  # noqa: BLE001
            print(f"E {type(e).__name__}: {e}".replace("\n", " "), flush=True)
    out = {}
    for key, (name, _, _, readback, start, total) in cases.items():
        try:
            out[key] = {"name": name, "correct": check_counts(name, readback(), start, total)}
        except Exception as e:  # noqa: BLE001
            out[key] = {"name": name, "correct": False, "error": f"{type(e).__name__}: {e}"}
    print("LAUNCH_JSON " + json.dumps({"cases": out, "errors": RESULTS["errors"]}), flush=True)
