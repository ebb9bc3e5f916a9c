"""cujit beside CuPy RawKernel, cupyx.jit and numba-cuda, measured in one run.

    make bench                      # or: PYTHONPATH=. python3 bench/bench.py
    PYTHONPATH=. python3 bench/bench.py --quick          # smoke test, small N and sizes
    CUJIT_BENCH_OUT=/tmp/bench.json make bench           # also write every number as JSON

Sections (DESIGN.md section 5 has the figures and goals):

1. host time per launch: 1 int32 array + 1 int, 1 block of 32 threads, body
   `if i < n: x[i] = x[i] + 1`.  N launches timed with perf_counter, one
   synchronize after the clock stops; beside a C program
   (bench/launch_floor.c) that calls cuLaunchKernel N times.  Each library
   runs in a process of its own, as the C program does, importing only
   itself and CuPy.  This machine's launch cost drifts by 10-20 % over
   seconds, so the C program and the library's process stay alive side by
   side and every repetition of a case comes right after one of the C
   program (a pair); the goal is checked on the median of the paired ratios,
   and the medians of the times are printed too.
2. first call in a new process: saxpy (n = 2^20), timed from just before the
   decorator / kernel creation to after the first launch and a synchronize,
   imports and array creation excluded; empty and warm disk caches; median of
   several processes.
3. saxpy bandwidth on 2^28 float32 (3 x 1 GiB moved per launch), CUDA events
   around each launch, median; against a device-to-device copy measured here.
4. elementwise and reduction forms on 2^28 float32, as % of the copy bandwidth
   (section 3's figure, or measured again), fewest bytes counted: vectorize
   x * y + 1.0 (cupy.vectorize, numba vectorize), sum of squares (cujit map=,
   ReductionKernel, numba cuda.reduce on x*x), sum (cupy.sum), sum(axis=0/1)
   of a 16384 x 16384 matrix, and cujit's stdlib DeviceArray x + y and x.sum();
   each result checked once, then CUDA events around each of 20 runs, median.
5. first call of a vectorize (x * y + 1.0, 2^20 float32 on the device) in a
   new process with every cache empty (cujit's, CuPy's, numba's, the driver's
   PTX cache), beside cupy.vectorize and numba vectorize; median of 3.

Every section and every library is guarded: a failure is printed and the run
goes on.  The last lines printed are a summary table and the ratios.
"""
import argparse
import json
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import traceback
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# numba-cuda: no low-occupancy warnings for the 1-block launches (set before import)
os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")
warnings.filterwarnings("ignore", message=".*[Gg]rid size.*")
warnings.filterwarnings("ignore", message=".*under-utilization.*")

RESULTS = {"errors": {}, "notes": []}
T_START = time.perf_counter()


def log(*a):
    print(*a, flush=True)


def err(where, e):
    """Records and prints a failure, then the run goes on."""
    msg = f"{type(e).__name__}: {e}"
    RESULTS["errors"][where] = msg
    log(f"  !! {where}: {msg}")
    tb = traceback.format_exc()
    if tb and "NoneType: None" not in tb:
        log(textwrap.indent("\n".join(tb.strip().splitlines()[-8:]), "     "))


def median(v):
    return statistics.median(v) if v else None


# ---------------------------------------------------------------------------
# libraries, each optional

# Section 1 measures each library in a process of its own (as the C floor
# is): `bench.py --launch-child LIB` imports only LIB (and CuPy, for CuPy
# arrays), times its launch cases and prints them as JSON.
CHILD = sys.argv[sys.argv.index("--launch-child") + 1] if "--launch-child" in sys.argv[:-1] \
    else None
WANT = {"cujit", "cupy", "cupyx", "numba"} if CHILD is None else {CHILD, "cupy"}

cujit = jit = None
if "cujit" in WANT:
    try:
        import cujit
        from cujit import jit
    except Exception as e:      # noqa: BLE001
        err("import cujit", e)

cp = cpjit = None
try:
    import cupy as cp
    if "cupyx" in WANT:
        try:
            from cupyx import jit as cpjit
        except Exception as e:  # noqa: BLE001
            err("import cupyx.jit", e)
except Exception as e:      # noqa: BLE001
    err("import cupy", e)

cuda = None
if "numba" in WANT:
    try:
        if not hasattr(np, "row_stack"):
            np.row_stack = np.vstack        # numba-cuda 0.30 under NumPy 2.5
        from numba import cuda
        try:
            from numba.core.errors import NumbaPerformanceWarning
            warnings.simplefilter("ignore", NumbaPerformanceWarning)
        except Exception:       # noqa: BLE001
            pass
    except Exception as e:      # noqa: BLE001
        err("import numba.cuda", e)


# ---------------------------------------------------------------------------
# kernels: the same work in each library (globals resolved at compile time)

def inc_cujit(x, n):
    i = jit.grid(1)
    if i < n:
        x[i] = x[i] + 1


def inc_cupyx(x, n):
    i = cpjit.grid(1)
    if i < n:
        x[i] = x[i] + 1


def inc_numba(x, n):
    i = cuda.grid(1)
    if i < n:
        x[i] = x[i] + 1


def saxpy_cujit(a, x, y, out):
    i = jit.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def saxpy_cupyx(a, x, y, out, n):
    i = cpjit.grid(1)
    if i < n:
        out[i] = a * x[i] + y[i]


def saxpy_numba(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


INC_CUDA = r'''
extern "C" __global__ void inc(int *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] = x[i] + 1;
    }
}
'''

SAXPY_CUDA = r'''
extern "C" __global__ void saxpy(float a, const float *x, const float *y, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = a * x[i] + y[i];
    }
}
'''


# ---------------------------------------------------------------------------
# 1. host time per launch

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


class Served:
    """A process that runs one timed repetition per line it reads and
    answers with a line: the C floor in serve mode or a library's
    --launch-child.  Every wait has a deadline (the process is killed)."""

    def __init__(self, argv, env, what, cpus=None):
        self.what = what
        self.err = tempfile.TemporaryFile(mode="w+")
        pin = (lambda: os.sched_setaffinity(0, cpus)) if cpus else None
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=self.err, text=True, bufsize=1, env=env, cwd=ROOT,
                                  preexec_fn=pin)

    def expect(self, prefixes, timeout=180):
        """the next line starting with one of prefixes (others are skipped)"""
        timer = threading.Timer(timeout, self.p.kill)
        timer.start()
        try:
            while True:
                ln = self.p.stdout.readline()
                if not ln:
                    self.err.seek(0)
                    raise RuntimeError(f"{self.what} ended (rc {self.p.poll()}): "
                                       f"{self.err.read().strip()[-800:]}")
                if ln.startswith(prefixes):
                    return ln.rstrip("\n")
        finally:
            timer.cancel()

    def ask(self, line, prefixes, timeout=180):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        return self.expect(prefixes, timeout)

    def close(self):
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()
        self.err.close()


def floor_server(N, cpus=None):
    global FLOOR_EXE
    if FLOOR_EXE is None:
        exe, needs_module = build_launch_floor()
        FLOOR_EXE = [exe] + ([floor_module_file()] if needs_module else [])
    env = dict(os.environ)
    dirs, _ = cuda_lib_dirs()
    env["LD_LIBRARY_PATH"] = ":".join(dirs + [env.get("LD_LIBRARY_PATH", "")]).rstrip(":")
    return Served([FLOOR_EXE[0], str(N), "serve"] + FLOOR_EXE[1:], env, "C floor", cpus)


def child_server(lib, args, cpus=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return Served([sys.executable, os.path.join(HERE, "bench.py"), "--launch-child", lib,
                   "--launches", str(args.launches)], env, f"{lib} launch process", cpus)


def section_launch(args):
    log("\n== 1. host time per launch (1 int32 array + 1 int, grid 1 x 32) ==")
    log(f"  each library in a process of its own (importing only itself and CuPy) beside the C "
        f"floor process (bench/launch_floor.c), both alive; every repetition of "
        f"{args.launches} launches of a case comes right after one of the C floor, "
        f"{args.pairs} such pairs per case (this machine's launch cost drifts by 10-20 % over "
        "seconds); medians of the times and of the paired ratios")
    res = RESULTS.setdefault("launch", {})
    res["N"], res["pairs"] = args.launches, args.pairs
    libs = [lib for lib, mod in (("cujit", cujit), ("cupy", cp), ("cupyx", cpjit),
                                 ("numba", cuda)) if mod is not None]
    floor_all, got = [], {}     # key -> {name, us, floor, correct}
    floor_ok = True
    for lib in libs:
        floor = child = None
        try:
            if floor_ok:
                try:
                    floor = floor_server(args.launches)
                    floor.ask("go", "rep ")     # a first repetition, untimed
                except Exception as e:  # noqa: BLE001
                    err("launch/c_floor", e)
                    floor_ok = False
                    if floor is not None:
                        floor.close()
                    floor = None
            child = child_server(lib, args)
            ready = json.loads(child.expect("READY ")[len("READY "):])
            for _ in range(args.pairs):
                for key in list(ready):
                    f = None
                    if floor is not None:
                        f = float(re.search(r"rep \d+: ([0-9.]+) us",
                                            floor.ask("go", "rep ")).group(1))
                    a = child.ask(key, ("T ", "E "))
                    if a.startswith("E "):
                        err(f"launch/{key}", RuntimeError(a[2:]))
                        del ready[key]
                        continue
                    g = got.setdefault(key, {"name": ready[key], "us": [], "floor": [],
                                             "correct": False})
                    g["us"].append(float(a[2:].split()[0]))
                    if f is not None:
                        g["floor"].append(f)
                        floor_all.append(f)
            r = json.loads(child.ask("quit", "LAUNCH_JSON ")[len("LAUNCH_JSON "):])
            for where, msg in r["errors"].items():
                RESULTS["errors"][f"launch/{lib}/{where}"] = msg
            for key, c in r["cases"].items():
                if key in got:
                    got[key]["correct"] = c["correct"]
            if floor is not None:
                floor.p.stdin.write("quit\n")
                floor.p.stdin.flush()
                tail = floor.p.stdout.read()
                if floor.p.wait(timeout=60) != 0 or "check ok" not in tail:
                    floor.err.seek(0)
                    raise RuntimeError("C floor: " + (tail + floor.err.read()).strip()[-500:])
        except Exception as e:  # noqa: BLE001
            err(f"launch/{lib}", e)
        finally:
            for sv in (floor, child):
                if sv is not None:
                    sv.close()
    if floor_all:
        res["c_floor"] = {"us": median(floor_all), "reps_us": floor_all}
        log(f"  {'C floor cuLaunchKernel (bench/launch_floor.c)':<44} {median(floor_all):8.3f} "
            f"us/launch   (all {len(floor_all)} repetitions)")
    for key, g in got.items():
        ratios = [u / f for u, f in zip(g["us"], g["floor"]) if f > 0]
        res[key] = {"us": median(g["us"]), "reps_us": g["us"], "floor_us": g["floor"],
                    "ratio": median(ratios), "correct": g["correct"]}
        if not g["correct"]:
            RESULTS["notes"].append(f"{g['name']}: WRONG RESULT")
        pair = (f"paired C floor {median(g['floor']):6.3f}   ratio {median(ratios):5.2f}x   "
                if ratios else "")
        log(f"  {g['name']:<44} {median(g['us']):8.3f} us/launch   {pair}"
            f"reps {[round(p, 2) for p in g['us']]}{'' if g['correct'] else '   WRONG RESULT'}")


def cuda_lib_dirs():
    """Folders that may hold libcuda / libnvrtc, existing ones only."""
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    cands = [os.path.join(home, "lib64"), os.path.join(home, "targets/x86_64-linux/lib"),
             "/usr/local/cuda/lib64", "/usr/local/nvidia/lib64", "/usr/local/nvidia/lib",
             "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib/wsl/lib"]
    out = []
    for d in cands:
        if os.path.isdir(d) and d not in out:
            out.append(d)
    return out, home


def build_launch_floor():
    """Compiles bench/launch_floor.c; returns (exe, needs_module_file)."""
    dirs, home = cuda_lib_dirs()
    inc = [f"-I{os.path.join(home, 'include')}", "-I/usr/local/cuda/include"]
    libs = [f"-L{d}" for d in dirs] + [f"-Wl,-rpath,{d}" for d in dirs]
    stubs = os.path.join(home, "lib64", "stubs")
    if os.path.isdir(stubs):
        libs.append(f"-L{stubs}")   # link-time only, last: the driver's libcuda wins at run time
    exe = os.path.join(tempfile.gettempdir(), "launch_floor")
    src = os.path.join(HERE, "launch_floor.c")
    tries = [(["-lcuda", "-lnvrtc"], [], False), (["-lcuda"], ["-DFLOOR_NO_NVRTC"], True)]
    last = ""
    for ldlibs, defs, needs_module in tries:
        cmd = ["gcc", "-O2", src, *defs, *inc, *libs, *ldlibs, "-o", exe]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if p.returncode == 0:
            log(f"  built {exe}: {' '.join(cmd)}")
            return exe, needs_module
        last = p.stderr.strip()[-1500:]
        log(f"  build failed ({' '.join(ldlibs + defs)}): {last.splitlines()[-1] if last else ''}")
    raise RuntimeError("cannot build launch_floor.c: " + last)


def floor_module_file():
    """A CUBIN of the inc kernel through nvcc, for a launch_floor built without NVRTC."""
    _, home = cuda_lib_dirs()
    nvcc = shutil.which("nvcc") or os.path.join(home, "bin", "nvcc")
    d = tempfile.mkdtemp(prefix="cujit_floor_")
    cu = os.path.join(d, "inc.cu")
    with open(cu, "w") as f:
        f.write(INC_CUDA)
    arch = "native"
    if cp is not None:
        try:
            cc = cp.cuda.Device().compute_capability
            arch = f"sm_{cc}"
        except Exception:   # noqa: BLE001
            pass
    out = os.path.join(d, "inc.cubin")
    p = subprocess.run([nvcc, "-cubin", f"-arch={arch}", cu, "-o", out],
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise RuntimeError("nvcc -cubin failed: " + p.stderr.strip()[-500:])
    return out


FLOOR_EXE = None


# ---------------------------------------------------------------------------
# 2. first call in a new process

FIRST_PRELUDE = r'''
import os, sys, time
import numpy as np
N = 1 << 20
BLOCKS = (N + 255) // 256
rng = np.random.default_rng(2)
hx = rng.random(N, dtype=np.float32)
hy = rng.random(N, dtype=np.float32)
A = np.float32(2.0)
REF = A * hx + hy
def report(t0, t1, got):
    ok = bool(np.allclose(np.asarray(got), REF, rtol=1e-5, atol=1e-6))
    print("RESULT %.6f %s" % ((t1 - t0) * 1e3, ok), flush=True)
'''

FIRST_SCRIPTS = {
    "cujit": r'''
import cujit
from cujit import jit
try:
    x = cujit.to_device(hx); y = cujit.to_device(hy); out = cujit.empty(N, dtype=np.float32)
    back = lambda a: a.copy_to_host()
except Exception as e:
    print("NOTE cujit arrays failed (%s: %s); using CuPy arrays" % (type(e).__name__, e))
    import cupy as cp
    x = cp.asarray(hx); y = cp.asarray(hy); out = cp.empty(N, dtype=cp.float32)
    back = lambda a: a.get()
cujit.synchronize()
t0 = time.perf_counter()
@jit.rawkernel()
def saxpy(a, x, y, out):
    i = jit.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]
saxpy[BLOCKS, 256](np.float32(2.0), x, y, out)
cujit.synchronize()
t1 = time.perf_counter()
report(t0, t1, back(out))
''',
    "cupy_raw": r'''
import cupy as cp
x = cp.asarray(hx); y = cp.asarray(hy); out = cp.empty(N, dtype=cp.float32)
cp.cuda.Device().synchronize()
SRC = """SAXPY_CUDA"""
t0 = time.perf_counter()
k = cp.RawKernel(SRC, "saxpy")
k((BLOCKS,), (256,), (np.float32(2.0), x, y, out, np.int32(N)))
cp.cuda.Device().synchronize()
t1 = time.perf_counter()
report(t0, t1, out.get())
''',
    "cupyx_jit": r'''
import cupy as cp
from cupyx import jit as cpjit
x = cp.asarray(hx); y = cp.asarray(hy); out = cp.empty(N, dtype=cp.float32)
cp.cuda.Device().synchronize()
t0 = time.perf_counter()
@cpjit.rawkernel()
def saxpy(a, x, y, out, n):
    i = cpjit.grid(1)
    if i < n:
        out[i] = a * x[i] + y[i]
saxpy((BLOCKS,), (256,), (np.float32(2.0), x, y, out, N))
cp.cuda.Device().synchronize()
t1 = time.perf_counter()
report(t0, t1, out.get())
''',
    "numba": r'''
import warnings
os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")
warnings.simplefilter("ignore")
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack
from numba import cuda
x = cuda.to_device(hx); y = cuda.to_device(hy); out = cuda.device_array(N, dtype=np.float32)
cuda.synchronize()
CACHE = os.environ.get("BENCH_NUMBA_CACHE") == "1"
def _probe(a):
    a[0] = 1
if CACHE:
    try:
        cuda.jit(cache=True)(_probe)
    except Exception as e:
        print("NOTE numba cache=True unavailable: %s: %s" % (type(e).__name__, e))
        CACHE = False
print("NOTE numba cache=%s" % CACHE)
t0 = time.perf_counter()
@cuda.jit(cache=CACHE)
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]
saxpy[BLOCKS, 256](np.float32(2.0), x, y, out)
cuda.synchronize()
t1 = time.perf_counter()
report(t0, t1, out.copy_to_host())
''',
}

CACHE_ENV = {"cujit": "CUJIT_CACHE_DIR", "cupy_raw": "CUPY_CACHE_DIR",
             "cupyx_jit": "CUPY_CACHE_DIR", "numba": "NUMBA_CACHE_DIR"}


def run_first(lib, script, cache_dir, timeout):
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PYTHONUNBUFFERED"] = "1"
    env[CACHE_ENV[lib]] = cache_dir
    if lib == "numba":
        env["BENCH_NUMBA_CACHE"] = "1"
    p = subprocess.run([sys.executable, script], capture_output=True, text=True,
                       timeout=timeout, env=env, cwd=ROOT)
    notes = [ln[5:] for ln in p.stdout.splitlines() if ln.startswith("NOTE ")]
    m = None
    for ln in p.stdout.splitlines():
        if ln.startswith("RESULT "):
            m = ln.split()
    if p.returncode != 0 or not m:
        tail = (p.stdout + p.stderr).strip()[-1200:]
        raise RuntimeError(f"{lib} first-call process rc={p.returncode}: {tail}")
    return float(m[1]), m[2] == "True", notes


def count_files(d):
    return sum(len(fs) for _, _, fs in os.walk(d))


def section_first(args):
    log("\n== 2. first call in a new process (saxpy, n = 2^20; imports and arrays excluded) ==")
    res = RESULTS.setdefault("first", {})
    runs = args.first_runs
    deadline = time.perf_counter() + args.first_budget
    work = tempfile.mkdtemp(prefix="cujit_first_")
    avail = {"cujit": cujit is not None, "cupy_raw": cp is not None,
             "cupyx_jit": cpjit is not None, "numba": cuda is not None}
    for lib, body in FIRST_SCRIPTS.items():
        if not avail[lib]:
            log(f"  {lib}: skipped (not importable here)")
            continue
        if time.perf_counter() > deadline:
            RESULTS["notes"].append(f"first-call: {lib} skipped (time budget spent)")
            continue
        script = os.path.join(work, f"first_{lib}.py")
        with open(script, "w") as f:
            f.write(FIRST_PRELUDE + body.replace("SAXPY_CUDA", SAXPY_CUDA))
        entry = res.setdefault(lib, {})
        try:
            empty, oks, notes = [], [], set()
            for r in range(runs):
                if time.perf_counter() > deadline:
                    RESULTS["notes"].append(f"first-call: {lib} empty runs cut short (time budget)")
                    break
                ms, ok, nt = run_first(lib, script, tempfile.mkdtemp(dir=work), args.first_timeout)
                empty.append(ms)
                oks.append(ok)
                notes.update(nt)
            warm_dir = tempfile.mkdtemp(dir=work)
            fill_ms, ok, nt = run_first(lib, script, warm_dir, args.first_timeout)
            oks.append(ok)
            notes.update(nt)
            nfiles = count_files(warm_dir)
            warm = []
            for r in range(runs):
                if time.perf_counter() > deadline:
                    RESULTS["notes"].append(f"first-call: {lib} warm runs cut short (time budget)")
                    break
                ms, ok, nt = run_first(lib, script, warm_dir, args.first_timeout)
                warm.append(ms)
                oks.append(ok)
                notes.update(nt)
            entry.update({"empty_ms": median(empty), "empty_runs_ms": empty,
                          "warm_ms": median(warm), "warm_runs_ms": warm, "fill_ms": fill_ms,
                          "cache_files": nfiles, "correct": all(oks), "notes": sorted(notes)})
            log(f"  {lib:<10} empty {fmt(median(empty))} ms {[round(v, 2) for v in empty]}   "
                f"warm {fmt(median(warm))} ms {[round(v, 2) for v in warm]}   "
                f"(fill {fill_ms:.1f} ms, {nfiles} cache files)"
                f"{'' if all(oks) else '   WRONG RESULT'}")
            for nt in sorted(notes):
                log(f"      note: {nt}")
            if not all(oks):
                RESULTS["notes"].append(f"first-call: {lib} gave a WRONG saxpy result")
        except Exception as e:  # noqa: BLE001
            err(f"first/{lib}", e)
    shutil.rmtree(work, ignore_errors=True)


# ---------------------------------------------------------------------------
# 3. saxpy bandwidth

def gpu_time_ms(fn, warm=3, iters=20):
    """Median and mean ms per call, CUDA events on CuPy's current stream around each call."""
    for _ in range(warm):
        fn()
    cp.cuda.Device().synchronize()
    evs = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(iters)]
    for s, e in evs:
        s.record()
        fn()
        e.record()
    evs[-1][1].synchronize()
    cp.cuda.Device().synchronize()
    per = [cp.cuda.get_elapsed_time(s, e) for s, e in evs]
    total = cp.cuda.get_elapsed_time(evs[0][0], evs[-1][1]) / iters
    return median(per), total, per


def section_saxpy(args):
    log(f"\n== 3. saxpy bandwidth (n = 2^{int(math.log2(args.n))} float32, "
        f"{3 * 4 * args.n / 2**30:.2f} GiB moved per launch) ==")
    if cp is None:
        raise RuntimeError("CuPy is needed for section 3 (arrays and events)")
    res = RESULTS.setdefault("saxpy", {})
    n = args.n
    blocks = (n + 255) // 256
    a = np.float32(2.0)
    res["n"] = n
    cp.random.seed(3)
    x = cp.random.rand(n, dtype=cp.float32)
    y = cp.random.rand(n, dtype=cp.float32)
    out = cp.empty(n, dtype=cp.float32)
    ref = a * x + y
    cp.cuda.Device().synchronize()
    idx = cp.asarray(np.random.default_rng(4).integers(0, n, min(n, 1 << 16)))
    hx, hy = x[idx].get(), y[idx].get()
    href = a * hx + hy
    saxpy_bytes = 3 * 4 * n

    # reference: device-to-device copy of one array, read + write counted
    copy_gbs = {}
    nbytes = x.nbytes

    def copy_elementwise():
        cp.copyto(out, x)

    def copy_memcpy():
        cp.cuda.runtime.memcpyAsync(out.data.ptr, x.data.ptr, nbytes,
                                    cp.cuda.runtime.memcpyDeviceToDevice,
                                    cp.cuda.get_current_stream().ptr)
    for key, fn in (("cupy_copyto", copy_elementwise), ("cudaMemcpyAsync_D2D", copy_memcpy)):
        try:
            med, mean, _ = gpu_time_ms(fn, args.bw_warm, args.bw_iters)
            copy_gbs[key] = 2 * nbytes / (med * 1e-3) / 1e9
            log(f"  copy {key:<28} {med:8.4f} ms  {copy_gbs[key]:8.1f} GB/s (read+write)")
        except Exception as e:  # noqa: BLE001
            err(f"saxpy/copy {key}", e)
    copy_ref = max(copy_gbs.values()) if copy_gbs else None
    res["copy_gbs"] = copy_gbs
    res["copy_ref_gbs"] = copy_ref

    impls = []
    if cujit is not None:
        try:
            ks = jit.rawkernel()(saxpy_cujit)
            impls.append(("cujit", "cujit saxpy[blocks, 256](a, x, y, out)",
                          lambda: ks[blocks, 256](a, x, y, out)))
        except Exception as e:  # noqa: BLE001
            err("saxpy/cujit decorate", e)
    try:
        rk = cp.RawKernel(SAXPY_CUDA, "saxpy")
        n32 = np.int32(n)
        impls.append(("cupy_raw", "CuPy RawKernel",
                      lambda: rk((blocks,), (256,), (a, x, y, out, n32))))
    except Exception as e:      # noqa: BLE001
        err("saxpy/cupy_raw", e)
    if cpjit is not None:
        try:
            ck = cpjit.rawkernel()(saxpy_cupyx)
            impls.append(("cupyx_jit", "cupyx.jit",
                          lambda: ck((blocks,), (256,), (a, x, y, out, n))))
        except Exception as e:  # noqa: BLE001
            err("saxpy/cupyx_jit", e)
    if cuda is not None:
        try:
            nks = cuda.jit(saxpy_numba)
            nx, ny, nout = cuda.as_cuda_array(x), cuda.as_cuda_array(y), cuda.as_cuda_array(out)
            impls.append(("numba", "numba-cuda (views of the CuPy arrays)",
                          lambda: nks[blocks, 256](a, nx, ny, nout)))
        except Exception as e:  # noqa: BLE001
            err("saxpy/numba", e)

    for key, name, fn in impls:
        try:
            out.fill(np.nan)                    # poison: every element must be written
            cp.cuda.Device().synchronize()
            fn()
            cp.cuda.Device().synchronize()
            full_ok = bool(cp.allclose(out, ref, rtol=1e-5, atol=1e-6))
            sample_ok = bool(np.allclose(out[idx].get(), href, rtol=1e-5, atol=1e-6))
            med, mean, per = gpu_time_ms(fn, args.bw_warm, args.bw_iters)
            gbs = saxpy_bytes / (med * 1e-3) / 1e9
            pct = 100.0 * gbs / copy_ref if copy_ref else None
            res[key] = {"ms": med, "mean_ms": mean, "per_launch_ms": per, "gbs": gbs,
                        "pct_copy": pct, "correct": full_ok and sample_ok,
                        "correct_full": full_ok, "correct_sample": sample_ok}
            log(f"  {name:<40} {med:8.4f} ms (mean {mean:.4f})  {gbs:8.1f} GB/s  "
                f"{fmt(pct, 1)} % of copy"
                f"{'' if full_ok and sample_ok else '   WRONG RESULT (full %s, sample %s)' % (full_ok, sample_ok)}")
            if not (full_ok and sample_ok):
                RESULTS["notes"].append(f"saxpy: {key} result is NOT correct vs a*x+y")
        except Exception as e:  # noqa: BLE001
            err(f"saxpy/{key}", e)
    del x, y, out, ref, impls
    try:
        cp.get_default_memory_pool().free_all_blocks()
    except Exception:           # noqa: BLE001
        pass


# ---------------------------------------------------------------------------
# 4. elementwise and reduction forms: bandwidth beside CuPy and numba-cuda

# No docstrings in these three: cupyx.jit transpiles the whole body.
# The vectorize body: the same function object for every library.
def fma1(x, y):
    return x * y + 1.0


# The reduction combiner: the same for every library.
def add2(a, b):
    return a + b


# The map of the sum of squares, defined once (never recompiled).
def square(v):
    return v * v


def dev_sync():
    cp.cuda.Device().synchronize()


def as_cupy(a):
    """A CuPy view of a CuPy / cujit / numba array (through the CUDA array
    interface), else a copy through the host."""
    if isinstance(a, cp.ndarray):
        return a
    try:
        return cp.asarray(a)
    except Exception:           # noqa: BLE001
        if hasattr(a, "copy_to_host"):
            return cp.asarray(a.copy_to_host())
        return cp.asarray(cujit.asnumpy(a))


def poison(a):
    """Fills a with NaN so that an unwritten element fails the check."""
    try:
        cp.asarray(a).fill(np.nan)     # a view through the CUDA array interface
        dev_sync()
    except Exception as e:      # noqa: BLE001
        log(f"      (output not poisoned: {type(e).__name__}: {e})")


def check_close(got, ref, rtol=1e-5, atol=1e-6):
    """(ok, detail) of an elementwise result against a CuPy reference."""
    g = as_cupy(got)
    if g.shape != ref.shape:
        return False, f"shape {g.shape}, expected {ref.shape}"
    ok = bool(cp.allclose(g, ref, rtol=rtol, atol=atol))
    nnan = int(cp.isnan(g).sum())
    dmax = float(cp.nanmax(cp.abs(g.astype(cp.float64) - ref)))
    detail = f"max|err| {dmax:.1e}" + (f", {nnan} NaN" if nnan else "")
    if g.dtype != ref.dtype:
        detail += f", output {g.dtype}"
    return ok, detail


def check_rel(got, ref64, tol=1e-3):
    """(ok, detail) by ||got - ref|| / ||ref|| against a float64 reference."""
    g = as_cupy(got)
    if g.size != ref64.size:
        return False, f"size {g.size}, expected {ref64.size}"
    g64 = g.astype(cp.float64).reshape(ref64.shape)
    rel = float(cp.linalg.norm((g64 - ref64).ravel()) / cp.linalg.norm(ref64.ravel()))
    detail = f"rel err {rel:.1e}"
    if g.dtype != np.float32:
        detail += f", output {g.dtype}"
    return (math.isfinite(rel) and rel < tol), detail


def time_form(rows, row, lib, label, fn, verify, nbytes, copy_ref, args,
              before=None, note=None, optional=False):
    """Runs fn once and checks the result (verify(result) -> (ok, detail)),
    then times fn with CUDA events; records under rows[row][lib]."""
    ent = rows.setdefault(row, {})
    try:
        if before is not None:
            before()
        dev_sync()
        r = fn()
        dev_sync()
    except Exception as e:      # noqa: BLE001
        ent[lib] = {"error": f"{type(e).__name__}: {e}"[:400]}
        if optional:
            msg = f"not available ({type(e).__name__}: {str(e)[:200]})"
            ent[lib]["not_available"] = True
            RESULTS["errors"][f"forms/{row}/{lib}"] = msg
            log(f"  {label:<50} {msg}")
        else:
            err(f"forms/{row}/{lib}", e)
        return
    try:
        ok, detail = verify(r)
    except Exception as e:      # noqa: BLE001
        ok, detail = None, f"UNCHECKED ({type(e).__name__}: {str(e)[:120]})"
        RESULTS["errors"][f"forms/{row}/{lib} check"] = detail
    del r
    try:
        med, mean, per = gpu_time_ms(fn, args.bw_warm, args.bw_iters)
        gbs = nbytes / (med * 1e-3) / 1e9
        pct = 100.0 * gbs / copy_ref if copy_ref else None
        ent[lib] = {"label": label, "ms": med, "mean_ms": mean, "per_launch_ms": per,
                    "bytes": nbytes, "gbs": gbs, "pct_copy": pct, "correct": ok,
                    "check": detail, "note": note}
        flag = "" if ok else ("   WRONG RESULT" if ok is False else "   UNCHECKED")
        log(f"  {label:<50} {med:8.4f} ms  {gbs:7.1f} GB/s  {fmt(pct, 1):>5} % copy  "
            f"[{detail}]{flag}")
        if note:
            log(f"      note: {note}")
        if ok is False:
            RESULTS["notes"].append(f"forms: {row}/{lib} result is NOT correct ({detail})")
    except Exception as e:      # noqa: BLE001
        ent[lib] = {"label": label, "correct": ok, "check": detail,
                    "error": f"{type(e).__name__}: {e}"[:400]}
        err(f"forms/{row}/{lib} timing", e)


def copy_reference(src, dst, args):
    """Device-to-device copy bandwidth as section 3 measures it (read + write)."""
    gbs = {}
    nbytes = src.nbytes

    def copy_elementwise():
        cp.copyto(dst, src)

    def copy_memcpy():
        cp.cuda.runtime.memcpyAsync(dst.data.ptr, src.data.ptr, nbytes,
                                    cp.cuda.runtime.memcpyDeviceToDevice,
                                    cp.cuda.get_current_stream().ptr)
    for key, fn in (("cupy_copyto", copy_elementwise), ("cudaMemcpyAsync_D2D", copy_memcpy)):
        try:
            med, _, _ = gpu_time_ms(fn, args.bw_warm, args.bw_iters)
            gbs[key] = 2 * nbytes / (med * 1e-3) / 1e9
            log(f"  copy {key:<28} {med:8.4f} ms  {gbs[key]:8.1f} GB/s (read+write)")
        except Exception as e:  # noqa: BLE001
            err(f"forms/copy {key}", e)
    return gbs


def to_cujit(a):
    """A cujit DeviceArray holding a device copy of the CuPy array a."""
    try:
        d = cujit.to_device(a)
    except Exception as e:      # noqa: BLE001
        log(f"  cujit.to_device(cupy array) failed ({type(e).__name__}: {e}); "
            f"using empty + copy_to_device")
        d = cujit.empty(a.shape, dtype=np.float32)
        d.copy_to_device(a)
    cujit.synchronize()
    if not bool(cp.array_equal(as_cupy(d), a)):
        raise RuntimeError("the cujit copy of the input differs from the CuPy array")
    return d


def section_forms(args):
    n, side = args.n, args.side
    log(f"\n== 4. elementwise and reduction forms: bandwidth (n = 2^{int(math.log2(n))} float32, "
        f"matrix {side} x {side}; % of device copy, fewest bytes counted) ==")
    if cp is None:
        raise RuntimeError("CuPy is needed for section 4 (arrays, events, references)")
    res = RESULTS.setdefault("forms", {})
    rows = res.setdefault("rows", {})
    res["n"], res["side"] = n, side
    cp.random.seed(5)
    x = cp.random.rand(n, dtype=cp.float32) + cp.float32(0.5)      # [0.5, 1.5): no zeros
    y = cp.random.rand(n, dtype=cp.float32) + cp.float32(0.5)
    o = cp.empty(n, dtype=cp.float32)
    dev_sync()

    copy_ref = get("saxpy", "copy_ref_gbs") if get("saxpy", "n") == n else None
    if copy_ref:
        res["copy_source"] = "section 3"
        log(f"  copy reference from section 3: {copy_ref:.1f} GB/s")
    else:
        gbs = copy_reference(x, o, args)
        res["copy_gbs"] = gbs
        copy_ref = max(gbs.values()) if gbs else None
        res["copy_source"] = "measured in section 4"
    res["copy_ref_gbs"] = copy_ref

    def T(row, lib, label, fn, verify, nbytes, **kw):
        time_form(rows, row, lib, label, fn, verify, nbytes, copy_ref, args, **kw)

    nx = ny = no = None
    if cuda is not None:
        try:
            nx, ny, no = cuda.as_cuda_array(x), cuda.as_cuda_array(y), cuda.as_cuda_array(o)
        except Exception as e:  # noqa: BLE001
            err("forms/numba views", e)

    # -- vectorize, 2 inputs: x * y + 1.0, 3 x 4 bytes per element
    log("  -- vectorize f(x, y) = x * y + 1.0 (3 x 4 B per element)")
    vb = 3 * 4 * n
    try:
        ref = x * y + cp.float32(1.0)
        dev_sync()
    except Exception as e:      # noqa: BLE001
        err("forms/vec2 reference", e)
        ref = None
    if ref is not None and cujit is not None:
        try:
            cf = cujit.vectorize(fma1)
            oc = cf(x, y)           # compiles; gives the output reused through out=
            dev_sync()
            T("vec2", "cujit", "cujit vectorize f(x, y, out=o)", lambda: cf(x, y, out=oc),
              lambda r: check_close(oc, ref), vb, before=lambda: poison(oc))
            del oc
        except Exception as e:  # noqa: BLE001
            err("forms/vec2/cujit", e)
    if ref is not None and cpjit is not None:
        try:
            cv = cp.vectorize(fma1)
            T("vec2", "cupy", "cupy.vectorize f(x, y) (no out=: allocates)", lambda: cv(x, y),
              lambda r: check_close(r, ref), vb,
              note="cupy.vectorize takes no out=: each call allocates its output (from the pool)")
        except Exception as e:  # noqa: BLE001
            err("forms/vec2/cupy", e)
    if ref is not None and nx is not None:
        try:
            import numba
            nv = numba.vectorize(["float32(float32, float32)"], target="cuda")(fma1)
            T("vec2", "numba", "numba vectorize f(x, y, out=o)", lambda: nv(nx, ny, out=no),
              lambda r: check_close(o, ref), vb, before=lambda: poison(o))
        except Exception as e:  # noqa: BLE001
            err("forms/vec2/numba", e)
    ref = None

    # -- reductions over x: 4 bytes per element
    log("  -- sum of squares and sum over x (4 B per element)")
    rb = 4 * n
    ref_ssq = ref_sum = None
    try:
        xd = x.astype(cp.float64)
        ref_ssq = cp.sum(xd * xd)
        ref_sum = cp.sum(xd)
        del xd
        dev_sync()
    except Exception as e:      # noqa: BLE001
        err("forms/reduction references", e)
    cadd = None
    if cujit is not None:
        try:
            cadd = cujit.reduce(identity=0)(add2)
        except Exception as e:  # noqa: BLE001
            err("forms/cujit reduce decorate", e)
    nred = nres = nx2 = None
    if nx is not None:
        try:
            nred = cuda.reduce(add2)
            nres = cuda.device_array(1, dtype=np.float32)
        except Exception as e:  # noqa: BLE001
            err("forms/numba reduce", e)
    if ref_ssq is not None:
        if cadd is not None:
            T("ssq", "cujit", "cujit add(x, map=square)", lambda: cadd(x, map=square),
              lambda r: check_rel(r, ref_ssq), rb)
        try:
            rk = cp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "ssq")
            T("ssq", "cupy", "CuPy ReductionKernel ssq(x)", lambda: rk(x),
              lambda r: check_rel(r, ref_ssq), rb)
        except Exception as e:  # noqa: BLE001
            err("forms/ssq/cupy", e)
        if nred is not None:
            try:
                x2 = x * x
                nx2 = cuda.as_cuda_array(x2)
                T("ssq", "numba", "numba cuda.reduce(add)(x*x precomputed, res=)",
                  lambda: nred(nx2, res=nres), lambda r: check_rel(as_cupy(nres)[0], ref_ssq), rb,
                  note="numba's cuda.reduce has no map: timed on x*x computed beforehand")
            except Exception as e:  # noqa: BLE001
                err("forms/ssq/numba", e)
            nx2 = x2 = None
    if ref_sum is not None:
        if cadd is not None:
            T("sum", "cujit", "cujit add(x)", lambda: cadd(x), lambda r: check_rel(r, ref_sum), rb)
        T("sum", "cupy", "cupy.sum(x)", lambda: cp.sum(x), lambda r: check_rel(r, ref_sum), rb)
        if nred is not None:
            T("sum", "numba", "numba cuda.reduce(add)(x, res=)", lambda: nred(nx, res=nres),
              lambda r: check_rel(as_cupy(nres)[0], ref_sum), rb)

    # -- sum along an axis of a C-ordered side x side matrix
    log(f"  -- sum(axis=0) and sum(axis=1) of a {side} x {side} C-ordered matrix")
    m = None
    try:
        if side * side <= n:
            m = x[:side * side].reshape(side, side)      # C-contiguous view, no copy
        else:
            m = cp.random.rand(side, side, dtype=cp.float32) + cp.float32(0.5)
        md = m.astype(cp.float64)
        refs = {0: cp.sum(md, axis=0), 1: cp.sum(md, axis=1)}
        del md
        dev_sync()
    except Exception as e:      # noqa: BLE001
        err("forms/matrix", e)
        m = None
    if m is not None:
        mb = 4 * side * side + 4 * side
        for ax in (0, 1):
            row = f"sum_axis{ax}"
            if cadd is not None:
                T(row, "cujit", f"cujit add(m, axis={ax})", lambda ax=ax: cadd(m, axis=ax),
                  lambda r, ax=ax: check_rel(r, refs[ax]), mb)
            T(row, "cupy", f"cupy.sum(m, axis={ax})", lambda ax=ax: cp.sum(m, axis=ax),
              lambda r, ax=ax: check_rel(r, refs[ax]), mb)
        refs = m = None

    # -- cujit's stdlib on DeviceArrays: x + y and x.sum()
    log("  -- cujit stdlib: DeviceArray x + y (3 x 4 B per element) and x.sum() (4 B)")
    dx = dy = None
    if cujit is not None:
        try:
            dx, dy = to_cujit(x), to_cujit(y)
        except Exception as e:  # noqa: BLE001
            err("forms/stdlib arrays", e)
    try:
        ref = x + y
        dev_sync()
    except Exception as e:      # noqa: BLE001
        err("forms/stdlib reference", e)
        ref = None
    if ref is not None:
        if dx is not None:
            T("add_op", "cujit", "cujit DeviceArray x + y", lambda: dx + dy,
              lambda r: check_close(r, ref), vb, optional=True,
              note="result allocated each call (cujit's pool), as CuPy's is")
        T("add_op", "cupy", "CuPy x + y", lambda: x + y, lambda r: check_close(r, ref), vb)
    ref = None
    if ref_sum is not None:
        if dx is not None:
            T("sum_method", "cujit", "cujit DeviceArray x.sum()", lambda: dx.sum(),
              lambda r: check_rel(r, ref_sum), rb, optional=True)
        T("sum_method", "cupy", "CuPy x.sum()", lambda: x.sum(),
          lambda r: check_rel(r, ref_sum), rb)

    del x, y, o, dx, dy, nx, ny, no
    try:
        cp.get_default_memory_pool().free_all_blocks()
        if cujit is not None:
            cujit.release_memory()
    except Exception:           # noqa: BLE001
        pass


# ---------------------------------------------------------------------------
# 5. first call of a vectorize in a new process, empty caches

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
    "numba": r'''
import warnings
os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")
warnings.simplefilter("ignore")
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack
import numba
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
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PYTHONUNBUFFERED"] = "1"
    for var, sub in (("CUJIT_CACHE_DIR", "cujit"), ("CUPY_CACHE_DIR", "cupy"),
                     ("NUMBA_CACHE_DIR", "numba"), ("CUDA_CACHE_PATH", "cuda")):
        d = os.path.join(cache_root, sub)
        os.makedirs(d, exist_ok=True)
        env[var] = d
    p = subprocess.run([sys.executable, script], capture_output=True, text=True,
                       timeout=timeout, env=env, cwd=ROOT)
    m = None
    for ln in p.stdout.splitlines():
        if ln.startswith("RESULT "):
            m = ln.split()
    if p.returncode != 0 or not m:
        tail = (p.stdout + p.stderr).strip()[-1200:]
        raise RuntimeError(f"{lib} first-vectorize process rc={p.returncode}: {tail}")
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


# ---------------------------------------------------------------------------
# summary

def fmt(v, nd=2):
    if v is None:
        return "n/a"
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return str(v)
    return f"{v:.{nd}f}"


def get(*path):
    d = RESULTS
    for p in path:
        if not isinstance(d, dict) or p not in d:
            return None
        d = d[p]
    return d


def met(value, limit, le=True):
    if value is None or limit is None:
        return "?"
    return "yes" if (value <= limit if le else value >= limit) else "NO"


def summary():
    L = get("launch") or {}
    F = get("first") or {}
    S = get("saxpy") or {}
    floor = get("launch", "c_floor", "us")
    raw_empty = get("first", "cupy_raw", "empty_ms")
    copy_ref = S.get("copy_ref_gbs")

    def us(k):
        return get("launch", k, "us")

    def paired(k):
        return get("launch", k, "ratio")

    rows = []
    rows.append(["launch us, CuPy array", us("cujit_cupy"), us("cupy_raw"), us("cupyx_jit"),
                 us("numba_cupy"), floor, "paired ratio <= 1.2x C",
                 met(paired("cujit_cupy"), 1.2)])
    rows.append(["launch us, own array", us("cujit_devarray"), None, None,
                 us("numba_devarray"), floor, "paired ratio <= 1.2x C",
                 met(paired("cujit_devarray"), 1.2)])
    rows.append(["launch us, k[1,32] bound", us("cujit_cupy_bound"), None, None, None, floor,
                 "(info)", ""])
    rows.append(["launch us, k(grid,blk,args)", us("cujit_cupy_style"), us("cupy_raw"), us("cupyx_jit"),
                 None, floor, "(info)", ""])
    e_lim = 1.3 * raw_empty if raw_empty else None
    rows.append(["first call ms, empty cache", get("first", "cujit", "empty_ms"), raw_empty,
                 get("first", "cupyx_jit", "empty_ms"), get("first", "numba", "empty_ms"), None,
                 f"<= {fmt(e_lim, 1)} (1.3x Raw)" if e_lim else "<= 1.3x Raw",
                 met(get("first", "cujit", "empty_ms"), e_lim)])
    rows.append(["first call ms, warm cache", get("first", "cujit", "warm_ms"),
                 get("first", "cupy_raw", "warm_ms"), get("first", "cupyx_jit", "warm_ms"),
                 get("first", "numba", "warm_ms"), None, "<= 1.00",
                 met(get("first", "cujit", "warm_ms"), 1.0)])
    rows.append(["saxpy GB/s (C col: copy)", get("saxpy", "cujit", "gbs"),
                 get("saxpy", "cupy_raw", "gbs"), get("saxpy", "cupyx_jit", "gbs"),
                 get("saxpy", "numba", "gbs"), copy_ref,
                 f">= {fmt(0.95 * copy_ref, 0)}" if copy_ref else ">= 95% copy",
                 met(get("saxpy", "cujit", "gbs"), 0.95 * copy_ref if copy_ref else None, le=False)])
    rows.append(["saxpy % of copy bandwidth", get("saxpy", "cujit", "pct_copy"),
                 get("saxpy", "cupy_raw", "pct_copy"), get("saxpy", "cupyx_jit", "pct_copy"),
                 get("saxpy", "numba", "pct_copy"), 100.0 if copy_ref else None, ">= 95.0",
                 met(get("saxpy", "cujit", "pct_copy"), 95.0, le=False)])

    # section 4: % of copy bandwidth (CuPy column: the CuPy reference of each row)
    fc = get("forms", "copy_ref_gbs")
    if get("forms") is not None:
        rows.append(["forms: copy GB/s (C col)", None, None, None, None, fc, "(reference)", ""])

    def pct(row, lib):
        return get("forms", "rows", row, lib, "pct_copy")
    for row, name in (("vec2", "vectorize x*y+1 % copy"), ("ssq", "sum of squares % copy"),
                      ("sum", "sum % copy"), ("sum_axis0", "sum(axis=0) % copy"),
                      ("sum_axis1", "sum(axis=1) % copy"), ("add_op", "stdlib x + y % copy"),
                      ("sum_method", "stdlib x.sum() % copy")):
        if get("forms", "rows", row) is None:
            continue
        rows.append([name, pct(row, "cujit"), pct(row, "cupy"), None, pct(row, "numba"),
                     100.0 if fc else None, ">= 95.0",
                     met(pct(row, "cujit"), 95.0, le=False)])
    if get("first_vec") is not None:
        rows.append(["first vectorize ms, empty cache", get("first_vec", "cujit", "empty_ms"),
                     get("first_vec", "cupy_vectorize", "empty_ms"), None,
                     get("first_vec", "numba", "empty_ms"), None, "<= 60.0",
                     met(get("first_vec", "cujit", "empty_ms"), 60.0)])

    head = ["measurement", "cujit", "CuPy Raw", "cupyx.jit", "numba-cuda", "C floor", "goal", "met?"]
    w = [32, 10, 10, 10, 10, 10, 22, 4]
    line = " | ".join(h.ljust(w[i]) if i in (0, 6, 7) else h.rjust(w[i]) for i, h in enumerate(head))
    out = ["", "=" * len(line), "SUMMARY (numba 'CuPy array' row: a CuPy array passed; "
           "'own array': cujit DeviceArray / numba device array)", line, "-" * len(line)]
    for r in rows:
        cells = [r[0].ljust(w[0])]
        for i in range(1, 6):
            cells.append(fmt(r[i]).rjust(w[i]) if not isinstance(r[i], str) else r[i].rjust(w[i]))
        cells += [r[6].ljust(w[6]), r[7].ljust(w[7])]
        out.append(" | ".join(cells))
    RESULTS["summary_rows"] = [dict(zip(head, r)) for r in rows]
    if get("forms") is not None or get("first_vec") is not None:
        out.append("rows from sections 4-5: CuPy column = cupy.vectorize (no out=, allocates) / "
                   "ReductionKernel (sum of squares) / cupy.sum / CuPy operators; numba column =")
        out.append("  numba vectorize(out=) / cuda.reduce(res=), on x*x precomputed for the sum of "
                   "squares (no map); C floor column = copy.")

    def ratio(a, b):
        return a / b if a is not None and b else None
    rat = {
        "launch cujit(CuPy arr) / C floor, paired": paired("cujit_cupy"),
        "launch cujit(DeviceArray) / C floor, paired": paired("cujit_devarray"),
        "launch cujit(CuPy arr) / C floor, medians": ratio(us("cujit_cupy"), floor),
        "launch cujit(DeviceArray) / C floor, medians": ratio(us("cujit_devarray"), floor),
        "launch CuPy RawKernel / C floor, paired": paired("cupy_raw"),
        "launch cupyx.jit / C floor, paired": paired("cupyx_jit"),
        "launch numba(own arr) / C floor, paired": paired("numba_devarray"),
        "launch numba(CuPy arr) / C floor, paired": paired("numba_cupy"),
        "launch cujit(CuPy arr) / RawKernel": ratio(us("cujit_cupy"), us("cupy_raw")),
        "first empty cujit / RawKernel": ratio(get("first", "cujit", "empty_ms"), raw_empty),
        "first empty cujit / cupyx.jit": ratio(get("first", "cujit", "empty_ms"),
                                               get("first", "cupyx_jit", "empty_ms")),
        "first empty cujit / numba": ratio(get("first", "cujit", "empty_ms"),
                                           get("first", "numba", "empty_ms")),
        "first warm cujit / RawKernel": ratio(get("first", "cujit", "warm_ms"),
                                              get("first", "cupy_raw", "warm_ms")),
        "saxpy cujit / RawKernel (GB/s)": ratio(get("saxpy", "cujit", "gbs"),
                                                get("saxpy", "cupy_raw", "gbs")),
    }
    if get("forms") is not None:
        def fg(row, lib):
            return get("forms", "rows", row, lib, "gbs")
        rat.update({
            "vectorize cujit / cupy.vectorize (GB/s)": ratio(fg("vec2", "cujit"), fg("vec2", "cupy")),
            "vectorize cujit / numba (GB/s)": ratio(fg("vec2", "cujit"), fg("vec2", "numba")),
            "sum sq cujit / ReductionKernel (GB/s)": ratio(fg("ssq", "cujit"), fg("ssq", "cupy")),
            "sum cujit / cupy.sum (GB/s)": ratio(fg("sum", "cujit"), fg("sum", "cupy")),
            "sum axis0 cujit / cupy.sum (GB/s)": ratio(fg("sum_axis0", "cujit"),
                                                       fg("sum_axis0", "cupy")),
            "sum axis1 cujit / cupy.sum (GB/s)": ratio(fg("sum_axis1", "cujit"),
                                                       fg("sum_axis1", "cupy")),
        })
    if get("first_vec") is not None:
        fv = get("first_vec", "cujit", "empty_ms")
        rat.update({
            "first vectorize cujit / cupy.vectorize": ratio(fv, get("first_vec", "cupy_vectorize",
                                                                    "empty_ms")),
            "first vectorize cujit / numba": ratio(fv, get("first_vec", "numba", "empty_ms")),
        })
    RESULTS["ratios"] = rat
    out.append("-" * len(line))
    items = [f"{k} = {fmt(v)}" + ("x" if v is not None else "") for k, v in rat.items()]
    for i in range(0, len(items), 2):
        out.append("  " + "   ".join(s.ljust(52) for s in items[i:i + 2]).rstrip())
    bad = [f"{k}: {'ok' if v.get('correct') else 'WRONG'}"
           for sec in ("launch", "first", "saxpy", "first_vec") for k, v in (get(sec) or {}).items()
           if isinstance(v, dict) and "correct" in v and not v.get("correct")]
    for row, libs in (get("forms", "rows") or {}).items():
        for lib, v in libs.items():
            if isinstance(v, dict) and "correct" in v and v.get("correct") is not True:
                bad.append(f"{row}/{lib}: {'WRONG' if v.get('correct') is False else 'UNCHECKED'}"
                           f" ({v.get('check', '')})")
    out.append("correctness: " + ("all checked results right" if not bad else "; ".join(bad)))
    if RESULTS["errors"]:
        out.append(f"errors ({len(RESULTS['errors'])}):")
        for k, v in RESULTS["errors"].items():
            out.append(f"  {k}: {v[:150]}")
    for nt in RESULTS["notes"]:
        out.append(f"note: {nt[:160]}")
    out.append(f"device: {RESULTS.get('env', {}).get('device', '?')}   "
               f"total {time.perf_counter() - T_START:.1f} s")
    log("\n".join(out))


def environment():
    envi = {"python": platform.python_version(), "numpy": np.__version__}
    try:
        envi["cujit"] = getattr(cujit, "__version__", "?") if cujit else None
    except Exception:           # noqa: BLE001
        pass
    try:
        import importlib.metadata as md
        for pkg in ("cupy-cuda13x", "cupy-cuda12x", "cupy", "numba", "numba-cuda"):
            try:
                envi[pkg] = md.version(pkg)
            except Exception:   # noqa: BLE001
                pass
    except Exception:           # noqa: BLE001
        pass
    if cp is not None:
        try:
            props = cp.cuda.runtime.getDeviceProperties(0)
            name = props["name"]
            envi["device"] = name.decode() if isinstance(name, bytes) else str(name)
            envi["driver"] = cp.cuda.runtime.driverGetVersion()
            envi["runtime"] = cp.cuda.runtime.runtimeGetVersion()
        except Exception as e:  # noqa: BLE001
            err("env/device", e)
    RESULTS["env"] = envi
    log("environment: " + ", ".join(f"{k} {v}" for k, v in envi.items()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small N and sizes: a smoke test")
    ap.add_argument("--sections", default="1,2,3,4,5", help="which sections, e.g. 1,3")
    ap.add_argument("--launches", type=int, default=0, help="launches per repetition (section 1)")
    ap.add_argument("--launch-child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    cli_launches = args.launches
    if args.quick:
        args.launches, args.warm, args.pairs = 1000, 100, 3
        args.first_runs, args.first_budget, args.first_timeout = 1, 150.0, 90
        args.n, args.bw_warm, args.bw_iters = 1 << 22, 2, 5
        args.side, args.fv_budget, args.fv_timeout = 2048, 60.0, 45
    else:
        args.launches, args.warm, args.pairs = 5000, 1000, 40
        args.first_runs, args.first_budget, args.first_timeout = 3, 170.0, 90
        args.n, args.bw_warm, args.bw_iters = 1 << 28, 3, 20
        args.side, args.fv_budget, args.fv_timeout = 16384, 90.0, 45
    if cli_launches:
        args.launches, args.warm = cli_launches, min(args.warm, cli_launches)
    if args.launch_child:
        launch_child(args)
        return
    RESULTS["args"] = {k: v for k, v in vars(args).items()}
    want = {s.strip() for s in args.sections.split(",")}
    environment()
    for key, fn in (("1", section_launch), ("2", section_first), ("3", section_saxpy),
                    ("4", section_forms), ("5", section_first_vec)):
        if key not in want:
            continue
        try:
            fn(args)
        except Exception as e:  # noqa: BLE001
            err(f"section {key}", e)
    try:
        summary()
    except Exception as e:      # noqa: BLE001
        err("summary", e)
    path = os.environ.get("CUJIT_BENCH_OUT")
    if path:
        try:
            with open(path, "w") as f:
                json.dump(RESULTS, f, indent=1, default=str)
            log(f"wrote {path}")
        except Exception as e:  # noqa: BLE001
            err("json out", e)


if __name__ == "__main__":
    main()
