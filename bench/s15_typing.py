"""Section 15: what Numba's typing costs a cuda.jit kernel, beside numba-cuda.

Each case is one Numba-spelled source, compiled three ways: by numba-cuda
(`from numba import cuda`), by cujit.cuda (Numba's typing: a Python float is
float64, integer arithmetic is 64-bit, as numba-cuda computes) and, for
contrast, by cujit's jit.rawkernel over the same source (NumPy 2's typing with
weak Python scalars: float32 stays float32).  Every result is checked against
NumPy first.  GPU time per launch from CUDA events around each launch; the
three take turns in every round (the order rotating), and the figure is the
median over rounds of each round's median.

  a. float32 data through a polynomial and a sigmoid written with float
     literals (`0.5 * x`, `math.exp(-y)`): compute-bound; float64 under
     Numba's typing.
  b. RGB to gray on raw uint8 pixels, `(r + g + b) // 3`: memory-bound; the
     sum is int64 under Numba's typing (uint8 under NumPy's would wrap, so
     jit.rawkernel's result differs and is shown as such).
  c. row sums of float32 data into `s = 0.0`: a float64 accumulator under
     Numba's typing, float32 under NumPy's.
"""
import math

import numpy as np

from benchlib import RESULTS, cp, cuda, cujit, err, gpu_time_ms, log

POLY = '''
def poly(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        y = 0.5 * v * v * v - 1.25 * v * v + 0.75 * v + 0.125
        for _ in range(16):
            y = 0.999 * y + 0.001 * v
        out[i] = 1.0 / (1.0 + math.exp(-y))
'''

GRAY = '''
def gray(img, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = (img[i, 0] + img[i, 1] + img[i, 2]) // 3
'''

ROWSUM = '''
def rowsum(a, out):
    i = cuda.grid(1)
    if i < out.size:
        s = 0.0
        for j in range(a.shape[1]):
            s += a[i, j]
        out[i] = s
'''


def _function(src, name, api):
    ns = {"cuda": api, "math": math, "np": np}
    exec(compile(src, "<bench s15 %s>" % name, "exec"), ns)
    return ns[name]


def _cases(args):
    n = 1 << 24 if not args.quick else 1 << 20
    rows, cols = (1 << 14, 1 << 10) if not args.quick else (1 << 10, 1 << 8)
    rng = np.random.default_rng(15)
    x = rng.uniform(-2, 2, n).astype(np.float32)
    img = rng.integers(0, 256, (n, 3), dtype=np.uint8)
    a = (rng.standard_normal((rows, cols)) + 1).astype(np.float32)
    x64 = x.astype(np.float64)
    y = 0.5 * x64 ** 3 - 1.25 * x64 ** 2 + 0.75 * x64 + 0.125
    for _ in range(16):
        y = 0.999 * y + 0.001 * x64
    return [
        ("a", "float32 polynomial + sigmoid, float literals", POLY, "poly",
         (x,), np.float32, n, 1.0 / (1.0 + np.exp(-y)), 1e-5),
        ("b", "uint8 RGB -> gray, (r + g + b) // 3", GRAY, "gray",
         (img,), np.uint8, n, (img.astype(np.int64).sum(axis=1) // 3), 0),
        ("c", "float32 row sums into s = 0.0", ROWSUM, "rowsum",
         (a,), np.float64, rows, a.astype(np.float64).sum(axis=1), 1e-12),
    ]


def _impls(src, name):
    out = []
    if cujit is not None:
        from cujit import cuda as cjcuda
        out.append(("cujit.cuda", cjcuda.jit(_function(src, name, cjcuda))))
        out.append(("jit.rawkernel", cujit.jit.rawkernel()(_function(src, name, cjcuda))))
    if cuda is not None:
        out.append(("numba-cuda", cuda.jit(_function(src, name, cuda))))
    return out


def _launcher(label, k, dev_in, dev_out, n):
    blocks = (n + 255) // 256
    if label == "numba-cuda":
        ins = [cuda.as_cuda_array(d) for d in dev_in]
        o = cuda.as_cuda_array(dev_out)
        return lambda: k[blocks, 256](*ins, o)
    return lambda: k[blocks, 256](*dev_in, dev_out)


def _check(dev_out, want, rtol):
    got = cp.asnumpy(dev_out).astype(np.float64)
    if rtol == 0:
        return bool(np.array_equal(got, want))
    return bool(np.allclose(got, want, rtol=rtol, atol=rtol))


def _case(args, res, case):
    key, title, src, name, inputs, out_dt, n, want, rtol = case
    dev_in = [cp.asarray(v) for v in inputs]
    dev_out = cp.empty(n, out_dt)
    runs = []
    for label, k in _impls(src, name):
        try:
            fn = _launcher(label, k, dev_in, dev_out, n)
            dev_out.fill(0)
            fn()
            cp.cuda.Device().synchronize()
            runs.append((label, fn, _check(dev_out, want, rtol)))
        except Exception as e:  # noqa: BLE001
            err(f"typing/{key}/{label}", e)
    rounds = 5 if not args.quick else 2
    per = {label: [] for label, _, _ in runs}
    for r in range(rounds):
        order = runs[r % max(len(runs), 1):] + runs[:r % max(len(runs), 1)]
        for label, fn, _ in order:
            per[label].append(gpu_time_ms(fn, 2, 10)[0])
    log(f"  {key}. {title} (n = {n})")
    out = res.setdefault(key, {})
    for label, _, ok in runs:
        ms = float(np.median(per[label]))
        out[label] = {"ms": ms, "rounds_ms": per[label], "matches_numba_typing": ok}
        log(f"     {label:<16} {ms:9.4f} ms   "
            f"{'same result as Numba typing' if ok else 'differs from Numba typing'}")


def section_typing(args):
    log("\n== 15. Numba's typing in cuda.jit kernels: cost beside numba-cuda (GPU ms per "
        "launch, medians of rounds taking turns) ==")
    if cp is None:
        raise RuntimeError("CuPy is needed for section 15 (arrays and events)")
    res = RESULTS.setdefault("typing", {})
    for case in _cases(args):
        try:
            _case(args, res, case)
        except Exception as e:  # noqa: BLE001
            err(f"typing/{case[0]}", e)
    cp.get_default_memory_pool().free_all_blocks()
