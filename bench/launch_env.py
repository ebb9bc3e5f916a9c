"""What a process around the launch costs (run on the GPU machine).

Session 1 saw cuLaunchKernel alone, called from C inside a Python process,
cost 3.0 us without CuPy imported and 3.5 us with it.  This probe runs, in
alternating rounds, the C floor (bench/launch_floor.c) plain and with the
CUDA runtime initialised in it (FLOOR_CUDART), and Python processes under
several conditions: cujit alone; CuPy imported; CuPy used (an array); CuPy
used with cujit reading CuPy arrays through their attributes
(CUJIT_CUPY_FIELDS=0); the CUDA runtime initialised through ctypes without
CuPy; CuPy used and one CuPy RawKernel launched.  In each Python process:

  raw        cuLaunchKernel alone from a C loop (cujit._cujit._bench_launch)
  raw_ctx    the same after cujit's current-context check (cuCtxGetCurrent)
  ctx        that check alone, no launch
  path       cujit's whole launch path from a C loop, DeviceArray
  py         the Python loop `k[1, 32](x, 32)`, DeviceArray
  path_cupy  the whole path from a C loop, CuPy array
  py_cupy    the Python loop with a CuPy array

  PYTHONPATH=$PWD python bench/launch_env.py [--rounds 5] [--launches 20000]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CONDS = ["bare", "cupy_import", "cupy_used", "cupy_attrs", "cudart_only", "cupy_kernel"]
INC_CUDA = ('extern "C" __global__ void inc(int *x, int n)'
            '{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = x[i] + 1; }')


def inc(x, n):
    i = jit.grid(1)     # noqa: F821 (jit is imported in the child)
    if i < n:
        x[i] = x[i] + 1


def child(cond, launches, reps):
    global jit
    import ctypes
    cp = None
    if cond.startswith("cupy"):
        import cupy as cp
    if cond == "cudart_only":
        rt = ctypes.CDLL(os.environ["ENV_CUDART"])
        assert rt.cudaFree(None) == 0
    import cujit
    from cujit import _cujit as C
    from cujit import jit
    xc = None
    if cp is not None and cond != "cupy_import":
        xc = cp.arange(32, dtype=cp.int32)
        if cond == "cupy_kernel":
            rk = cp.RawKernel(INC_CUDA, "inc")
            rk((1,), (32,), (xc, np.int32(32)))
            cp.cuda.Device().synchronize()
    k = jit.rawkernel()(inc)
    xd = cujit.to_device(np.zeros(32, np.int32))
    b = k[1, 32]

    def py(x):
        def run(n):
            t = time.perf_counter()
            for _ in range(n):
                k[1, 32](x, 32)
            return (time.perf_counter() - t) / n * 1e6
        return run
    cases = {"raw": lambda n: C._bench_launch(b, (xd, 32), n, 1),
             "raw_ctx": lambda n: C._bench_launch(b, (xd, 32), n, 2),
             "ctx": lambda n: C._bench_launch(b, (xd, 32), n, 3),
             "path": lambda n: C._bench_launch(b, (xd, 32), n, 0),
             "py": py(xd)}
    if xc is not None:
        cases["path_cupy"] = lambda n: C._bench_launch(b, (xc, 32), n, 0)
        cases["py_cupy"] = py(xc)
    out = {name: [] for name in cases}
    for f in cases.values():
        f(1000)
    cujit.synchronize()
    for _ in range(reps):
        for name, f in cases.items():
            out[name].append(f(launches))
            cujit.synchronize()
    if xc is not None:
        out["cupy_fields"] = C._cupy_fields(xc)
    print("ENV_JSON " + json.dumps(out), flush=True)


def find_cudart():
    code = ("import cupy; cupy.arange(1)\n"
            "for ln in open('/proc/self/maps'):\n"
            "    if 'libcudart.so' in ln:\n"
            "        print(ln.split()[-1]); break\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    return p.stdout.strip() or None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--launches", type=int, default=20000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--child", default=None)
    ap.add_argument("--conds", default=",".join(CONDS), help="comma-separated conditions")
    a = ap.parse_args()
    if a.child:
        child(a.child, a.launches, a.reps)
        return
    sys.argv = [sys.argv[0]]
    sys.path.insert(0, HERE)
    import s1_launch
    exe, needs_module = s1_launch.build_launch_floor()
    floor = [exe, str(a.launches), str(a.reps)] + ([s1_launch.floor_module_file()]
                                                   if needs_module else [])
    cudart = find_cudart()
    print("libcudart:", cudart, flush=True)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               ENV_CUDART=cudart or "")
    res = {}
    for r in range(a.rounds):
        for fl in ("floor", "floor_cudart"):
            if fl == "floor_cudart" and not cudart:
                continue
            e = dict(env, FLOOR_CUDART=cudart if fl == "floor_cudart" else "")
            e["LD_LIBRARY_PATH"] = ":".join(s1_launch.cuda_lib_dirs()[0]
                                            + [e.get("LD_LIBRARY_PATH", "")]).rstrip(":")
            p = subprocess.run(floor, capture_output=True, text=True, timeout=300, env=e)
            reps = [float(v) for v in re.findall(r"rep \d+: ([0-9.]+) us", p.stdout)]
            if p.returncode != 0 or not reps:
                print(fl, "failed:", (p.stdout + p.stderr)[-500:], flush=True)
                continue
            res.setdefault(fl, []).extend(reps)
        for cond in a.conds.split(","):
            if cond == "cudart_only" and not cudart:
                continue
            e = dict(env)
            if cond == "cupy_attrs":
                e["CUJIT_CUPY_FIELDS"] = "0"
            p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", cond,
                                "--launches", str(a.launches), "--reps", str(a.reps)],
                               capture_output=True, text=True, timeout=300, env=e, cwd=ROOT)
            got = [ln for ln in p.stdout.splitlines() if ln.startswith("ENV_JSON ")]
            if not got:
                print(cond, "failed:", (p.stdout + p.stderr)[-800:], flush=True)
                continue
            d = json.loads(got[0][9:])
            for case, v in d.items():
                if isinstance(v, list):
                    res.setdefault(f"{cond}/{case}", []).extend(v)
                else:
                    res[f"{cond}/{case}"] = v
        print(f"round {r + 1} done", flush=True)
    fl = statistics.median(res["floor"]) if res.get("floor") else None
    print(f"\n{'case':28s} {'median us':>9s} {'x floor':>8s}  reps")
    for key, v in res.items():
        if not isinstance(v, list):
            print(f"{key:28s} {v}")
            continue
        m = statistics.median(v)
        print(f"{key:28s} {m:9.3f} {m / fl if fl else float('nan'):8.2f}  "
              f"{[round(x, 2) for x in v]}")


if __name__ == "__main__":
    main()
