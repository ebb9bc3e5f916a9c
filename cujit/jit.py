"""cujit.jit: the kernel language's names.

``@jit.rawkernel()`` compiles a Python function to a CUDA kernel.  The other
names here exist only inside kernels: cujit's compiler recognises them (by
their ``__cujit_builtin__`` tag) and calling them from Python raises.
"""
from cujit._cujit import Kernel
from cujit._forms import reduce, vectorize   # noqa: F401
from cujit import cub                       # noqa: F401  (cupyx.jit.cub's spelling)
from cujit import thrust                    # noqa: F401  (cupyx.jit.thrust: unsupported)

__all__ = ["rawkernel", "threadIdx", "blockIdx", "blockDim", "gridDim", "grid",
           "gridsize", "laneid", "warpsize", "syncthreads", "syncwarp", "threadfence",
           "threadfence_block", "threadfence_system", "shared_memory", "local_memory",
           "atomic_add", "atomic_sub", "atomic_max", "atomic_min", "atomic_exch",
           "atomic_and", "atomic_or", "atomic_xor", "atomic_inc", "atomic_dec",
           "atomic_cas", "atomic_nanmax", "atomic_nanmin", "shfl_sync", "shfl_up_sync",
           "shfl_down_sync", "shfl_xor_sync",
           "all_sync", "any_sync", "ballot_sync", "activemask", "popc", "clz", "ffs",
           "brev", "syncthreads_count", "syncthreads_and", "syncthreads_or", "eq_sync",
           "lanemask_lt", "selp", "fma", "cbrt", "block_reduce", "warp_reduce",
           "block_scan", "warp_scan", "cub", "match_any_sync", "match_all_sync", "cg",
           "thrust"]


def rawkernel(device=False, boundscheck=False, fast_compile=False, *, mode="python"):
    """Decorator: ``@jit.rawkernel()`` makes a kernel, ``device=True`` a device
    function callable from kernels, ``boundscheck=True`` checks every index.
    ``fast_compile=True`` asks NVRTC for ``--Ofast-compile=min``: a third to
    two thirds less compile time, for kernels whose run time does not matter
    (a last pass over a few partial results).
    ``mode="python"`` is cupyx.jit's default and cujit's one mode: Python's
    semantics (floor division, modulo's sign, NumPy's promotion)."""
    if callable(device) and not isinstance(device, bool):
        return Kernel(device)       # @jit.rawkernel without parentheses
    if mode != "python":
        raise ValueError(f"jit.rawkernel(mode={mode!r}): cujit compiles with Python's "
                         "semantics only (mode='python', cupyx.jit's default)")

    def wrap(func):
        return Kernel(func, device=device, boundscheck=boundscheck, fast_compile=fast_compile)
    return wrap


class _Builtin:
    """A name that means something inside kernels only."""

    def __init__(self, name):
        self.__cujit_builtin__ = name
        self.__name__ = name

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"jit.{self.__name__}() can only be used inside a "
                           "@jit.rawkernel() function")

    def __repr__(self):
        return f"<cujit builtin jit.{self.__name__}>"


class _Dim3:
    def __init__(self, name):
        self.__cujit_builtin__ = name
        self.x = _Builtin(name + ".x")
        self.y = _Builtin(name + ".y")
        self.z = _Builtin(name + ".z")

    def __repr__(self):
        return f"<cujit builtin jit.{self.__cujit_builtin__}>"


threadIdx = _Dim3("threadIdx")
blockIdx = _Dim3("blockIdx")
blockDim = _Dim3("blockDim")
gridDim = _Dim3("gridDim")
warpsize = 32
# jit.range(start, stop, step, unroll=None): range with a #pragma unroll; kept
# out of __all__ so that `from cujit.jit import *` leaves Python's range alone
range = _Builtin("range")

for _name in __all__:
    if _name not in globals() and _name != "cg":
        globals()[_name] = _Builtin(_name)
del _name


class _CG:
    """jit.cg: cooperative groups, as cupyx.jit.cg spells them
    (``from cujit.jit import cg``; ``g = cg.this_thread_block()``,
    ``g.sync()``, ``cg.this_grid().sync()``, ``cg.tiled_partition(g, 8)``).
    The names exist inside kernels only."""

    __cujit_builtin__ = "cg"
    __all__ = ["this_thread_block", "this_grid", "tiled_partition", "coalesced_threads",
               "sync", "wait", "wait_prior", "memcpy_async"]

    def __init__(self):
        for name in self.__all__:
            b = _Builtin("cg." + name)
            setattr(self, name, b)

    def __repr__(self):
        return "<cujit namespace jit.cg>"


cg = _CG()
