"""Section 13: what linking foreign compiled code adds to a first call.  A
saxpy kernel (n = 2^20 float32) calls a foreign device function axpy, in a
new process with every cache empty and with the caches a first run left:
- cujit with the function's CUDA C++ (a cuda.CUSource: compiled into the
  kernel's own program, no link step);
- cujit with its PTX (declare_device(link=<file>.ptx): the kernel compiled
  with -rdc=true, then the driver's JIT linker; a warm cache holds the
  linked image);
- numba-cuda with the same two links;
- CuPy RawKernel with the function pasted into its source (CuPy links no
  foreign PTX into a RawKernel), the hand-written reference.
The PTX is made once here by NVRTC for the device's architecture.  The
libraries take turns round by round; medians."""
import os
import shutil
import tempfile

from benchlib import NUMBA_SETUP, RESULTS, cp, cuda, cujit, fmt, log, median
from firstlib import alternate, runs_text, write_cases

AXPY_CU = r'''extern "C" __device__ int axpy(float *out, float a, float x, float y) {
    *out = a * x + y;
    return 0;
}
'''

LK_PRELUDE = r'''
import os, sys, time
import numpy as np
N = 1 << 20
rng = np.random.default_rng(11)
hx = rng.standard_normal(N).astype(np.float32)
hy = rng.standard_normal(N).astype(np.float32)
A = np.float32(1.75)
REF = A * hx + hy
PTX = os.environ["LK_PTX"]
CU = os.environ["LK_CU"]
def report(t0, t1, got):
    got = np.asarray(got)
    ok = got.shape == REF.shape and bool(np.allclose(got, REF, rtol=1e-5, atol=1e-6))
    print("RESULT %.6f %s" % ((t1 - t0) * 1e3, ok), flush=True)
'''

# the same kernel and host code under either library's `cuda` (MODULE)
_SAXPY = r'''
from MODULE import cuda
x = cuda.to_device(hx); y = cuda.to_device(hy); out = cuda.device_array(N, np.float32)
cuda.synchronize()
t0 = time.perf_counter()
axpy = cuda.declare_device("axpy", "float32(float32, float32, float32)", link=LINK)
@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = axpy(a, x[i], y[i])
saxpy[(N + 255) // 256, 256](A, x, y, out)
cuda.synchronize()
t1 = time.perf_counter()
report(t0, t1, out.copy_to_host())
'''
_CUJIT = _SAXPY.replace("MODULE", "cujit")
_NUMBA = NUMBA_SETUP + _SAXPY.replace("MODULE", "numba")

LK_SCRIPTS = {
    "cujit_cu": "LINK = CU\n" + _CUJIT,
    "cujit_ptx": "LINK = PTX\n" + _CUJIT,
    "numba_cu": "LINK = CU\n" + _NUMBA,
    "numba_ptx": "LINK = PTX\n" + _NUMBA,
    "cupy_raw": r'''
import cupy as cp
x = cp.asarray(hx); y = cp.asarray(hy); out = cp.empty(N, np.float32)
cp.cuda.Device().synchronize()
t0 = time.perf_counter()
src = open(CU).read() + r"""
extern "C" __global__ void saxpy(float a, const float *x, const float *y, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float r; axpy(&r, a, x[i], y[i]); out[i] = r; }
}
"""
k = cp.RawKernel(src, "saxpy")
k(((N + 255) // 256,), (256,), (A, x, y, out, np.int32(N)))
cp.cuda.Device().synchronize()
t1 = time.perf_counter()
report(t0, t1, out.get())
''',
}

LABELS = {"cujit_cu": "cujit, link=.cu (one program)", "cujit_ptx": "cujit, link=.ptx (linked)",
          "numba_cu": "numba-cuda, link=.cu", "numba_ptx": "numba-cuda, link=.ptx",
          "cupy_raw": "CuPy RawKernel (function pasted)"}


def _make_files(work):
    """the .cu and the PTX NVRTC makes of it for this device"""
    from cujit import _cujit
    from cujit import cuda as cjcuda
    cu = os.path.join(work, "axpy.cu")
    with open(cu, "w") as f:
        f.write(AXPY_CU)
    major, minor = cjcuda.get_current_device().compute_capability
    ptx, _, _ = _cujit._nvrtc_compile(AXPY_CU, "axpy", f"compute_{major}{minor}",
                                      options=["-rdc=true"])
    path = os.path.join(work, "axpy.ptx")
    with open(path, "w") as f:
        f.write(ptx)
    return cu, path


def section_link(args):
    log("\n== 13. first call of a kernel calling a foreign device function: its CUDA C++ "
        "compiled in, or its PTX linked (n = 2^20 float32; decorator to synchronized result) ==")
    log(f"  {args.first_runs} rounds, each case in turn, a fresh process per run; every cache "
        "empty, or as one filling run left it (cujit keeps the linked image)")
    res = RESULTS.setdefault("first_link", {})
    if cujit is None:
        log("  skipped: cujit is not importable here")
        return
    avail = {"cujit_cu": True, "cujit_ptx": True, "numba_cu": cuda is not None,
             "numba_ptx": cuda is not None, "cupy_raw": cp is not None}
    work = tempfile.mkdtemp(prefix="cujit_lk_")
    try:
        cu, ptx = _make_files(work)
        scripts = {}
        for key, body in LK_SCRIPTS.items():
            if avail[key]:
                scripts[key] = body
            else:
                log(f"  {LABELS[key]}: skipped (not importable here)")
                RESULTS["errors"][f"first_link/{key}"] = "not importable here"
        extra = {"LK_PTX": ptx, "LK_CU": cu}
        cases = write_cases(work, scripts, LK_PRELUDE, {k: extra for k in scripts})
        alternate(cases, args.first_runs, args.fv_budget, args.fv_timeout, work, "first-link")
        for c in cases:
            res[c.key] = c.summary()
            log(f"  {LABELS[c.key]:<36} empty {fmt(median(c.empty), 1):>8} ms "
                f"{runs_text(c.empty)}   warm {fmt(median(c.warm), 1):>8} ms "
                f"{runs_text(c.warm)}{'' if c.ok else '   WRONG RESULT'}")
            if not c.ok:
                RESULTS["notes"].append(f"first-link: {c.key} gave a WRONG result")
        cu_ms, ptx_ms = (median(res.get(k, {}).get("empty_runs_ms") or []) for k in
                         ("cujit_cu", "cujit_ptx"))
        if cu_ms and ptx_ms:
            log(f"  cujit: linking the PTX adds {ptx_ms - cu_ms:.1f} ms to a first call with "
                "empty caches (-rdc=true and the driver's linker, which JIT-compiles the PTX)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
