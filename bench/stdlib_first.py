"""The first use of each stdlib operation in a new process, every cache empty
(cujit's, CuPy's, the driver's): cujit as it is, with
CUJIT_PARALLEL_COMPILE=0 (an operation's kernels compiled at each launch in
turn), after `python -m cujit warmup` (the disk cache filled beforehand), and
CuPy's first use of the same operation in its own new process (when CuPy is
installed).  Medians over --runs processes per case, the cases taking turns.

    python3 bench/stdlib_first.py [--runs 5] [--ops add,sum,...] [--dtypes float32,int64]

Each process creates its arrays (2^20 elements, 512 x 512), synchronizes,
then times the operation and a synchronize.  Without a GPU it runs against
tests/fakecuda's fake libcuda (built here): the kernels compile but do not
run, and CuPy is left out."""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

OPS = {                 # name: (cujit expression, CuPy expression)
    "add": ("x + y", "x + y"),
    "scale": ("x * 2.0", "x * 2.0"),
    "sum": ("x.sum()", "x.sum()"),
    "sum_axis1": ("m.sum(axis=1)", "m.sum(axis=1)"),
    "argmax": ("cujit.argmax(x)", "cp.argmax(x)"),
    "cumsum": ("cujit.cumsum(x)", "cp.cumsum(x)"),
    "where": ("cujit.where(x > y, x, y)", "cp.where(x > y, x, y)"),
}

SCRIPT = r'''
import sys, time
import numpy as np
LIB, DT, EXPR = sys.argv[1], sys.argv[2], sys.argv[3]
rng = np.random.default_rng(3)
if np.dtype(DT).kind in "iu":
    hx, hy = rng.integers(1, 100, 1 << 20), rng.integers(1, 100, 1 << 20)
else:
    hx, hy = rng.random(1 << 20) + 0.5, rng.random(1 << 20) + 0.5
hx, hy = hx.astype(DT), hy.astype(DT)
hm = hx[:512 * 512].reshape(512, 512)
if LIB == "cupy":
    import cupy as cp
    x, y, m = cp.asarray(hx), cp.asarray(hy), cp.asarray(hm)
    sync = cp.cuda.Device().synchronize
else:
    import cujit
    x, y, m = cujit.to_device(hx), cujit.to_device(hy), cujit.to_device(hm)
    sync = cujit.synchronize
sync()
t0 = time.perf_counter()
r = eval(EXPR)
sync()
print("RESULT %.3f" % (1e3 * (time.perf_counter() - t0)))
'''


def have_gpu(env):
    r = subprocess.run([sys.executable, "-c", "import cujit, sys; "
                        "sys.exit(0 if cujit.is_available() else 1)"], env=env,
                       capture_output=True)
    return r.returncode == 0


def fresh_caches(env, root):
    """env with every cache a new empty folder under root."""
    e = dict(env)
    for var in ("CUJIT_CACHE_DIR", "CUPY_CACHE_DIR", "CUDA_CACHE_PATH"):
        d = tempfile.mkdtemp(dir=root)
        e[var] = d
    return e


def one(script, lib, dt, expr, env):
    p = subprocess.run([sys.executable, script, lib, dt, expr], env=env, capture_output=True,
                       text=True, timeout=600)
    for ln in p.stdout.splitlines():
        if ln.startswith("RESULT "):
            return float(ln.split()[1])
    raise RuntimeError("%s %s %s failed:\n%s" % (lib, dt, expr, (p.stdout + p.stderr)[-1500:]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--ops", default=",".join(OPS))
    ap.add_argument("--dtypes", default="float32,int64")
    a = ap.parse_args()
    root = tempfile.mkdtemp(prefix="cujit-first-")
    try:
        base = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
        for v in ("CUJIT_CACHE", "CUJIT_PARALLEL_COMPILE", "CUJIT_LOG"):
            base.pop(v, None)
        gpu = have_gpu(base)
        if not gpu:
            lib = os.path.join(root, "libcuda.so.1")
            subprocess.run([os.environ.get("CC", "cc"), "-shared", "-fPIC", "-O1", "-o", lib,
                            os.path.join(ROOT, "tests", "fakecuda", "fakecuda.c")], check=True)
            base["LD_LIBRARY_PATH"] = root + os.pathsep + base.get("LD_LIBRARY_PATH", "")
        try:
            import cupy  # noqa: F401
            cupy_ok = gpu
        except ImportError:
            cupy_ok = False
        script = os.path.join(root, "first.py")
        with open(script, "w") as f:
            f.write(SCRIPT)
        dtypes = a.dtypes.split(",")
        ops = a.ops.split(",")
        cases = ["cujit", "cujit serial", "cujit warm"] + (["cupy"] if cupy_ok else [])
        warm = {}
        for dt in dtypes:           # one disk cache per dtype, filled once
            warm[dt] = fresh_caches(base, root)["CUJIT_CACHE_DIR"]
            subprocess.run([sys.executable, "-m", "cujit", "warmup", "--quiet", "--dtypes", dt],
                           env=dict(base, CUJIT_CACHE_DIR=warm[dt]), check=True, timeout=900)
        times = {}
        for r in range(a.runs):
            for dt in dtypes:
                for op in ops:
                    for case in cases:
                        env = fresh_caches(base, root)
                        if case == "cujit serial":
                            env["CUJIT_PARALLEL_COMPILE"] = "0"
                        if case == "cujit warm":
                            env["CUJIT_CACHE_DIR"] = warm[dt]
                        lib = "cupy" if case == "cupy" else "cujit"
                        expr = OPS[op][1 if lib == "cupy" else 0]
                        times.setdefault((dt, op, case), []).append(
                            one(script, lib, dt, expr, env))
            print("round %d of %d done" % (r + 1, a.runs), file=sys.stderr)
        print("first use in a new process, every cache empty: ms, median of %d processes%s"
              % (a.runs, "" if gpu else " (fake driver: no GPU, kernels not run)"))
        print("%-9s %-10s" % ("dtype", "operation") + "".join("%14s" % c for c in cases))
        for dt in dtypes:
            for op in ops:
                print("%-9s %-10s" % (dt, op) + "".join(
                    "%14.1f" % statistics.median(times[(dt, op, c)]) for c in cases))
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
