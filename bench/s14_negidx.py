"""Section 14: what counting negative indices from the end costs (cuda.jit
kernels, Numba's semantics; codegen/nonneg.c spares the indices it proves
non-negative).  Device time of three 1-d float32 stencils on n elements
(bytes: u read once, out written once), the libraries taking turns round by
round, CUDA events, medians:
- periodic: out[i] = u[i - 1] - 2 u[i] + u[i + 1 - n] (two wraps kept, the
  reason they exist: i - 1 at 0 and i + 1 - n below the end count from the end);
- guarded: if 0 < i < n - 1: out[i] = u[i - 1] - 2 u[i] + u[i + 1] (cujit
  proves every index >= 0 under the guard: no wrap);
- offset: the guarded stencil reading u[i - off], off a parameter (a wrap
  cujit cannot remove): its time beside `guarded` is what one wrap costs.
cujit.cuda and numba-cuda run the same Numba-spelled source (Numba wraps
every signed index); CuPy RawKernel is the hand-written CUDA C++ (the
periodic one with explicit `i == 0 ? n - 1 : i - 1` selects)."""
import importlib.util
import os
import tempfile

import numpy as np

from benchlib import RESULTS, cp, cuda, cujit, err, fmt, gpu_time_ms, log, median

STENCILS = '''
@cuda.jit
def periodic(u, out):
    i = cuda.grid(1)
    n = u.shape[0]
    if i < n:
        out[i] = u[i - 1] - 2 * u[i] + u[i + 1 - n]


@cuda.jit
def guarded(u, out):
    i = cuda.grid(1)
    n = u.shape[0]
    if 0 < i < n - 1:
        out[i] = u[i - 1] - 2 * u[i] + u[i + 1]


@cuda.jit
def offset(u, out, off):
    i = cuda.grid(1)
    n = u.shape[0]
    if 0 < i < n - 1:
        out[i] = u[i - off] - 2 * u[i] + u[i + 1]
'''

RAW_CUDA = r'''
extern "C" __global__ void periodic(const float *u, float *out, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = u[i == 0 ? n - 1 : i - 1] - 2.0f * u[i] + u[i == n - 1 ? 0 : i + 1];
    }
}
extern "C" __global__ void guarded(const float *u, float *out, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (0 < i && i < n - 1) {
        out[i] = u[i - 1] - 2.0f * u[i] + u[i + 1];
    }
}
extern "C" __global__ void offset(const float *u, float *out, long long n, long long off)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (0 < i && i < n - 1) {
        out[i] = u[i - off] - 2.0f * u[i] + u[i + 1];
    }
}
'''
KERNELS = ("periodic", "guarded", "offset")
LABELS = {"cujit": "cujit.cuda", "numba": "numba-cuda", "cupy_raw": "CuPy RawKernel (C++)"}


def _module(api, work, tag):
    """the stencils with `api` as their global cuda, set before the file's
    code runs (a file, as users' kernels are)"""
    path = os.path.join(work, "negidx_stencils_%s.py" % tag)
    with open(path, "w") as f:
        f.write(STENCILS)
    spec = importlib.util.spec_from_file_location("negidx_stencils_%s" % tag, path)
    mod = importlib.util.module_from_spec(spec)
    mod.cuda = api
    spec.loader.exec_module(mod)
    return mod


def _impls(work, u, out, n):
    blocks = (n + 255) // 256
    impls = {}
    if cujit is not None:
        try:
            from cujit import cuda as cjcuda
            m = _module(cjcuda, work, "cujit")
            impls["cujit"] = {
                "periodic": lambda: m.periodic[blocks, 256](u, out),
                "guarded": lambda: m.guarded[blocks, 256](u, out),
                "offset": lambda: m.offset[blocks, 256](u, out, 1)}
        except Exception as e:  # noqa: BLE001
            err("negidx/cujit build", e)
    if cuda is not None:
        try:
            m2 = _module(cuda, work, "numba")
            nu, nout = cuda.as_cuda_array(u), cuda.as_cuda_array(out)
            impls["numba"] = {
                "periodic": lambda: m2.periodic[blocks, 256](nu, nout),
                "guarded": lambda: m2.guarded[blocks, 256](nu, nout),
                "offset": lambda: m2.offset[blocks, 256](nu, nout, 1)}
        except Exception as e:  # noqa: BLE001
            err("negidx/numba build", e)
    try:
        mod = cp.RawModule(code=RAW_CUDA)
        ks = {k: mod.get_function(k) for k in KERNELS}
        n64 = np.int64(n)
        impls["cupy_raw"] = {
            "periodic": lambda: ks["periodic"]((blocks,), (256,), (u, out, n64)),
            "guarded": lambda: ks["guarded"]((blocks,), (256,), (u, out, n64)),
            "offset": lambda: ks["offset"]((blocks,), (256,), (u, out, n64, np.int64(1)))}
    except Exception as e:      # noqa: BLE001
        err("negidx/cupy_raw build", e)
    return impls


def _check(out, ref, interior):
    got = out.get()
    if interior:
        return bool(np.allclose(got[1:-1], ref[1:-1], rtol=1e-5, atol=1e-5))
    return bool(np.allclose(got, ref, rtol=1e-5, atol=1e-5))


def section_negidx(args):
    n = args.n
    log(f"\n== 14. negative indices counted from the end (cuda.jit): 1-d float32 stencils, "
        f"n = {n}, 8 bytes per element ==")
    if cp is None:
        raise RuntimeError("CuPy is needed for section 14 (arrays and events)")
    res = RESULTS.setdefault("negidx", {"n": n})
    rng = np.random.default_rng(14)
    hu = rng.standard_normal(n).astype(np.float32)
    ref = (np.roll(hu, 1) - 2 * hu + np.roll(hu, -1)).astype(np.float32)
    u = cp.asarray(hu)
    out = cp.empty(n, dtype=cp.float32)
    work = tempfile.mkdtemp(prefix="cujit_negidx_")
    impls = _impls(work, u, out, n)
    times = {lib: {k: [] for k in KERNELS} for lib in impls}
    ok = {lib: {} for lib in impls}
    for lib, fns in impls.items():
        for k in KERNELS:
            try:
                out.fill(np.nan)
                fns[k]()
                cp.cuda.Device().synchronize()
                ok[lib][k] = _check(out, ref, k != "periodic")
            except Exception as e:  # noqa: BLE001
                err(f"negidx/{lib}/{k}", e)
                ok[lib][k] = None
    rounds = 3 if args.bw_iters < 20 else 5
    for _ in range(rounds):
        for k in KERNELS:
            for lib, fns in impls.items():
                if ok[lib].get(k) is None:
                    continue
                try:
                    med, _, _ = gpu_time_ms(fns[k], args.bw_warm, args.bw_iters)
                    times[lib][k].append(med)
                except Exception as e:  # noqa: BLE001
                    err(f"negidx/{lib}/{k} timing", e)
    for k in KERNELS:
        for lib in impls:
            ms = median(times[lib][k])
            if ms is None:
                continue
            gbs = 8 * n / (ms * 1e-3) / 1e9
            res.setdefault(lib, {})[k] = {"ms": ms, "gbs": gbs, "rounds_ms": times[lib][k],
                                         "correct": ok[lib][k]}
            log(f"  {k:<9} {LABELS[lib]:<22} {ms:8.4f} ms  {gbs:7.1f} GB/s"
                f"{'' if ok[lib][k] else '   WRONG RESULT'}")
            if not ok[lib][k]:
                RESULTS["notes"].append(f"negidx: {lib} {k} result is NOT correct")
    cj = res.get("cujit", {})
    if "guarded" in cj and "offset" in cj:
        extra = cj["offset"]["ms"] / cj["guarded"]["ms"] * 100 - 100
        log(f"  cujit: one wrap kept (offset) costs {fmt(extra, 1)} % beside the guarded "
            "stencil, whose indices need none")
    u = out = None
    try:
        cp.get_default_memory_pool().free_all_blocks()
    except Exception:           # noqa: BLE001
        pass
