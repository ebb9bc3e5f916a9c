"""Stdlib operations beyond `make bench`'s list, as a share of device-copy
bandwidth (fewest bytes: each input read once, each output written once),
beside CuPy in the same run.  Run on the GPU machine:
    PYTHONPATH=. python3 bench/stdlib_more.py"""
import numpy as np
import cupy as cp

import cujit

from cupy_timing import copy_bandwidth, gpu_ms

N = 1 << 28
SIDE = 1 << 14


copy_bw = copy_bandwidth(N)
print(f"copy {copy_bw:.1f} GB/s")

xc = cp.random.rand(N, dtype=cp.float32)
xd = cujit.to_device(cp.asnumpy(xc))
mc = cp.random.rand(SIDE, SIDE, dtype=cp.float32)
md = cujit.to_device(cp.asnumpy(mc))
rows = []


def row(label, nbytes, f_cj, f_cp, check):
    try:
        got = f_cj()
        ref = f_cp()
        ok = check(got, ref)
        t1 = gpu_ms(f_cj)
        t2 = gpu_ms(f_cp)
        p1 = 100 * nbytes / t1 / 1e6 / copy_bw
        p2 = 100 * nbytes / t2 / 1e6 / copy_bw
        print(f"{label:34s} cujit {t1:8.4f} ms {p1:6.1f} %   CuPy {t2:8.4f} ms {p2:6.1f} %"
              f"{'' if ok else '   WRONG'}")
    except Exception as e:      # noqa: BLE001
        print(f"{label:34s} failed: {type(e).__name__}: {e}")


def same_index(g, r):
    return int(cujit.asnumpy(g)) == int(r)


def close(g, r, rtol=1e-3):
    g = cp.asarray(cujit.asnumpy(g)) if not isinstance(g, cp.ndarray) else g
    return bool(cp.allclose(g, r, rtol=rtol, atol=1e-3))


row("argmax(x), 2^28 f32", 4 * N, lambda: cujit.argmax(xd), lambda: cp.argmax(xc), same_index)
row("argmin(x), 2^28 f32", 4 * N, lambda: cujit.argmin(xd), lambda: cp.argmin(xc), same_index)
row("argmax(m, axis=1), 16384^2", 4 * SIDE * SIDE, lambda: cujit.argmax(md, axis=1),
    lambda: cp.argmax(mc, axis=1), lambda g, r: bool((cp.asarray(cujit.asnumpy(g)) == r).all()))
small = cujit.to_device(cp.asnumpy(xc[: 1 << 24]))
row("cumsum(x), 2^24 f32 (f32 acc)", 8 * (1 << 24), lambda: cujit.cumsum(small),
    lambda: cp.cumsum(xc[: 1 << 24]), lambda g, r: close(g, r, 1e-2))
row("cumsum(m, axis=1), 16384^2", 8 * SIDE * SIDE, lambda: cujit.cumsum(md, axis=1),
    lambda: cp.cumsum(mc, axis=1), lambda g, r: close(g, r, 1e-3))
row("m.T + m (transposed operand)", 12 * SIDE * SIDE, lambda: md.T + md,
    lambda: mc.T + mc, lambda g, r: close(g, r))
row("x.copy()", 8 * N, lambda: xd.copy(), lambda: xc.copy(), lambda g, r: close(g, r))
row("m[:, ::2].copy() (strided)", 4 * SIDE * SIDE, lambda: md[:, ::2].copy(),
    lambda: mc[:, ::2].copy(), lambda g, r: close(g, r))
row("x.astype(float64)", 12 * N, lambda: xd.astype(np.float64),
    lambda: xc.astype(cp.float64), lambda g, r: close(g, r))
row("max(x)", 4 * N, lambda: cujit.max(xd), lambda: cp.max(xc), lambda g, r: close(g, r))
row("mean(m, axis=0)", 4 * SIDE * SIDE, lambda: cujit.mean(md, axis=0),
    lambda: cp.mean(mc, axis=0), lambda g, r: close(g, r))
