"""Timing helpers shared by the CuPy-based variant scripts in bench/
(saxpy_variants.py, red_variants.py, stdlib_more.py)."""
import cupy as cp
import numpy as np


def gpu_ms(fn, warm=3, iters=20):
    """Median milliseconds of fn() between two CUDA events, after warm calls."""
    s, e = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(warm):
        fn()
    ts = []
    for _ in range(iters):
        s.record()
        fn()
        e.record()
        e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(ts))


def copy_bandwidth(n):
    """GB/s of a device-to-device copy of 1.5 n float32 (bytes read + written)."""
    src = cp.random.rand(n * 3 // 2, dtype=cp.float32)
    dst = cp.empty_like(src)
    bw = 2 * src.nbytes / gpu_ms(lambda: cp.copyto(dst, src)) / 1e6
    del src, dst
    return bw
