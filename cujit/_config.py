"""cujit.show_config() and `python -m cujit info`: what a bug report needs.

cujit's version and build, Python and NumPy, where the CUDA driver (libcuda)
and NVRTC were found and their versions, or why not, each GPU, the kernel
cache, and the environment variables that change what cujit does.  Nothing
here needs a GPU, a driver or NVRTC: what is missing is reported as such.
It creates no CUDA context (it reads device attributes only).
"""
import importlib.metadata
import os
import platform
import sys

# environment variables that change what cujit (or the libraries it loads) does
ENV_VARS = ("CUJIT_CACHE_DIR", "CUJIT_CACHE", "CUJIT_LOG", "CUJIT_DUMP", "CUJIT_FAST_COMPILE",
            "CUJIT_PRELOAD_NVRTC", "CUJIT_CUPY_FIELDS", "CUJIT_NVRTC_OPTIONS",
            "CUJIT_SYSTEM_CUDA", "CUJIT_NO_PREBUILT", "CUJIT_PREBUILT_DIR", "CUDA_HOME",
            "CUDA_PATH", "CUDA_VISIBLE_DEVICES",
            "CUDA_DEVICE_ORDER", "LD_LIBRARY_PATH", "LD_PRELOAD")

# distributions worth naming when installed (versions from their metadata,
# none of them imported)
PACKAGES = ("numpy", "cupy", "cupy-cuda12x", "cupy-cuda13x", "torch", "numba",
            "numba-cuda", "nvidia-cuda-nvrtc", "nvidia-cuda-nvrtc-cu12")


def _mapped(fragment):
    """The path of the first shared object mapped in this process whose
    file name starts with fragment (Linux), or None."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split(None, 5)[-1].strip()
                if os.path.basename(path).startswith(fragment):
                    return path
    except OSError:
        pass
    return None


def _version(dist):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _size(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return ("%d %s" % (n, unit)) if unit == "B" else ("%.1f %s" % (n, unit))
        n /= 1024.0


def _driver_version(path):
    """cuDriverGetVersion() of the libcuda cujit loaded, as "13.0 (13000)"."""
    import ctypes
    try:
        v = ctypes.c_int(0)
        if ctypes.CDLL(path).cuDriverGetVersion(ctypes.byref(v)) != 0:
            return "unknown"
    except (OSError, AttributeError) as e:
        return "unknown (%s)" % e
    return "%d.%d (%d)" % (v.value // 1000, v.value % 1000 // 10, v.value)


def _driver(C):
    """[(key, value)] of the CUDA driver and the GPUs."""
    try:
        n = C.device_count()
    except Exception as e:
        msg = str(e)
        prefix = "the CUDA driver is not available: "
        msg = msg[len(prefix):] if msg.startswith(prefix) else msg
        return [("CUDA driver", "not available: %s" % msg), ("GPUs", "none usable")]
    path = _mapped("libcuda.so")
    rows = [("CUDA driver", "%s, version %s" % (path or "libcuda.so.1",
                                               _driver_version(path or "libcuda.so.1")))]
    for i in range(n):
        try:
            d = C.Device(i)
            rows.append(("GPU %d" % i, "%s, %s, %s, %d SMs" % (
                d.name, d.arch, _size(d.total_memory), d.multiprocessor_count)))
        except Exception as e:
            rows.append(("GPU %d" % i, "cannot be read: %s" % e))
    return rows


def _nvrtc(C):
    """[(key, value)] of NVRTC: version and file, or why it is missing."""
    try:
        major, minor = C._nvrtc_version()
    except Exception as e:
        return [("NVRTC", "not available: %s" % e)]
    path = _mapped("libnvrtc.so")
    where = "a pip wheel" if path and "site-packages" in path else "a CUDA toolkit"
    return [("NVRTC", "%d.%d, %s (%s)" % (major, minor, path or "found by the loader", where))]


def _cache(C):
    try:
        c = C.cache_info()
    except Exception as e:
        return [("kernel cache", "cannot be read: %s" % e)]
    state = "" if c.get("enabled", True) else " (disabled: CUJIT_CACHE)"
    return [("kernel cache", "%s: %d entries, %s%s" % (c["dir"], c["entries"],
                                                     _size(c["bytes"]), state))]


def _prebuilt():
    """the prebuilt store (cujit/_prebuild.py): where, how many binaries, or why none"""
    from cujit._prebuild import default_store
    d = default_store()
    try:
        files = [f for f in os.listdir(d) if f.endswith(".cjc")]
    except OSError:
        files = None
    if os.environ.get("CUJIT_NO_PREBUILT", "0").lower() not in ("", "0", "false", "no", "off"):
        state = " (not read: CUJIT_NO_PREBUILT)"
    else:
        state = ""
    if not files:
        return [("prebuilt store", "none at %s (python -m cujit prebuild builds it)%s"
                 % (d, state))]
    size = sum(os.path.getsize(os.path.join(d, f)) for f in files)
    return [("prebuilt store", "%s: %d binaries, %s%s" % (d, len(files), _size(size), state))]


def config_rows():
    """The configuration as [(key, value)] rows, in show_config()'s order."""
    import cujit
    from cujit import _cujit as C
    rows = [("cujit", "%s, %s" % (cujit.__version__, os.path.dirname(cujit.__file__))),
            ("extension", "%s (%s)" % (os.path.basename(C.__file__), getattr(C, "_build", "?"))),
            ("Python", "%s %s, %s" % (platform.python_implementation(),
                                       platform.python_version(), sys.executable)),
            ("platform", platform.platform())]
    for dist in PACKAGES:
        v = _version(dist)
        if v or dist == "numpy":
            rows.append((dist, v or "not installed (the array stdlib needs NumPy 2)"))
    rows += _driver(C) + _nvrtc(C) + _cache(C) + _prebuilt()
    env = [(k, os.environ[k]) for k in ENV_VARS if k in os.environ]
    env += sorted((k, v) for k, v in os.environ.items()
                  if k.startswith("CUJIT_") and k not in ENV_VARS)
    rows += [("$" + k, v) for k, v in env] or [("environment", "no cujit or CUDA variables set")]
    return rows


def show_config(file=None):
    """Prints cujit's configuration: versions, the CUDA driver and NVRTC
    (where they were found, or why not), the GPUs, the kernel cache and the
    environment variables in effect.  Paste it into bug reports."""
    rows = config_rows()
    width = max(len(k) for k, _ in rows) + 2
    out = file or sys.stdout
    for k, v in rows:
        out.write("%-*s%s\n" % (width, k, v))
