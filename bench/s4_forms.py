"""Section 4: elementwise and reduction forms (vectorize, sum of squares,
sum, sum along an axis, cujit's stdlib operators) as a share of the device
copy bandwidth, each result checked once before it is timed."""
import math

import numpy as np

from benchlib import (RESULTS, copy_reference, cp, cpjit, cuda, cujit, err, fmt, get,
                      gpu_time_ms, log)


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
        gbs = copy_reference(x, o, args, "forms")
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

    x = y = o = dx = dy = nx = ny = no = None    # the arrays go back to the pools
    try:
        cp.get_default_memory_pool().free_all_blocks()
        if cujit is not None:
            cujit.release_memory()
    except Exception:           # noqa: BLE001
        pass
