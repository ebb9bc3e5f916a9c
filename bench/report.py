"""The last lines bench.py prints: the summary table of every section's
figures against the goals, the ratios, the correctness and error lists
(summary), and the environment line printed first (environment)."""
import platform
import time

import numpy as np

from benchlib import RESULTS, T_START, cp, cujit, err, fmt, get, log


def met(value, limit, le=True):
    if value is None or limit is None:
        return "?"
    return "yes" if (value <= limit if le else value >= limit) else "NO"


def summary():
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
    if get("saxpy", "cujit_bdt") is not None:
        rows.append(["saxpy % copy, i = bIdx*bDim+tIdx", get("saxpy", "cujit_bdt", "pct_copy"),
                     get("saxpy", "cupy_raw", "pct_copy"), get("saxpy", "cupyx_jit", "pct_copy"),
                     get("saxpy", "numba", "pct_copy"), 100.0 if copy_ref else None, ">= 95.0",
                     met(get("saxpy", "cujit_bdt", "pct_copy"), 95.0, le=False)])

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
    if get("cg") is not None:
        rows.append(["grid.sync() us, device", get("cg", "cujit", "us_per_sync"), None,
                     get("cg", "cupyx_jit", "us_per_sync"), get("cg", "numba", "us_per_sync"),
                     None, "(info)", ""])
        rows.append(["first grid-sync kernel ms", get("cg", "cujit", "first_ms"), None,
                     get("cg", "cupyx_jit", "first_ms"), get("cg", "numba", "first_ms"), None,
                     "(info)", ""])

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
        "saxpy cujit i<n spelling / RawKernel (GB/s)": ratio(get("saxpy", "cujit_bdt", "gbs"),
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
    out += first_tables()
    out.append(f"device: {RESULTS.get('env', {}).get('device', '?')}   "
               f"total {time.perf_counter() - T_START:.1f} s")
    log("\n".join(out))


def ratio_of(a, b):
    """a / b as text, "n/a" when either is missing"""
    return f"{a / b:.2f}x" if a is not None and b else "n/a"


def table(head, widths, rows):
    """lines of a table: the first column left-aligned, the others right"""
    def line(cells):
        return " | ".join(c.ljust(widths[0]) if i == 0 else c.rjust(widths[i])
                          for i, c in enumerate(cells))
    return [line(head), "-" * len(line(head))] + [
        line([r[0]] + [c if isinstance(c, str) else fmt(c, 1) for c in r[1:]]) for r in rows]


def first_tables():
    """The first-call tables (sections 2, 5, 6): ms from the decorator or the
    operation to its synchronized result, in a fresh process, medians."""
    out = []
    if get("first") is not None or get("first_vec") is not None:
        def f(sec, lib, which):
            return get(sec, lib, which + "_ms")
        rows = []
        for label, which in (("empty cache", "empty"), ("warm disk cache", "warm")):
            hand = f("first", "cupy_raw", which)
            rows.append([f"saxpy rawkernel, {label}", f("first", "cujit", which), hand,
                         f("first", "cupyx_jit", which), "-", f("first", "numba", which),
                         ratio_of(f("first", "cujit", which), hand)])
        for label, which in (("@vectorize 4-line function, empty cache", "empty"),
                             ("@vectorize, warm disk cache", "warm")):
            hand = f("first_vec", "cupy_ewk", which)
            rows.append([label, f("first_vec", "cujit", which), hand, "-",
                         f("first_vec", "cupy_vectorize", which), f("first_vec", "numba", which),
                         ratio_of(f("first_vec", "cujit", which), hand)])
        out += ["", "FIRST CALLS (ms, fresh process per run, libraries in turn, medians; "
                "hand-written CUDA: CuPy RawKernel for saxpy, cupy.ElementwiseKernel for "
                "vectorize; numba's vectorize has no disk cache)"]
        out += table(["measurement", "cujit", "hand CUDA", "cupyx.jit", "cupy.vectorize",
                      "numba-cuda", "cujit/hand"], [40, 9, 9, 9, 14, 10, 10], rows)
    fs = get("first_stdlib")
    if fs:
        rows = []
        for key, libs in fs.items():
            cj, pb, cp_ = (get("first_stdlib", key, lib, "empty_ms")
                           for lib in ("cujit", "cujit prebuilt", "cupy"))
            bad = [lib for lib, v in libs.items() if not v.get("correct", True)]
            rows.append([key, cj, pb, cp_, ratio_of(cj, cp_), ratio_of(pb, cp_),
                         "WRONG " + ",".join(bad) if bad else ""])
        out += ["", "FIRST USE OF A STDLIB OPERATION (ms, fresh process per run, every cache "
                "empty, medians; prebuilt: the store of `python -m cujit prebuild`)"]
        out += table(["operation", "cujit", "prebuilt", "CuPy", "cujit/CuPy", "prebuilt/CuPy",
                      ""], [24, 9, 9, 9, 10, 13, 12], rows)
        pb = get("first_stdlib_prebuild", "prebuild")
        if pb:
            out.append("install-time step (python -m cujit prebuild, %s CPUs): %.1f s, %d "
                       "kernels, %.1f MiB" % (pb["cpus"], pb["seconds"], pb["files"],
                                              pb["bytes"] / 2**20))
    return out


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
