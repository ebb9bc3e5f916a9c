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
"""
import sys

import cujit
from cujit import cooperative   # noqa: F401  (cuda.coop: from cujit.cuda import cooperative)
from cujit import _ntypes
from cujit import jit as _jit
from cujit._cujit import Kernel
from cujit._forms import guvectorize, vectorize   # numba.cuda's (target="cuda")
from cujit._ntypes import types  # noqa: F401  (numba.types' names)

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

# Numba's type objects: float32, int32[:], void(float32[:], int32) (_ntypes.py)
globals().update(_ntypes.TYPES)
threadIdx = _jit.threadIdx
blockIdx = _jit.blockIdx
blockDim = _jit.blockDim
gridDim = _jit.gridDim
warpsize = 32


# ---- @cuda.jit ----

# Numba's options accepted for source compatibility; what cujit does with them
_ACCEPTED = {
    "inline": "device functions are always inlined (__forceinline__)",
    "lineinfo": "cujit always writes #line marks, so PTX always has line info",
    "cache": "cujit always caches compiled kernels on disk (CUJIT_CACHE)",
    "opt": "NVRTC always optimises (-O3)",
    "fastmath": "accepted; not applied yet (kernels compile without --use_fast_math)",
    "max_registers": "accepted; not applied yet",
    "extensions": None,
}


class Dispatcher(Kernel):
    """What ``@cuda.jit`` returns: a cujit.Kernel (``k[grid, block]``,
    ``k[grid, block, stream, dynshared]``, ``inspect_cuda``, ``inspect_ptx``)
    with Numba's dispatcher methods."""

    @property
    def overloads(self):
        """signature -> the CUDA C++ cujit generated for it (Numba's
        overloads hold compiled kernels; cujit's are keyed the same way)."""
        return {sig: self.inspect_cuda(sig) for sig in self.signatures}

    definitions = overloads

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        """A launcher of ntasks threads: ``k.forall(n)(args)``; tpb 0 takes 256
        threads per block."""
        if ntasks < 0:
            raise ValueError("forall: ntasks must be >= 0")
        tpb = tpb or 256
        blocks = max(1, (ntasks + tpb - 1) // tpb)
        return self[blocks, tpb, stream, sharedmem]

    def specialize(self, *args):
        """A new dispatcher compiled for the types of these example arguments."""
        d = _make(self.py_func, self.device, getattr(self, "_options", {}))
        d._eager(self.inspect_cuda_signature(*args))
        return d

    def inspect_cuda_signature(self, *args):
        """The signature string cujit gives these example arguments."""
        before = set(self.signatures)
        self.inspect_cuda(*args)
        new = [s for s in self.signatures if s not in before]
        if new:
            return new[0]
        src = self.inspect_cuda(*args)
        for sig in self.signatures:
            if self.inspect_cuda(sig) == src:
                return sig
        raise RuntimeError("cujit could not name the signature of these arguments")

    def inspect_asm(self, signature=None):
        """PTX (cujit compiles CUDA C++ with NVRTC): for one signature, or a
        dict of every compiled one's."""
        if signature is not None:
            return self.inspect_ptx(_sig(signature))
        return {sig: self.inspect_ptx(sig) for sig in self.signatures}

    def inspect_llvm(self, signature=None):
        """cujit makes no LLVM IR: this gives the CUDA C++ NVRTC compiles, after
        a comment saying so."""
        note = ("// cujit generates CUDA C++ (compiled by NVRTC), not LLVM IR; "
                "inspect_asm() gives the PTX\n")
        if signature is not None:
            return note + self.inspect_cuda(_sig(signature))
        return {sig: note + self.inspect_cuda(sig) for sig in self.signatures}

    def inspect_types(self, file=None):
        """Prints each compiled signature and its CUDA C++ (cujit's typed form)."""
        file = file or sys.stdout
        for sig in self.signatures:
            print(f"{self.__name__} {sig}", file=file)
            print(self.inspect_cuda(sig), file=file)

    def inspect_sass(self, signature=None):
        raise NotImplementedError("cujit does not disassemble SASS: use inspect_asm() "
                                  "for PTX, or inspect_cubin() and nvdisasm")

    def _eager(self, sig):
        """Types and generates the code for sig now (Numba's eager compile):
        type errors surface at decoration; with a GPU it is also loaded."""
        if self.device:
            return              # device functions compile with their callers
        self.inspect_cuda(sig)
        if cujit.is_available():
            self.compile(sig)

    def __repr__(self):
        return f"<cujit.cuda {'device function' if self.device else 'kernel'} {self.__name__}>"


def _sig(signature):
    """Numba passes signatures as strings, signature objects (void(float32[:],
    int32), cujit.cuda's or numba's) or tuples of argument types."""
    return _ntypes.signature_string(signature)


def _make(func, device, options):
    d = Dispatcher(func, device=device)
    d._options = dict(options)
    return d


def jit(func_or_sig=None, device=False, inline=False, link=None, debug=None, opt=True,
        lineinfo=False, cache=False, fastmath=False, max_registers=None, boundscheck=None,
        **kws):
    """``@cuda.jit``, ``@cuda.jit()``, ``@cuda.jit("void(float32[:], int32)")``, a
    list of signatures (each compiled at once), ``device=True`` for device
    functions.  Numba's other options are accepted (see README, Numba's
    spelling); ``link=`` (foreign code) is not supported."""
    if link:
        raise NotImplementedError("cuda.jit(link=...): cujit cannot link foreign "
                                  "CUDA / PTX files yet")
    for k in kws:
        if k not in _ACCEPTED:
            raise TypeError(f"cuda.jit() got an unexpected keyword argument '{k}'")
    options = dict(kws, inline=inline, debug=debug, opt=opt, lineinfo=lineinfo, cache=cache,
                   fastmath=fastmath, max_registers=max_registers, boundscheck=boundscheck)
    sigs = None
    if isinstance(func_or_sig, (str, list, tuple)) or _ntypes.is_signature(func_or_sig):
        # a list holds signatures; a tuple is one signature (its argument types), as is
        # void(float32[:], int32)
        sigs = list(func_or_sig) if isinstance(func_or_sig, list) else [func_or_sig]
        func_or_sig = None

    def wrap(func):
        d = Dispatcher(func, device=device, boundscheck=bool(boundscheck))
        d._options = options
        for s in sigs or ():
            d._eager(_sig(s))
        return d
    if func_or_sig is not None:
        if not callable(func_or_sig):
            raise TypeError("cuda.jit takes a function, a signature string or a list of them")
        return wrap(func_or_sig)
    return wrap


# ---- host side: cujit's arrays, streams, events and devices ----

def _stream(stream):
    return None if stream == 0 else stream


def to_device(obj, stream=0, copy=True, to=None):
    """A DeviceArray holding a copy of obj (to=: copy into that array)."""
    if to is not None:
        to.copy_to_device(obj, stream=_stream(stream))
        return to
    return cujit.to_device(obj, stream=_stream(stream))


def device_array(shape, dtype=float, strides=None, order="C", stream=0):
    """An uninitialised DeviceArray (strides= must be None)."""
    if strides is not None:
        raise NotImplementedError("cuda.device_array(strides=...): give order= instead")
    import numpy as np
    return cujit.empty(shape, dtype=np.dtype(dtype), order=order, stream=_stream(stream))


def device_array_like(ary, stream=0):
    return cujit.empty_like(ary, stream=_stream(stream))


def pinned_array(shape, dtype=float, strides=None, order="C"):
    """A NumPy array (cujit copies host arrays itself; this one is not
    page-locked)."""
    import numpy as np
    if strides is not None:
        raise NotImplementedError("cuda.pinned_array(strides=...): give order= instead")
    return np.empty(shape, dtype, order=order)


def pinned_array_like(ary):
    import numpy as np
    return np.empty_like(ary)


def mapped_array(shape, dtype=float, strides=None, order="C", stream=0, portable=False,
                 wg=False):
    """A NumPy array: passed to a kernel, cujit copies it in and back around
    the launch, which is what a kernel and the host see of mapped memory once
    the launch is over (but not while it runs)."""
    return pinned_array(shape, dtype, strides, order)


def managed_array(*args, **kwargs):
    raise NotImplementedError("cuda.managed_array: cujit has no managed memory; use "
                              "cuda.device_array and copy_to_host()")


def pinned(*arrays):
    """``with cuda.pinned(a):``: a no-op (cujit does not page-lock host arrays)."""
    import contextlib
    return contextlib.nullcontext()


def stream():
    return cujit.Stream()


def default_stream():
    return 0


def per_thread_default_stream():
    return 2        # CU_STREAM_PER_THREAD


def legacy_default_stream():
    return 1        # CU_STREAM_LEGACY


def event(timing=True):
    return cujit.Event(timing=timing)


def event_elapsed_time(evtstart, evtend):
    """Milliseconds between two recorded events."""
    return evtstart.elapsed_time(evtend)


def synchronize():
    cujit.synchronize()


def select_device(device_id):
    d = cujit.Device(device_id)
    d.use()
    return d


def get_current_device():
    return cujit.get_device()


def close():
    """Numba's cuda.close(): cujit keeps its context; this synchronizes."""
    if cujit.is_available():
        cujit.synchronize()


def is_available():
    return cujit.is_available()


def detect():
    """Prints the GPUs found and returns True when there is at least one."""
    try:
        n = cujit.device_count()
    except Exception as e:          # no driver
        print(f"cujit found no CUDA driver: {e}")
        return False
    print(f"Found {n} CUDA devices")
    for i in range(n):
        d = cujit.Device(i)
        major, minor = d.compute_capability
        print(f"id {i} {d.name} compute capability {major}.{minor}")
    return n > 0


def is_cuda_array(obj):
    return hasattr(obj, "__cuda_array_interface__")


def as_cuda_array(obj, sync=True):
    """A DeviceArray viewing the memory of obj (its __cuda_array_interface__)."""
    if not is_cuda_array(obj):
        raise TypeError("as_cuda_array: the object has no __cuda_array_interface__")
    return cujit.asarray(obj) if hasattr(cujit, "asarray") else obj


# ---- cuda.reduce: Numba's reduction over cujit's @reduce ----

class Reduce:
    """``@cuda.reduce`` on a binary function: ``r(arr, size=None, res=None,
    init=0, stream=0)`` gives ``func`` folded over ``arr[:size]`` and then
    with init, as Numba does (so a max over negative numbers with the
    default init=0 is 0); res=: written to res[0] on the device instead."""

    def __init__(self, func):
        self._func = func
        self._red = cujit.reduce(func, identity=None)
        self.__name__ = getattr(func, "__name__", "reduce")
        self.__wrapped__ = func

    def __call__(self, arr, size=None, res=None, init=0, stream=0):
        import numpy as np
        if size is not None:
            arr = arr[:size]
        dt = np.dtype(arr.dtype)
        if arr.size == 0:
            value = dt.type(init)
        else:
            part = self._red(arr)
            part = part.copy_to_host() if hasattr(part, "copy_to_host") else np.asarray(part)
            value = dt.type(self._func(dt.type(part[()]), dt.type(init)))
        if res is not None:
            res[0:1] = np.array([value], dtype=res.dtype)
            return None
        return value


def reduce(func):
    return Reduce(func)


def __getattr__(name):
    """cuda.random (numba.cuda.random's xoroshiro128p), imported at its first
    use: it defines device functions with this module's cuda.jit"""
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
    "types", "random"} | set(_ntypes.TYPES))
