"""cujit: Python functions compiled to CUDA kernels by a JIT written in C.

    from cujit import jit

    @jit.rawkernel()
    def saxpy(a, x, y, out):
        i = jit.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i]

    saxpy[blocks, 256](a, x, y, out)
"""
import time as _time
_import_t0 = _time.perf_counter()   # CUJIT_LOG's first line says how long the import took

from cujit import _cujit            # noqa: E402
from cujit._cujit import *          # noqa: F401,F403  (Kernel, CompileError, runtime)
from cujit._cujit import CompileError, Kernel, __version__   # noqa: F401
from cujit._forms import guvectorize, reduce, vectorize   # noqa: F401
from cujit._fuse import fuse        # noqa: F401
from cujit import jit               # noqa: F401
from cujit import _stdlib_table


# The array stdlib (cujit/_stdlib/ over its kernels in cujit/_stdlib/kernels/):
# loaded on first use, so importing cujit stays fast.  DeviceArray's operators
# and methods load it themselves.  Its names come from its table of
# operations, which loads neither NumPy nor the stdlib.
_STDLIB_NAMES = frozenset(_stdlib_table.NAMES)


def _load_stdlib():
    from cujit import _stdlib       # noqa: F401  (registers with _set_array_ops)


# DeviceArray's operators and methods call this at their first use (the C
# runtime does not import Python packages above it)
_cujit._set_array_ops(_load_stdlib)


def _set_prebuilt():
    """The prebuilt store (the stdlib's binaries built at install time,
    cujit/_prebuild.py): read before NVRTC unless CUJIT_NO_PREBUILT is on;
    CUJIT_PREBUILT_DIR puts it elsewhere.  The package's directory is what
    the stdlib kernels' #line marks name (the store's keys write it
    "<cujit>")."""
    import os
    pkg = os.path.dirname(os.path.abspath(__file__))
    store = os.environ.get("CUJIT_PREBUILT_DIR") or os.path.join(pkg, "_prebuilt")
    off = os.environ.get("CUJIT_NO_PREBUILT", "0").lower() not in ("", "0", "false", "no", "off")
    building = bool(os.environ.get("CUJIT_PREBUILD_ARCH"))
    if off and not building:
        store = None
    elif not building and not os.path.isdir(store):
        store = None                # nothing to look up: no file is opened
    _cujit._set_prebuilt(store, pkg)


_set_prebuilt()


# Numba's top-level names that a kernel's module imports beside cuda (`from
# numba import cuda, float32, void`): cujit.cuda's, so that renaming `numba`
# to `cujit` in such an import line is the whole migration.  (`jit`,
# `vectorize` and `guvectorize` are cujit's own; the latter two take Numba's
# target='cuda'.)  Loaded on first use: importing cujit does not import it.
_NUMBA_NAMES = frozenset((
    "types", "from_dtype", "typeof", "literal_unroll", "config", "TypingError",
    "NumbaWarning", "NumbaPerformanceWarning", "NumbaInvalidConfigWarning",
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "intp",
    "uintp", "intc", "uintc", "ssize_t", "size_t", "boolean", "bool_", "float32",
    "float64", "complex64", "complex128", "byte", "uchar", "short", "ushort", "int_",
    "long_", "ulong", "longlong", "ulonglong", "double", "void", "none", "b1", "i1",
    "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f4", "f8", "c8", "c16", "float16", "f2"))


def __getattr__(name):
    if name in _STDLIB_NAMES:
        from cujit import _stdlib
        return getattr(_stdlib, name)
    if name in _NUMBA_NAMES:
        from cujit import cuda
        if hasattr(cuda, name):
            return getattr(cuda, name)
    raise AttributeError("module 'cujit' has no attribute %r" % name)


def __dir__():
    return sorted(set(globals()) | _STDLIB_NAMES | _NUMBA_NAMES)


def warmup(dtypes=None, ops=None, jobs=None, quiet=True, background=False):
    """Compiles the stdlib's common operations for these dtypes into the disk
    cache, on parallel threads, so that a later process's first use of each
    reads a binary instead of running NVRTC (`python -m cujit warmup -h`)."""
    from cujit import _warmup
    return _warmup.warmup(dtypes, ops, jobs, quiet, background)


def is_available():
    """True when a CUDA driver and at least one GPU can be used."""
    try:
        get_device()                # noqa: F405
        return True
    except Exception:
        return False


def show_config(file=None):
    """Prints cujit's configuration (versions, where libcuda and NVRTC were
    found or why not, the GPUs, the kernel cache, the environment variables
    in effect) to file (default stdout): the first thing to paste into a bug
    report.  `python -m cujit info` prints the same."""
    from cujit._config import show_config as show
    show(file)


_cujit._set_import_ms((_time.perf_counter() - _import_t0) * 1e3)
del _import_t0
