"""What every section of bench.py shares: the paths, the result store
(RESULTS, get), logging and error records, medians and number formatting,
child processes (child_env, run_script), the libraries measured (each
optional, imported once here, LIBS), the kernels written in each, and
timing on the device through CuPy (gpu_time_ms, copy_reference)."""
import math
import os
import statistics
import subprocess
import sys
import textwrap
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


def child_env(**extra):
    """os.environ for a child process: the repository first on PYTHONPATH, extra set."""
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.update(extra)
    return env


def run_script(what, script, env, timeout):
    """Runs a timing script in a new process; (its stdout, the fields of its
    last RESULT line).  Raises, with the output's tail, where it failed."""
    p = subprocess.run([sys.executable, script], capture_output=True, text=True,
                       timeout=timeout, env=env, cwd=ROOT)
    m = None
    for ln in p.stdout.splitlines():
        if ln.startswith("RESULT "):
            m = ln.split()
    if p.returncode != 0 or not m:
        tail = (p.stdout + p.stderr).strip()[-1200:]
        raise RuntimeError(f"{what} process rc={p.returncode}: {tail}")
    return p.stdout, m


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

# each library section 1 runs a process of its own for, None where it did not import
LIBS = (("cujit", cujit), ("cupy", cp), ("cupyx", cpjit), ("numba", cuda))


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


def saxpy_cujit_bdt(a, x, y, out, n):
    """saxpy as CUDA and Numba code spell it: the index by hand, the bound n"""
    i = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x
    if i < n:
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

# what a timing script (sections 2 and 5) runs before it imports numba
NUMBA_SETUP = r'''
import warnings
os.environ.setdefault("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", "0")
warnings.simplefilter("ignore")
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack
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
# timing on the device

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


def copy_reference(src, dst, args, where):
    """GB/s of a device-to-device copy of src into dst (read + write counted)
    by cupy.copyto and by cudaMemcpyAsync; a failure is recorded under
    `where/copy KEY`."""
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
            err(f"{where}/copy {key}", e)
    return gbs


# ---------------------------------------------------------------------------
# the result store and number formatting

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
