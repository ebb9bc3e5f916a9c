"""cujit.cuda's names for kernels: Numba's names, each an object tagged
``__cujit_builtin__`` with cujit's builtin (the table ``SPELLINGS``) that
frontend/names.c reads as it reads jit's; the namespaces (``cuda.shared``,
``cuda.atomic``, ``cuda.fp16``, ``cuda.libdevice`` ...), ``threadIdx`` and
friends, ``warpsize``, ``literal_unroll``; ``UNSUPPORTED``, the names cujit
has no version of.  ``_install`` makes them attributes of this module;
cujit.cuda re-exports them (``__all__``)."""

import sys

from cujit import jit as _jit


# Numba's name in kernels -> cujit's builtin (the __cujit_builtin__ tag)
SPELLINGS = {
    "grid": "grid", "gridsize": "gridsize",
    "syncthreads": "syncthreads", "syncthreads_count": "syncthreads_count",
    "syncthreads_and": "syncthreads_and", "syncthreads_or": "syncthreads_or",
    "syncwarp": "syncwarp", "threadfence": "threadfence",
    "threadfence_block": "threadfence_block", "threadfence_system": "threadfence_system",
    "shfl_sync": "shfl_sync", "shfl_up_sync": "shfl_up_sync",
    "shfl_down_sync": "shfl_down_sync", "shfl_xor_sync": "shfl_xor_sync",
    "all_sync": "all_sync", "any_sync": "any_sync", "eq_sync": "eq_sync",
    "ballot_sync": "ballot_sync", "activemask": "activemask", "lanemask_lt": "lanemask_lt",
    "popc": "popc", "clz": "clz", "ffs": "ffs", "brev": "brev",
    "fma": "fma", "cbrt": "cbrt", "selp": "selp",
    # Numba's own (cupyx.jit has none of them)
    "ldca": "numba.ldca", "ldcg": "numba.ldcg", "ldcs": "numba.ldcs", "ldlu": "numba.ldlu",
    "ldcv": "numba.ldcv", "stcg": "numba.stcg", "stcs": "numba.stcs", "stwb": "numba.stwb",
    "stwt": "numba.stwt", "nanosleep": "numba.nanosleep",
    "carray": "numba.carray", "farray": "numba.farray",    # (ptr, shape, dtype=None): Numba only
    "laneid": "numba.laneid",                   # a value: cuda.laneid, not laneid()
    "shared.array": "numba.shared.array",       # (shape, dtype); shape=0: dynamic
    "local.array": "numba.local.array",
    "const.array_like": "numba.const.array_like",   # a global NumPy array, read at compile time
    "atomic.add": "atomic_add", "atomic.sub": "atomic_sub",
    "atomic.max": "atomic_max", "atomic.min": "atomic_min",
    "atomic.exch": "atomic_exch", "atomic.inc": "atomic_inc", "atomic.dec": "atomic_dec",
    "atomic.and_": "atomic_and", "atomic.or_": "atomic_or", "atomic.xor": "atomic_xor",
    "atomic.cas": "atomic_cas",
    "atomic.compare_and_swap": "numba.compare_and_swap",   # on ary[0]
    "atomic.nanmax": "atomic_nanmax", "atomic.nanmin": "atomic_nanmin",
    "match_any_sync": "match_any_sync", "match_all_sync": "match_all_sync",
    "cg.this_grid": "cg.this_grid",
}

# Numba names cujit has no version of yet, and what to do instead
UNSUPPORTED = {
}


class _Builtin:
    """A Numba name that means something inside kernels only."""

    def __init__(self, name, tag):
        self.__cujit_builtin__ = tag
        self.__name__ = name

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"cuda.{self.__name__}() can only be used inside a @cuda.jit "
                           "function")

    def __repr__(self):
        return f"<cujit builtin cuda.{self.__name__}>"


class _Unsupported:
    """A Numba name cujit has no version of: calling it, in a kernel (where it
    runs in Python while the kernel compiles) or outside, raises."""

    def __init__(self, name, why):
        self.__name__ = name
        self._why = why
        # what the compiler says where a kernel calls it
        self.__cujit_unsupported__ = f"cuda.{name} is not supported by cujit: {why}"

    def __call__(self, *args, **kwargs):
        raise NotImplementedError(f"cuda.{self.__name__} is not supported by cujit: "
                                  f"{self._why}")

    def __repr__(self):
        return f"<unsupported cuda.{self.__name__}>"


class _Namespace:
    """cuda.shared, cuda.local, cuda.const, cuda.atomic, cuda.cg: Python
    modules' stand-ins (the frontend reads them as namespaces)."""

    def __init__(self, name):
        self.__name__ = name
        # names no builtin: the frontend reads it as a namespace, and the front
        # key keys it by this tag (from numba.cuda import libdevice)
        self.__cujit_builtin__ = f"cuda.{name}"

    def __repr__(self):
        return f"<cujit namespace cuda.{self.__name__}>"


def _install():
    mod = sys.modules[__name__]
    for table, make in ((SPELLINGS, _Builtin), (UNSUPPORTED, _Unsupported)):
        for name, what in table.items():
            owner, _, attr = name.rpartition(".")
            target = mod
            if owner:
                target = getattr(mod, owner, None)
                if target is None:
                    target = _Namespace(owner)
                    setattr(mod, owner, target)
            setattr(target, attr, make(name, what))


_install()


def _install_intrinsics():
    """cuda.fp16 (half-precision intrinsics, cuda_fp16.h's names) and
    cuda.libdevice (every libdevice function, as __nv_<name>): the names come
    from the compiler's table (common/intrin.c), each tagged with its row's
    name ("fp16.hadd", "libdevice.sin")."""
    from cujit._cujit import _intrinsics
    mod = sys.modules[__name__]
    for name in _intrinsics():
        owner, _, attr = name.partition(".")
        if owner not in ("fp16", "libdevice"):
            continue
        target = getattr(mod, owner, None)
        if target is None:
            target = _Namespace(owner)
            setattr(mod, owner, target)
        setattr(target, attr, _Builtin(name, name))


_install_intrinsics()


threadIdx = _jit.threadIdx
blockIdx = _jit.blockIdx
blockDim = _jit.blockDim
gridDim = _jit.gridDim
warpsize = 32


# ---- numba.cuda.misc.special ----

def literal_unroll(container):
    """Numba's literal_unroll: in a kernel, `for x in literal_unroll(t)` over
    a global or closure tuple reads the loop body once per item, each typed
    on its own (arrays of different shapes and dtypes); in Python, t."""
    return container


literal_unroll.__cujit_builtin__ = "literal_unroll"     # known by name (the front key)


# what cujit.cuda takes from here: the tables, the names _install and
# _install_intrinsics made (each top-level name of a row), threadIdx ...
__all__ = sorted({k.partition(".")[0] for k in (*SPELLINGS, *UNSUPPORTED)} | {
    "fp16", "libdevice", "SPELLINGS", "UNSUPPORTED", "threadIdx", "blockIdx", "blockDim",
    "gridDim", "warpsize", "literal_unroll"})
