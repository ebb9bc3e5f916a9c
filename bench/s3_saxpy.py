"""Section 3: saxpy bandwidth on the device beside a device-to-device copy."""
import math

import numpy as np

from benchlib import (RESULTS, SAXPY_CUDA, copy_reference, cp, cpjit, cuda, cujit, err, fmt,
                      gpu_time_ms, jit, log, saxpy_cujit, saxpy_cujit_bdt, saxpy_cupyx,
                      saxpy_numba)


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
    copy_gbs = copy_reference(x, out, args, "saxpy")
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
            kb = jit.rawkernel()(saxpy_cujit_bdt)
            impls.append(("cujit_bdt", "cujit blockIdx*blockDim+threadIdx, i < n",
                          lambda: kb[blocks, 256](a, x, y, out, n)))
        except Exception as e:  # noqa: BLE001
            err("saxpy/cujit_bdt decorate", e)
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
    x = y = out = ref = impls = None        # the arrays go back to the pool
    try:
        cp.get_default_memory_pool().free_all_blocks()
    except Exception:           # noqa: BLE001
        pass
