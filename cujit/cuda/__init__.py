"""cujit.cuda: Numba's CUDA kernel API as a second spelling of cujit.

Migrating is one line, ``from numba import cuda`` -> ``from cujit import cuda``::

    @cuda.jit
    def increment(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += 1

    increment[blocks, threads](d_a)

This is not a second compiler.  Every name a kernel uses is an object tagged
``__cujit_builtin__`` with the name of cujit's own builtin (the table
``SPELLINGS`` below: Numba's name -> cujit's), which frontend/names.c reads as
it reads jit's; the few that differ in form (``cuda.shared.array(shape,
dtype)``'s order, ``cuda.atomic.compare_and_swap`` on element 0,
``cuda.laneid`` read without a call) carry a ``numba.`` tag that names.c maps
to the same builtin with its arguments rearranged.  ``@cuda.jit`` makes a
``Dispatcher``, a ``cujit.Kernel`` with Numba's methods (``forall``,
``specialize``, ``inspect_asm``, ...), and the host functions return cujit's
DeviceArray, Stream and Event.

The package, one module per part (each opens with what it holds):
``kernelnames`` the names kernels use; ``dispatcher`` @cuda.jit and the
Dispatcher; ``options`` their options; ``signatures`` signatures and the
launch's choice among explicit ones; ``compiler`` cuda.compile*;
``memory``, ``streams``, ``contexts``, ``interop`` the host side (arrays,
streams and events, devices and contexts, foreign arrays and IPC);
``numba_modules`` stand-ins of numba.cuda's submodules and its errors;
``forms`` reduce / vectorize / guvectorize; ``kernels`` transpose.  This file
re-exports their public names and makes numba.cuda's submodule paths
(``cujit.cuda.extending``, ``.cudaimpl``, ``.bf16``, ``.random``) importable.
"""
import sys

from cujit import cooperative   # noqa: F401  (cuda.coop: from cujit.cuda import cooperative)
from cujit import extending     # numba.cuda.extending's @overload: cuda.extending too
from cujit import _ntypes
from cujit import _vectypes
from cujit._cujit import Kernel  # noqa: F401  (cujit.cuda's names as they were)
from cujit._overloads import CompiledKernel, DeviceCompiled  # noqa: F401
from cujit._extern import (declare_device, LinkableCode, CUSource, PTXSource,  # noqa: F401
                           Fatbin, Cubin, Archive, Object, LTOIR)
from cujit._ntypes import types  # noqa: F401  (numba.types' names)

sys.modules.setdefault(__name__ + ".extending", extending)   # from cujit.cuda.extending import
# numba.cuda.cudaimpl's lower, numba.cuda.cgutils's create_struct_proxy, numba's
# (core_)models: the struct-model declarations (cujit/_structs.py)
from cujit._structs import cgutils, cudaimpl, models, core_models  # noqa: E402,F401
sys.modules.setdefault(__name__ + ".cudaimpl", cudaimpl)     # from cujit.cuda.cudaimpl import
from cujit import bf16          # noqa: E402  (numba.cuda.bf16: from cujit.cuda.bf16 import)
sys.modules.setdefault(__name__ + ".bf16", bf16)

# the names kernels use: cuda.grid, cuda.shared.array, cuda.fp16 ... (kernelnames.py)
from cujit.cuda.kernelnames import *  # noqa: E402,F401,F403
from cujit.cuda.kernelnames import SPELLINGS  # noqa: E402

# Numba's type objects: float32, int32[:], void(float32[:], int32) (_ntypes.py)
globals().update(_ntypes.EXPORTED)
typeof = _ntypes.typeof
# CUDA's vector types: float32x4 and its alias float4 ... (_vectypes.py)
globals().update(_vectypes.exported())
vector_types = _vectypes.vector_types
# numba.cuda.np.numpy_support.from_dtype (the peers' adapter maps that module here)
from_dtype = _ntypes.from_dtype

# the compiler's side: @cuda.jit, cuda.compile*
from cujit.cuda.dispatcher import Dispatcher, jit  # noqa: E402,F401
from cujit.cuda.compiler import (compile, compile_all, compile_for_current_device,  # noqa: E402,F401
                                 compile_ptx, compile_ptx_for_current_device)
# the host side
from cujit.cuda.memory import (In, InOut, Out, device_array, device_array_like,  # noqa: E402,F401
                               managed_array, mapped_array, mapped_array_like, pinned,
                               pinned_array, pinned_array_like, to_device)
from cujit.cuda.streams import (Stream, default_stream, event, event_elapsed_time,  # noqa: E402,F401
                                external_stream, legacy_default_stream,
                                per_thread_default_stream, stream, synchronize)
from cujit.cuda.contexts import (close, current_context, defer_cleanup,  # noqa: E402,F401
                                 detect, get_context, get_current_device, gpus,
                                 is_available, is_bfloat16_supported, list_devices,
                                 profile_start, profile_stop, profiling, select_device)
from cujit.cuda.interop import (as_cuda_array, from_cuda_array_interface,  # noqa: E402,F401
                                get_ipc_handle, is_cuda_array, open_ipc_array)
from cujit.cuda.numba_modules import (CudaAPIError, CudaDriverError,  # noqa: E402,F401
                                      CudaSupportError, DeviceNDArray,
                                      NumbaInvalidConfigWarning, NumbaPerformanceWarning,
                                      NumbaWarning, TypingError, config, cudadrv, devicearray,
                                      devices, driver, numpy_support, runtime)
from cujit.cuda.forms import Reduce, guvectorize, reduce, vectorize  # noqa: E402,F401
from cujit.cuda.kernels import transpose  # noqa: E402,F401


# `from cujit.cuda.random import ...`, Numba's module path with numba renamed:
# a finder that gives cujit.random under that name (it is imported at its first
# use: it defines device functions with this package's cuda.jit)


class _RandomFinder:
    """finds cujit.cuda.random: cujit.random itself, not a copy"""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name != __name__ + ".random":
            return None
        import importlib.machinery
        return importlib.machinery.ModuleSpec(name, _RandomFinder)

    @staticmethod
    def create_module(spec):
        import cujit.random as mod
        spec.loader_state = mod.__spec__    # the import system sets __spec__ to spec
        return mod

    @staticmethod
    def exec_module(module):
        module.__spec__ = module.__spec__.loader_state


if not any(f is _RandomFinder for f in sys.meta_path):
    sys.meta_path.append(_RandomFinder)


def __getattr__(name):
    """cuda.random (numba.cuda.random's xoroshiro128p), imported at its first
    use: it defines device functions with this package's cuda.jit"""
    if name == "random":
        import cujit.random as mod
        sys.modules.setdefault(__name__ + ".random", mod)   # import cujit.cuda.random
        return mod
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted(set(k.partition(".")[0] for k in SPELLINGS) | {
    "jit", "threadIdx", "blockIdx", "blockDim", "gridDim", "warpsize", "const",
    "to_device", "device_array", "device_array_like", "pinned_array", "pinned_array_like",
    "mapped_array", "stream", "event", "synchronize", "select_device",
    "get_current_device", "is_available", "detect", "reduce", "vectorize", "guvectorize",
    "types", "mapped_array_like", "managed_array", "pinned", "default_stream",
    "legacy_default_stream", "per_thread_default_stream", "external_stream",
    "event_elapsed_time", "close", "is_bfloat16_supported", "gpus", "current_context",
    "get_context", "get_ipc_handle", "open_ipc_array", "driver", "devices", "is_cuda_array",
    "as_cuda_array",
    "from_cuda_array_interface", "cudadrv", "devicearray", "DeviceNDArray", "CudaAPIError",
    "CudaDriverError",
    "CudaSupportError", "TypingError", "NumbaPerformanceWarning", "NumbaInvalidConfigWarning",
    "In", "Out", "InOut", "Dispatcher", "typeof", "compile", "compile_ptx",
    "compile_for_current_device", "compile_ptx_for_current_device", "compile_all", "fp16", "bf16",
    "libdevice", "random", "declare_device", "LinkableCode", "CUSource", "PTXSource",
    "Fatbin", "Cubin", "Archive", "Object", "LTOIR", "list_devices", "profile_start",
    "profile_stop", "profiling", "defer_cleanup", "runtime"} | set(_ntypes.EXPORTED))

