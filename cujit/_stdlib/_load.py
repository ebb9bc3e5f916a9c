"""Loading the stdlib's kernels and sizing their launches: the kernel-language
modules in kernels/ (loaded by path on first use, one module per file),
their @vectorize kernels by name, copies specialised per type, the kernels
of one operation compiled together on threads, the device's
multiprocessor count and grid sizes."""
import builtins as _b
import importlib.util
import os
import sys
import threading

import numpy as np

from cujit import _cujit as _C


_STDLIB_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels")


# ---- the kernel modules (kernels/*.py, loaded by path on first use) ----

_modules = {}


def _kmod(name):
    m = _modules.get(name)
    if m is None:
        path = os.path.join(_STDLIB_DIR, name + ".py")
        if not os.path.isfile(path):
            raise ImportError("cujit's bundled kernels are missing: %s" % path)
        spec = importlib.util.spec_from_file_location("cujit_stdlib_" + name, path)
        m = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = m
        try:
            spec.loader.exec_module(m)
        except BaseException:
            sys.modules.pop(spec.name, None)
            raise
        _modules[name] = m
    return m


def _ek(name):
    """An elementwise @vectorize kernel by name."""
    return _kmod("elementwise").kernels[name]


_specialized = {}


def _spec(module, func, **names):
    """A kernel of `module` specialised for compile-time names (one per type)."""
    key = (module, func) + tuple(sorted((k, np.dtype(v).str) for k, v in names.items()))
    k = _specialized.get(key)
    if k is None:
        m = _kmod(module)
        k = m.specialize(getattr(m, func), **{n: np.dtype(v).type for n, v in names.items()})
        _specialized[key] = k
    return k


# ---- the kernels of one operation compiled together ----

_together_done = set()


def _arg_shape(a):
    """What of an argument decides its kernel's specialisation (near enough:
    a kernel missing at its launch is compiled there)."""
    return (type(a), getattr(a, "dtype", None), getattr(a, "ndim", None))


def _compile_quietly(k, args, ctx=None):
    """k compiled and loaded for args, in the context ctx (the caller's, from
    a helper thread, which would otherwise get device 0's primary context)."""
    try:
        if ctx is not None:
            _C._set_context(ctx)
        k.compile(*args)
    except Exception:       # noqa: BLE001 - its launch compiles it again and raises
        pass


def _compile_together(*calls):
    """Compiles the kernels that one operation launches one after another,
    each given as (kernel, its launch's arguments), at the operation's first
    use with these types: the others on threads while this thread compiles
    the first, so that NVRTC (which lets go of the GIL) works on them in
    parallel rather than at each launch in turn (cumsum's three kernels,
    argmax's two).  With their binaries on disk each is a cache read.
    CUJIT_PARALLEL_COMPILE=0 leaves each to its launch."""
    key = tuple((id(k),) + tuple(_arg_shape(a) for a in args) for k, args in calls)
    if key in _together_done:
        return
    _together_done.add(key)
    if os.environ.get("CUJIT_PARALLEL_COMPILE", "1").lower() in ("0", "false", "no", "off"):
        return
    ctx = _C._current_context()
    threads = [threading.Thread(target=_compile_quietly, args=c + (ctx,), daemon=True)
               for c in calls[1:]]
    for t in threads:
        t.start()
    try:
        _compile_quietly(*calls[0])
    finally:
        for t in threads:
            t.join()


_sms = {}


def _sm_count():
    """The current device's multiprocessor count (cached per device)."""
    dev = _C.get_device()
    n = _sms.get(dev.id)
    if n is None:
        n = _sms[dev.id] = dev.multiprocessor_count
    return n


def _grid(n, block=256, cap=1 << 16):
    return _b.max(1, _b.min((n + block - 1) // block, cap))


def _use_rows(rows, n):
    """One thread per row (sequential) rather than blocks per row."""
    return n <= 16 or (rows >= 16384 and n <= 1024)
