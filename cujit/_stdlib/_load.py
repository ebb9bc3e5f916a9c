"""Loading the stdlib's kernels and sizing their launches: the kernel-language
modules in kernels/ (loaded by path on first use, one module per file),
their @vectorize kernels by name, copies specialised per type, the device's
multiprocessor count and grid sizes."""
import builtins as _b
import importlib.util
import os
import sys

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
