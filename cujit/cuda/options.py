"""cuda.jit's and cuda.compile's options: the ones Numba has that cujit
accepts (``_ACCEPTED``), launch_bounds=, shared_memory_carveout= and link=
checked, the options cujit.Kernel takes (``_kernel_options``), NVRTC's
options (``_build_options``), the target architecture (``_arch``), a device
function's extern "C" name and the outputs (PTX, cubin, LTO-IR)."""

import cujit


# Numba's options accepted for source compatibility; what cujit does with them
_ACCEPTED = {
    "inline": "device functions are always inlined (__forceinline__)",
    "forceinline": "device functions are always inlined (__forceinline__)",
    "lineinfo": "NVRTC's -lineinfo: the PTX's .loc lines name the Python file and line",
    "cache": "cujit always caches compiled kernels on disk (CUJIT_CACHE)",
    "opt": "opt=False is NVVM's -opt=0 (-Xnvvm=-opt=0) and --fmad=false: no fma "
           "contraction, locals in local memory",
    "_dbg_optnone": "accepted; NVRTC optimises as opt= says",
    "fastmath": "NVRTC's --use_fast_math: approximate division, square root and "
                "transcendentals, denormals flushed to zero (a device function follows the "
                "kernel that calls it)",
    "max_registers": "NVRTC's --maxrregcount: the most registers a thread may use",
    "lto": "a kernel and its device functions are one CUDA C++ program, which NVRTC "
           "optimises whole; compiled foreign code (link=) is linked by the driver, LTO-IR "
           "by nvJitLink",
    "extensions": "objects with prepare_args(ty, val, stream=, retr=), applied at launch",
}


# shared_memory_carveout= spellings -> percent (-1: the driver's default)
_CARVEOUTS = {"default": -1, "maxl1": 0, "maxshared": 100}


def _launch_bounds(lb):
    """launch_bounds= (an int or a tuple of up to three) as a tuple."""
    if lb is None:
        return None
    bounds = (lb,) if isinstance(lb, int) else tuple(lb)
    if not 1 <= len(bounds) <= 3:
        raise ValueError(f"Got {len(bounds)} launch bounds: {lb}. cujit takes one to three: "
                         "max threads per block, min blocks per multiprocessor, max "
                         "cluster size")
    for b in bounds:
        if not isinstance(b, int) or b < 1:
            raise ValueError(f"launch bounds {lb}: each must be a positive int")
    return bounds


def _carveout(c):
    """shared_memory_carveout=: percent, -1 for the driver's default."""
    if c is None:
        return None
    if isinstance(c, str):
        if c.lower() not in _CARVEOUTS:
            raise ValueError(f"Invalid carveout value: {c!r}: give an int from -1 to 100 or "
                             "one of 'MaxL1', 'MaxShared', 'default'")
        return _CARVEOUTS[c.lower()]
    if isinstance(c, int) and not isinstance(c, bool):
        if not -1 <= c <= 100:
            raise ValueError(f"shared_memory_carveout={c}: it must be between -1 and 100 "
                             "(percent of the unified L1/shared memory kept for shared "
                             "memory; -1 the driver's default)")
        return c
    raise TypeError("shared_memory_carveout must be an int or a str, not "
                    f"{type(c).__name__}")


def _check_link(link, device, cache=False):
    """link= of a kernel: its items checked (paths or code objects, as
    declare_device takes), as a tuple; () for none.  With cache=True,
    Numba's RuntimeError; with device=True, Numba's ValueError."""
    if not link:
        return ()
    if cache and not device:
        raise RuntimeError("cuda.jit(cache=True, link=...): Cannot pickle CUDACodeLibrary with "
                           "linking files (as in Numba, a kernel linked with foreign code is "
                           "not cached): drop cache=True, or link= (declare the function with "
                           "cuda.declare_device(name, sig, link=[...]) instead)")
    if device:
        raise ValueError("link keyword invalid for device function (cuda.jit(link=...) "
                         "applies to kernels; declare a foreign function with "
                         "cuda.declare_device(name, sig, link=[...]))")
    from cujit import _extern
    return _extern.link_items(link, "cuda.jit(link=...)")


def _kernel_options(options):
    """The options cujit.Kernel itself takes."""
    kw = {"boundscheck": bool(options.get("boundscheck")),
          "fastmath": bool(options.get("fastmath")),
          "lineinfo": bool(options.get("lineinfo")),
          "opt": options.get("opt") is not False}
    if options.get("max_registers") is not None:
        kw["max_registers"] = options["max_registers"]
    if options.get("debug"):
        kw["debug"] = True      # exception checks: ZeroDivisionError, IndexError
    if options.get("launch_bounds"):
        kw["launch_bounds"] = options["launch_bounds"]
    if options.get("shared_memory_carveout") is not None:
        kw["carveout"] = options["shared_memory_carveout"]
    return kw


# ---- cuda.compile's outputs, NVRTC's options ----

_OUTPUTS = ("ptx", "cubin", "ltoir")
_OUT_PTX, _OUT_CUBIN, _OUT_LTOIR = range(3)        # runtime/rt.h's RT_OUT_*


def _build_options(debug=None, lineinfo=False, fastmath=False, opt=None, **_):
    """The NVRTC options Numba's compile options map to: -G (debug), -lineinfo
    (line info without debug info), --use_fast_math, and for opt=False NVVM's
    -opt=0 (Numba's: locals kept in the local depot) with --fmad=false (no
    fma contraction, by NVVM or by ptxas)"""
    options = []
    if debug:
        options.append("-G")
    elif lineinfo:
        options.append("-lineinfo")      # -G has the lines already (Numba: debug wins)
    if fastmath:
        options.append("--use_fast_math")
    if opt is False and not debug:
        options += ["-Xnvvm=-opt=0", "--fmad=false"]
    return options


def _arch(cc):
    """cc=(9, 0) -> "sm_90", (9, 0, "a") -> "sm_90a"; None: the current
    device's, else sm_90"""
    if cc is None:
        try:
            major, minor = cujit.get_device().compute_capability
        except Exception:       # no GPU: cujit's default target
            return "sm_90"
        return f"sm_{major}{minor}"
    if not isinstance(cc, tuple) or len(cc) not in (2, 3) or not all(
            isinstance(v, int) for v in cc[:2]):
        raise TypeError(f"cc={cc!r}: give the compute capability as a tuple (major, minor) "
                        "or (major, minor, 'a' / 'f'), such as (9, 0)")
    return f"sm_{cc[0]}{cc[1]}{cc[2] if len(cc) == 3 else ''}"


def _entry_name(pyfunc, abi_info):
    """The extern "C" name of a device function: abi_info['abi_name'], else
    the Python name made a C identifier (a lambda's <lambda> -> lambda)"""
    name = (abi_info or {}).get("abi_name") or getattr(pyfunc, "__name__", "f")
    name = "".join(ch if ch.isalnum() or ch == "_" else "" for ch in name) or "f"
    return name if not name[0].isdigit() else "_" + name
