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
import os
import sys
import types as _pytypes

import cujit
from cujit import cooperative   # noqa: F401  (cuda.coop: from cujit.cuda import cooperative)
from cujit import extending     # numba.cuda.extending's @overload: cuda.extending too
from cujit import _extern
from cujit import _ntypes
from cujit import _vectypes
from cujit import _warnings
from cujit import jit as _jit
from cujit._cujit import Kernel
from cujit._overloads import CompiledKernel, DeviceCompiled
from cujit._extern import (declare_device, LinkableCode, CUSource, PTXSource,  # noqa: F401
                           Fatbin, Cubin, Archive, Object, LTOIR)
from cujit._numba_forms import guvectorize, vectorize   # target="cuda": Numba's rules
from cujit._ntypes import types  # noqa: F401  (numba.types' names)

sys.modules.setdefault(__name__ + ".extending", extending)   # from cujit.cuda.extending import
# numba.cuda.cudaimpl's lower, numba.cuda.cgutils's create_struct_proxy, numba's
# (core_)models: the struct-model declarations (cujit/_structs.py)
from cujit._structs import cgutils, cudaimpl, models, core_models  # noqa: E402,F401
sys.modules.setdefault(__name__ + ".cudaimpl", cudaimpl)     # from cujit.cuda.cudaimpl import
from cujit import bf16          # noqa: E402  (numba.cuda.bf16: from cujit.cuda.bf16 import)
sys.modules.setdefault(__name__ + ".bf16", bf16)

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

# Numba's type objects: float32, int32[:], void(float32[:], int32) (_ntypes.py)
globals().update(_ntypes.EXPORTED)
typeof = _ntypes.typeof
# CUDA's vector types: float32x4 and its alias float4 ... (_vectypes.py)
globals().update(_vectypes.exported())
vector_types = _vectypes.vector_types
# numba.cuda.np.numpy_support.from_dtype (the peers' adapter maps that module here)
from_dtype = _ntypes.from_dtype
threadIdx = _jit.threadIdx
blockIdx = _jit.blockIdx
blockDim = _jit.blockDim
gridDim = _jit.gridDim
warpsize = 32


# ---- @cuda.jit ----

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

# CU_FUNC_ATTRIBUTE_*: what the Dispatcher's get_* methods read
_ATTR_MAX_THREADS, _ATTR_SHARED, _ATTR_CONST, _ATTR_LOCAL, _ATTR_REGS = range(5)

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


class _SigDict(dict):
    """{signature: value} of a dispatcher's compiled kernels, whose lookups
    take any spelling of a signature (cujit's string, Numba's signature's
    .args, a tuple of types), as Numba's dicts keyed by argument types do."""

    def __init__(self, items, lookup):
        super().__init__(items)
        self._lookup = lookup

    def __missing__(self, key):
        return self._lookup(key)

    def __contains__(self, key):
        if super().__contains__(key):
            return True
        try:
            return not isinstance(key, str) and super().__contains__(_sig(key))
        except TypeError:
            return False


class _Extensions(list):
    """Dispatcher.extensions: adding one switches the dispatcher to the
    launch path that applies them (the plain path pays nothing)."""

    def __init__(self, owner, items=()):
        super().__init__(items)
        self._owner = owner

    def _changed(self):
        d = self._owner
        if d is not None and self and type(d) is Dispatcher:
            d.__class__ = _ExtDispatcher

    def append(self, x):
        super().append(x)
        self._changed()

    def extend(self, xs):
        super().extend(xs)
        self._changed()

    def insert(self, i, x):
        super().insert(i, x)
        self._changed()

    def __iadd__(self, xs):
        self.extend(xs)
        return self


class Dispatcher(Kernel):
    """What ``@cuda.jit`` returns: a cujit.Kernel (``k[grid, block]``,
    ``k[grid, block, stream, dynshared]``, ``inspect_cuda``, ``inspect_ptx``)
    with Numba's dispatcher methods, compiled by Numba's typing rules
    (``numba=True``: integers in 64 bits, Python numbers int64 / float64,
    signed indices counted from the end)."""

    def __new__(cls, func, **kwargs):
        kwargs.setdefault("numba", True)
        return Kernel.__new__(cls, func, **kwargs)

    @property
    def __doc__(self):
        return self.py_func.__doc__

    @property
    def __cujit_link__(self):
        """cuda.jit(link=...) read now (module/kernel.c asks at each compile):
        the texts and marker lines linked with each declared function the
        kernel calls, or None"""
        items = getattr(self, "_options", {}).get("link")
        if not items:
            return None
        from cujit import _extern
        return _extern.link_texts(items)

    @property
    def overloads(self):
        """signature -> its compiled kernel (cujit/_overloads.py:
        ``cooperative``, ``max_cooperative_grid_blocks``, ``inspect_asm``),
        as Numba's overloads; looked up by any spelling of a signature."""
        return _SigDict({sig: CompiledKernel(self, sig) for sig in self.signatures},
                        lambda key: CompiledKernel(self, self._canonical(_sig(key))))

    @property
    def definitions(self):
        """signature -> the CUDA C++ cujit generated for it."""
        return _SigDict({sig: self.inspect_cuda(sig) for sig in self.signatures},
                        lambda key: self.inspect_cuda(_sig(key)))

    @property
    def definition(self):
        """The CUDA C++ of the one compiled signature (Numba's
        ``definition``)."""
        sigs = self.signatures
        if len(sigs) != 1:
            raise TypeError(f"{self.__name__}.definition: the kernel is compiled for "
                            f"{len(sigs)} signatures; use .definitions")
        return self.inspect_cuda(sigs[0])

    @property
    def specializations(self):
        """signature -> the dispatcher ``specialize`` made for it."""
        d = self.__dict__.get("_specializations")
        if d is None:
            d = self.__dict__["_specializations"] = {}
        return d

    @property
    def specialized(self):
        """True when compiled for one given signature (cuda.jit(sig) or
        specialize()): it compiles nothing else."""
        return self.__dict__.get("_specialized", False)

    @property
    def extensions(self):
        e = self.__dict__.get("_extensions")
        if e is None:
            e = self.__dict__["_extensions"] = _Extensions(self)
        return e

    @extensions.setter
    def extensions(self, value):
        self.__dict__["_extensions"] = _Extensions(self, value)
        self.__dict__["_extensions"]._changed()

    def __call__(self, *args, **kwargs):
        """cupyx.jit's launch form, k(grid, block, args), as on every
        cujit.Kernel; anything else is Numba's error for a kernel called
        without [grid, block]."""
        if self.device:
            raise TypeError(f"{self.__name__} is a device function: call it from a kernel")
        if len(args) == 3 and isinstance(args[2], tuple) and _is_dims(args[0]) \
                and _is_dims(args[1]):
            return Kernel.__call__(self, *args, **kwargs)
        raise ValueError(f"kernel {self.__name__}: the launch configuration was not "
                         f"specified; launch it as {self.__name__}[blocks, threads](...)")

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        """A launcher of ntasks threads: ``k.forall(n)(args)``; tpb 0 takes 256
        threads per block."""
        if ntasks < 0:
            raise ValueError(f"forall: ntasks must be >= 0, got {ntasks}: Can't create "
                             "ForAll with negative task count")
        tpb = tpb or 256
        blocks = max(1, (ntasks + tpb - 1) // tpb)
        return self[blocks, tpb, stream, sharedmem]

    def compile(self, *sig):
        """Numba's compile(sig): sig a signature (a string, a signature object
        or a tuple of Numba types), or example arguments as cujit takes them
        (a tuple among them is a tuple argument); ``compile(())`` is Numba's
        empty tuple of argument types (no parameters)."""
        if len(sig) == 1 and (_is_signature_value(sig[0]) or sig[0] == ()):
            return Kernel.compile(self, _sig(sig[0]))
        return Kernel.compile(self, *sig)

    def specialize(self, *args):
        """A dispatcher compiled for these argument types (Numba's types) or
        the types of these example arguments; the same one for the same
        types."""
        if self.specialized:
            raise RuntimeError(f"Dispatcher already specialized: {self.__name__} is compiled "
                               "for its signature only")
        if args and all(_ntypes._is_type(a) and not isinstance(a, str) for a in args):
            sig = _sig(tuple(args))
        else:
            if _has_enum(args):
                raise TypeError(f"{self.__name__}.specialize() cannot take Enum members: a "
                                "signature has no spelling for their classes; launch the "
                                "kernel with them, or specialize for their .value")
            sig = self.inspect_cuda_signature(*args)
        key = self._canonical(sig)
        d = self.specializations.get(key)
        if d is None:
            d = _make(self.py_func, self.device, self._options)
            d._eager(sig)
            d.__dict__["_specialized"] = True
            d._by_signature = not d.device
            self.specializations[key] = d
        return d

    def _canonical(self, sig):
        """cujit's string of a signature: the one its entry is listed under."""
        before = set(self.signatures)
        self.inspect_cuda(sig)
        for s in self.signatures:
            if s not in before:
                return s
        src = self.inspect_cuda(sig)
        for s in self.signatures:
            if self.inspect_cuda(s) == src:
                return s
        return sig

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

    # ---- explicit signatures: Numba's overload resolution ----

    def _resolve_args(self, *args):
        """The arguments converted for the best of the compiled signatures
        (called by the launch when no compiled kernel takes them as they
        are; _by_signature dispatchers compile nothing else), as Numba's
        launch does.  A dispatcher of one signature (cuda.jit(sig), not a
        list) takes it without choosing: an array of another dtype of the
        same size is read as the signature's dtype (its bytes
        reinterpreted).  Of a list, the best signature is the one with the
        fewest unsafe, then safe conversions, then promotions (Numba's
        rating); a tie is ambiguous.  Either way a float for an integer
        parameter is Numba's TypeError, as is no signature taking them."""
        types = [_arg_type(a) for a in args]
        if self.specialized and len(self.signatures) == 1:
            params = _parse_params(self.signatures[0])
            if len(params) == len(types) and all(
                    _conversion(t, p) is not None or _reinterpretable(t, p)
                    for t, p in zip(types, params)):
                return self._converted(args, types, params)
            self._no_match(types)
        rated = []
        # k.signatures lists the newest first: Numba's order is the declared one
        for sig in dict.fromkeys(reversed(self.signatures)):
            params = _parse_params(sig)
            if len(params) != len(types):
                continue
            scores = [_conversion(t, p) for t, p in zip(types, params)]
            if None in scores:
                continue
            rated.append(((scores.count(3), scores.count(2), scores.count(1)), sig, params))
        if not rated:
            self._no_match(types)
        rated.sort(key=lambda r: r[0])
        tied = [r for r in rated if r[0] == rated[0][0]]
        if len(tied) > 1:
            shown = ", ".join(_numba_name(t) for t in types)
            raise TypeError(f"Ambiguous overloading for {self.py_func!r} ({shown}):\n"
                            + "\n".join("(" + ", ".join(_numba_name(p) for p in r[2])
                                        + ") -> none" for r in tied[:2]))
        return self._converted(args, types, rated[0][2])

    def _no_match(self, types):
        shown = ", ".join(_type_name(t) for t in types)
        raise TypeError(f"No matching definition for argument type(s) {shown}: "
                        f"{self.__name__} was compiled for {', '.join(self.signatures)} "
                        "only (cuda.jit with signatures compiles no others)")

    def _converted(self, args, types, params):
        """args for params: Numba passes no float to an integer parameter
        (its launch converts with ctypes); a Python int out of the
        parameter's range wraps, as in Numba's typed launch
        (np.int32(2**31 + 5) would raise OverflowError)"""
        for i, (t, p) in enumerate(zip(types, params)):
            if t and t[0] == "s" and p[0] == "s" and t[1].kind == "f" and p[1].kind in "iu":
                raise TypeError(f"kernel {self.__name__}: argument {i} is a float "
                                f"({args[i]!r}) and its parameter is {p[1]}: a launch passes "
                                "no float to an integer parameter (int expected instead of "
                                "float); convert it with int() first")
        return tuple(_convert(a, t, p) for a, t, p in zip(args, types, params))

    @property
    def stats(self):
        """Numba's compile statistics: (cache_path, cache_hits, cache_misses),
        the two Counters by signature.  A hit is a load whose binary cujit's
        disk cache (or this process's) held, a miss one that NVRTC
        compiled.  cujit caches every kernel, cache=True or not, in one
        folder (cujit.cache_info()['dir']), not in __pycache__."""
        from collections import Counter
        hits, misses = Counter(), Counter()
        for sig, (compiled, cached) in self._load_counts.items():
            if compiled:
                misses[sig] += compiled
            if cached:
                hits[sig] += cached
        return _CompileStats(cujit.cache_info()["dir"], hits, misses)

    # ---- the compiled kernels' properties (cuFuncGetAttribute) ----

    def _attribute(self, attr, signature):
        if signature is not None:
            return self.func_attribute(attr, _sig(signature))
        if self.specialized:
            return self.func_attribute(attr, self.signatures[0])
        return _SigDict({s: self.func_attribute(attr, s) for s in self.signatures},
                        lambda key: self.func_attribute(attr, _sig(key)))

    def get_regs_per_thread(self, signature=None):
        """Registers per thread: for one signature, the specialized one, or
        a dict of every compiled signature's."""
        return self._attribute(_ATTR_REGS, signature)

    def get_const_mem_size(self, signature=None):
        """Bytes of constant memory the kernel uses."""
        return self._attribute(_ATTR_CONST, signature)

    def get_shared_mem_per_block(self, signature=None):
        """Bytes of static shared memory per block."""
        return self._attribute(_ATTR_SHARED, signature)

    def get_local_mem_per_thread(self, signature=None):
        """Bytes of local memory per thread."""
        return self._attribute(_ATTR_LOCAL, signature)

    def get_max_threads_per_block(self, signature=None):
        """The most threads a block of this kernel can have (its registers,
        launch bounds and the device's limit)."""
        return self._attribute(_ATTR_MAX_THREADS, signature)

    def inspect_asm(self, signature=None):
        """PTX (cujit compiles CUDA C++ with NVRTC): for one signature, or a
        dict of every compiled one's.  A device function's is its own PTX, an
        extern "C" function as cuda.compile_ptx(device=True) gives."""
        if self.device:
            sigs = [_sig(signature)] if signature is not None else (
                self.signatures or list(getattr(self, "__cujit_signatures__", None) or ()))
            opts = _build_options(**getattr(self, "_options", {}))
            def one(s):
                return self._compile_binary(s, _arch(None), opts, _OUT_PTX,
                                            _entry_name(self.py_func, None))[0]
            if signature is not None:
                return one(sigs[0])
            return _SigDict({s: one(s) for s in sigs}, lambda key: one(_sig(key)))
        if signature is not None:
            return self.inspect_ptx(_sig(signature))
        return _SigDict({sig: self.inspect_ptx(sig) for sig in self.signatures},
                        lambda key: self.inspect_ptx(_sig(key)))

    def inspect_lto_ptx(self, signature=None):
        """The PTX of the whole kernel with its device functions: what Numba
        shows after link-time optimisation, and what cujit's one NVRTC
        program always is."""
        return self.inspect_asm(signature)

    def inspect_llvm(self, signature=None):
        """cujit makes no LLVM IR: this gives the CUDA C++ NVRTC compiles, after
        a comment saying so."""
        note = ("// cujit generates CUDA C++ (compiled by NVRTC), not LLVM IR; "
                "inspect_asm() gives the PTX\n")
        if self.device:
            name = _entry_name(self.py_func, None)
            if signature is not None:
                return note + self._device_source(_sig(signature), name)[0]
            sigs = list(getattr(self, "__cujit_signatures__", None) or ())
            return _SigDict({s: note + self._device_source(s, name)[0] for s in sigs},
                            lambda key: note + self._device_source(_sig(key), name)[0])
        if signature is not None:
            return note + self.inspect_cuda(_sig(signature))
        return _SigDict({sig: note + self.inspect_cuda(sig) for sig in self.signatures},
                        lambda key: note + self.inspect_cuda(_sig(key)))

    def compile_device(self, args, return_type=None):
        """Numba's compile_device: the device function compiled on its own
        for the argument types ``args`` (a tuple of types, or a signature):
        its ``fndesc.mangled_name`` is the extern "C" name that
        ``inspect_asm(args)`` and ``inspect_llvm(args)`` show."""
        if not self.device:
            raise RuntimeError(f"{self.__name__} is a kernel, not a device function: "
                               "compile(sig) compiles it")
        sig = _sig(args if return_type is None else return_type(*args))
        name = _entry_name(self.py_func, None)
        src, ret = self._device_source(sig, name)
        return DeviceCompiled(self, sig, name, src, ret)

    def inspect_types(self, file=None):
        """Prints each compiled signature and its CUDA C++ (cujit's typed form)."""
        file = file or sys.stdout
        for sig in self.signatures:
            print(f"{self.__name__} {sig}", file=file)
            print(self.inspect_cuda(sig), file=file)

    def inspect_sass(self, signature=None):
        """SASS, disassembled by nvdisasm from the CUBIN: for one signature,
        or a dict of every compiled one's."""
        return self._disassemble(signature, [])

    def inspect_sass_cfg(self, signature=None):
        """The SASS control-flow graph in DOT (nvdisasm -cfg)."""
        return self._disassemble(signature, ["-cfg"])

    def _disassemble(self, signature, opts):
        if self.device:
            raise RuntimeError(f"Cannot inspect SASS of a device function: {self.__name__} is "
                               "compiled into the kernels that call it; inspect those")
        tool = _nvdisasm()
        if signature is None:
            return _SigDict({s: self._disassemble(s, opts) for s in self.signatures},
                            lambda key: self._disassemble(key, opts))
        import subprocess
        import tempfile
        with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
            f.write(self.inspect_cubin(_sig(signature)))
            f.flush()
            r = subprocess.run([tool, *opts, "-c", f.name], capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError(f"nvdisasm failed on {self.__name__}{_sig(signature)}: "
                               f"{r.stderr.strip()}")
        return r.stdout

    def _eager(self, sig):
        """Types and generates the code for sig now (Numba's eager compile):
        type errors surface at decoration; with a GPU it is also loaded."""
        if self.device:
            # device functions compile with their callers, typed for the first
            # declared signature whose parameters take the call's arguments
            # (frontend/names.c and typeinfer/calls.c read this tuple)
            self.__cujit_signatures__ = getattr(self, "__cujit_signatures__", ()) + (sig,)
            return
        self.inspect_cuda(sig)
        if cujit.is_available():
            self.compile(sig)

    def __reduce__(self):
        """Pickled by name when its module holds it (@cuda.jit on a module's
        function: the other process imports it), else as its Python function
        (by name, or by value where pickle cannot find it: cujit/_pickle.py),
        options and explicit signatures; the other process compiles again
        or reads cujit's disk cache."""
        from cujit import _pickle
        f = self.py_func
        if _pickle.findable(self, f):
            return (_by_name, (f.__module__, f.__qualname__))
        sigs = self.signatures if self._by_signature else None
        return (_rebuild, (_pickle.function_arg(f), self.device,
                           dict(getattr(self, "_options", {})), sigs, self.specialized))

    def __repr__(self):
        return f"<cujit.cuda {'device function' if self.device else 'kernel'} {self.__name__}>"


class _CompileStats(tuple):
    """Dispatcher.stats: (cache_path, cache_hits, cache_misses)"""

    __slots__ = ()

    def __new__(cls, path, hits, misses):
        return tuple.__new__(cls, (path, hits, misses))

    cache_path = property(lambda self: self[0])
    cache_hits = property(lambda self: self[1])
    cache_misses = property(lambda self: self[2])


def _nvdisasm():
    """nvdisasm's path (PATH, then $CUDA_HOME/bin); NotImplementedError (a
    RuntimeError) when there is none"""
    import os
    import shutil
    tool = shutil.which("nvdisasm")
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if not tool and home and os.path.isfile(os.path.join(home, "bin", "nvdisasm")):
            tool = os.path.join(home, "bin", "nvdisasm")
    if not tool:
        raise NotImplementedError("nvdisasm was not found: inspect_sass() disassembles SASS "
                                  "with the CUDA toolkit's nvdisasm; put it on PATH, or use "
                                  "inspect_asm() for PTX")
    return tool


def _is_dims(d):
    """An int or a tuple of ints: a grid or block."""
    return isinstance(d, int) or (isinstance(d, tuple) and all(isinstance(x, int) for x in d))


def _arg_type(a):
    """("a", dtype, ndim, layout) for an array argument, ("s", dtype) for a
    number (Python int, float, complex as Numba types them: int64, float64,
    complex128), None for anything else (the launch reports it)."""
    import numpy as np
    if isinstance(a, _ArgHint):
        a = a.value
    if isinstance(a, bool):
        return ("s", np.dtype(np.bool_))
    if isinstance(a, np.generic):
        return ("s", a.dtype)
    if isinstance(a, int):
        return ("s", np.dtype(np.int64))
    if isinstance(a, float):
        return ("s", np.dtype(np.float64))
    if isinstance(a, complex):
        return ("s", np.dtype(np.complex128))
    if isinstance(a, tuple):
        return ("t", [_arg_type(x) for x in a])
    cai = getattr(a, "__cuda_array_interface__", None)
    if cai is not None or isinstance(a, np.ndarray):
        if cai is not None:
            dt, shape, strides = np.dtype(cai["typestr"]), cai["shape"], cai.get("strides")
        else:
            dt, shape, strides = a.dtype, a.shape, a.strides
        return ("a", dt, len(shape), _layout_of(shape, strides, dt.itemsize))
    return None


def _layout_of(shape, strides, itemsize):
    """'C', 'F' or 'A' as the launch keys arrays."""
    if strides is None:
        return "C"

    def contiguous(order):
        step = itemsize
        for n, s in order:
            if n != 1 and s != step:
                return False
            step *= n
        return True
    pairs = list(zip(shape, strides))
    if contiguous(reversed(pairs)):
        return "C"
    return "F" if len(shape) >= 2 and contiguous(pairs) else "A"


def _parse_params(sig):
    """cujit's signature string "(float32[::1], int64)" as parameter types:
    ("a", dtype, ndim, layout), ("s", dtype), ("p", dtype) (a raw pointer)
    or ("t", [its elements'])."""
    import numpy as np
    inner = sig[sig.index("(") + 1:sig.rindex(")")]
    params, depth, cur = [], 0, ""
    for ch in inner + ",":
        if ch == "," and depth == 0:
            if cur.strip():
                params.append(cur.strip())
            cur = ""
            continue
        depth += (ch in "[(") - (ch in "])")
        cur += ch
    out = []
    for p in params:
        if p.startswith("Tuple("):
            out.append(("t", _parse_params(p[5:])))
            continue
        if p.startswith("Record("):
            out.append(_record_param(p))
            continue
        if p.endswith("*"):
            out.append(("p", np.dtype(_ntypes.SCALARS.get(p[:-1].strip(), p[:-1].strip()))))
            continue
        if "[" not in p:
            out.append(("s", np.dtype(_ntypes.SCALARS.get(p, p))))
            continue
        name, dims = p[:p.index("[")], p[p.index("[") + 1:p.rindex("]")].split(",")
        dims = [d.strip() for d in dims]
        lay = "C" if dims[-1] == "::1" else "F" if len(dims) > 1 and dims[0] == "::1" else "A"
        out.append(("a", np.dtype(_ntypes.SCALARS.get(name.strip(), name.strip())), len(dims),
                    lay))
    return out


def _record_param(p):
    """a record parameter of a compiled signature: ("a", dtype, ndim,
    layout), or ("s", dtype) for one record"""
    from cujit import _recsig
    end = p.rindex(")") + 1
    dt = _recsig.dtype_of(p[:end])
    if dt is None:
        return ("?",)           # no argument matches it
    if end == len(p):
        return ("s", dt)        # an np.void argument, as _arg_type sees it
    dims = [d.strip() for d in p[end + 1:p.rindex("]")].split(",")]
    lay = "C" if dims[-1] == "::1" else "F" if len(dims) > 1 and dims[0] == "::1" else "A"
    return ("a", dt, len(dims), lay)


def _conversion(t, p):
    """How an argument of type t reaches parameter p: 0 exactly, 1 by
    promotion (a wider type of the same kind), 2 safely, 3 unsafely (a
    number only), None not at all."""
    import numpy as np
    if p[0] == "p":
        # a raw pointer takes an address: an integer (Numba's CPointer argument)
        return 0 if t is not None and t[0] == "s" and t[1].kind in "iu" else None
    if t is None or t[0] != p[0]:
        return None
    if t[0] == "t":
        if len(t[1]) != len(p[1]):
            return None
        scores = [_conversion(a, b) for a, b in zip(t[1], p[1])]
        return None if None in scores else max(scores, default=0)
    if t[0] == "a":
        if t[1] != p[1] or t[2] != p[2] or p[3] not in ("A", t[3]):
            return None
        return 0 if p[3] == t[3] else 2
    src, dst = t[1], p[1]
    if src == dst:
        return 0
    if src.kind == "c" and dst.kind != "c":
        return None
    if np.can_cast(src, dst, "safe"):
        return 1 if src.kind == dst.kind else 2
    return 3


def _reinterpretable(t, p):
    """An array of t's rank and layout whose dtype differs from p's but has
    its size: a one-signature dispatcher reads its bytes as p's dtype (Numba
    passes the array's pointer as it is)."""
    return (t is not None and t[0] == "a" and p[0] == "a" and t[1] != p[1]
            and t[1].itemsize == p[1].itemsize and t[2] == p[2] and p[3] in ("A", t[3])
            and not t[1].fields and not p[1].fields)


class _Reinterpreted:
    """A device array's memory seen as another dtype of the same size."""

    def __init__(self, obj, dtype):
        self._obj = obj         # keeps the memory alive for the launch
        cai = dict(obj.__cuda_array_interface__)
        cai["typestr"] = dtype.str
        cai.pop("descr", None)
        self.__cuda_array_interface__ = cai


def _convert(a, t, p):
    """argument a (of type t) for parameter p: a number as p's dtype, a
    tuple element by element, an array of another dtype of the same size
    viewed as p's"""
    import numpy as np
    if t is not None and t[0] == "t":
        return tuple(_convert(x, u, q) for x, u, q in zip(a, t[1], p[1]))
    if _reinterpretable(t, p):
        if isinstance(a, _ArgHint):
            a = a.value
        return a.view(p[1]) if isinstance(a, np.ndarray) else _Reinterpreted(a, p[1])
    if p[0] == "a" or t is None or t[0] != "s" or p[1].names is not None:
        return a                # a record is passed by reference, never converted
    if p[0] == "p":
        return int(a) & 0xFFFFFFFFFFFFFFFF    # the address, packed as 64 bits
    return np.asarray(a).astype(p[1])[()]


def _numba_name(t):
    """A type as Numba prints it in its messages: float64,
    Array(float64, 1, 'C', False, aligned=True), UniTuple(int64 x 2)"""
    if t is None:
        return "pyobject"
    if t[0] == "t":
        names = [_numba_name(u) for u in t[1]]
        if names and len(set(names)) == 1:
            return f"UniTuple({names[0]} x {len(names)})"
        return "Tuple(" + ", ".join(names) + ")"
    if t[0] == "p":
        return f"CPointer({t[1]})"
    if t[0] == "s":
        return "bool" if t[1].kind == "b" else str(t[1])
    dt = "bool" if t[1].kind == "b" else str(t[1])
    return f"Array({dt}, {t[2]}, '{t[3]}', False, aligned=True)"


def _type_name(t):
    if t is None:
        return "(not an array or a number)"
    if t[0] == "t":
        return "Tuple(" + ", ".join(_type_name(u) for u in t[1]) + ")"
    if t[0] == "s":
        return str(t[1])
    return f"array({t[1]}, {t[2]}d, {t[3]})"


class _ExtLauncher:
    """k[grid, block, ...] of a dispatcher with extensions: each argument goes
    through every extension's prepare_args(ty, val, stream=, retr=) first,
    then the plain launch; the retr callbacks run after it."""

    def __init__(self, launcher, ext, stream):
        self._launcher, self._ext, self._stream = launcher, ext, stream

    def __call__(self, *args):
        retr, out = [], []
        for a in args:
            ty = None
            for e in self._ext:
                ty, a = e.prepare_args(ty, a, stream=self._stream, retr=retr)
            out.append(_arg_value(a, self._stream, retr))
        self._launcher(*out)
        for r in retr:
            r()


class _ExtDispatcher(Dispatcher):
    """A Dispatcher whose extensions list is not empty (see _Extensions)."""

    def __getitem__(self, config):
        cfg = config if isinstance(config, tuple) else (config,)
        stream = cfg[2] if len(cfg) > 2 else 0
        return _ExtLauncher(Kernel.__getitem__(self, config), self.extensions, stream)


# ---- cuda.In / Out / InOut: how a host array goes to a launch ----

class _ArgHint:
    """Numba's argument hints: the array goes to the device for the launch;
    In is not copied back, Out is not copied in, InOut both (what cujit does
    with a plain host array)."""
    copy_in = copy_back = True
    _cujit_explicit_copy = True     # no PerformanceWarning: the copy was asked for

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return f"cuda.{type(self).__name__}({self.value!r})"


class In(_ArgHint):
    """A host array copied to the device for a launch and not back: the
    launch reads a device copy made at the first use."""
    copy_back = False

    @property
    def __cuda_array_interface__(self):
        if is_cuda_array(self.value):
            return self.value.__cuda_array_interface__
        dev = self.__dict__.get("_dev")
        if dev is None:
            import numpy as np
            dev = self.__dict__["_dev"] = to_device(np.asarray(self.value))
        return dev.__cuda_array_interface__


class Out(_ArgHint):
    """A host array the launch writes: copied back after it (cujit also
    copies it in, which Numba skips)."""
    copy_in = False

    def __array__(self, dtype=None, copy=None):
        return self.value


class InOut(_ArgHint):
    """A host array copied in and back, as cujit does with any host array."""

    def __array__(self, dtype=None, copy=None):
        return self.value


def _arg_value(a, stream, retr):
    """An argument as the launch takes it: a hint (cujit's, or Numba's by
    its class name) becomes a device array, copied back after the launch
    through retr where the hint says so."""
    name = type(a).__name__
    if not (isinstance(a, _ArgHint) or (name in ("In", "Out", "InOut") and hasattr(a, "value"))):
        return a
    host = a.value
    if hasattr(host, "__cuda_array_interface__"):
        return host
    import numpy as np
    host_arr = np.asarray(host)
    copy_in = getattr(a, "copy_in", name != "Out")
    copy_back = getattr(a, "copy_back", name != "In")
    dev = to_device(host_arr, stream) if copy_in else device_array_like(host_arr, stream)
    if copy_back:
        retr.append(lambda: dev.copy_to_host(host_arr, stream=_stream(stream)))
    return dev


def _by_name(module, qualname):
    """The object at module.qualname (a pickled Dispatcher)."""
    import importlib
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _rebuild(func, device, options, sigs, specialized):
    """A Dispatcher from its pickled parts (Dispatcher.__reduce__)."""
    d = _make(func, device, options)
    for s in sigs or ():
        d._eager(s)
    if sigs and not device:
        d._by_signature = True
    if specialized:
        d.__dict__["_specialized"] = True
    return d


def _has_enum(args):
    """an Enum member among args or inside their tuples"""
    import enum
    return any(isinstance(a, enum.Enum) or (isinstance(a, tuple) and _has_enum(a))
               for a in args)


def _is_signature_value(s):
    """s is a signature object or a non-empty tuple of Numba types, not an
    example tuple argument"""
    if _ntypes.is_signature(s):
        return True
    return (isinstance(s, (tuple, list)) and len(s) > 0
            and all(_ntypes._is_type(t) and not isinstance(t, str) for t in s))


def _sig(signature):
    """Numba passes signatures as strings, signature objects (void(float32[:],
    int32), cujit.cuda's or numba's) or tuples of argument types.  A kernel
    takes datetime64 / timedelta64 as int64 counts."""
    text = _ntypes.signature_string(signature)
    if "datetime64" in text or "timedelta64" in text:
        import re
        text = re.sub(r"\b(datetime64|timedelta64)(\[\w*\])?", "int64", text)
    return text


def _check_void(signature, what="a kernel"):
    """Numba's rule: a kernel's signature returns void (or gives no return
    type: a tuple of argument types)."""
    ret = _ntypes.return_type_of(signature)
    if ret not in (None, "void", "none"):
        raise TypeError(f"{what} must have void return type, but the signature "
                        f"{_sig(signature)} returns {ret}: a kernel writes its results into "
                        "array arguments; a function that returns a value is a device "
                        "function (cuda.jit(sig, device=True))")


def _make(func, device, options):
    d = Dispatcher(func, device=device, **_kernel_options(options))
    d._options = dict(options)
    d._numba_warnings = True
    return d


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


def jit(func_or_sig=None, device=False, inline=False, link=None, debug=None, opt=None,
        lineinfo=False, cache=False, fastmath=False, max_registers=None, boundscheck=None,
        launch_bounds=None, shared_memory_carveout=None, **kws):
    """``@cuda.jit``, ``@cuda.jit()``, ``@cuda.jit("void(float32[:], int32)")``, a
    list of signatures (each compiled at once), ``device=True`` for device
    functions.  ``launch_bounds=`` (an int or up to three) emits
    ``__launch_bounds__``; ``shared_memory_carveout=`` (a percentage, "MaxL1",
    "MaxShared", "default") is set on the function at load.  Numba's other
    options are accepted (see README, Numba's spelling); ``link=`` (paths
    or code objects: CUDA C++, PTX, cubin, fatbin, object, archive) defines
    the functions declared with cuda.declare_device that the kernel calls."""
    link = _check_link(link, device, cache)
    debug, opt = _warnings.check_options(debug, opt, lineinfo)
    for k in kws:
        if k not in _ACCEPTED:
            raise TypeError(f"cuda.jit() got an unexpected keyword argument '{k}'")
    bounds = _launch_bounds(launch_bounds)
    carveout = _carveout(shared_memory_carveout)
    options = dict(kws, inline=inline, debug=debug, opt=opt, lineinfo=lineinfo, cache=cache,
                   fastmath=fastmath, max_registers=max_registers, boundscheck=boundscheck,
                   launch_bounds=bounds, shared_memory_carveout=carveout)
    if link:
        options["link"] = link      # read at each compile: Dispatcher.__cujit_link__
    extensions = list(options.pop("extensions", None) or ())
    sigs = None
    if isinstance(func_or_sig, (str, list, tuple)) or _ntypes.is_signature(func_or_sig):
        # a list holds signatures; a tuple is one signature (its argument types), as is
        # void(float32[:], int32)
        sigs = list(func_or_sig) if isinstance(func_or_sig, list) else [func_or_sig]
        specialized = not isinstance(func_or_sig, list)
        func_or_sig = None

    for s in sigs or ():
        if not device:
            _check_void(s)

    def wrap(func):
        if not callable(func):
            raise TypeError("cuda.jit takes a function, a signature string or a list of them")
        if isinstance(func, Kernel):
            func = func.py_func     # jit(jit(f)), as Numba allows: f compiled with these options
        if cache and not device and isinstance(func, _pytypes.FunctionType):
            from cujit import _pickle
            _pickle.check_cacheable(func)
        d = Dispatcher(func, device=device, **_kernel_options(options))
        d._options = options
        d._numba_warnings = True
        for s in sigs or ():
            d._eager(_sig(s))
        if sigs and not device:
            d._by_signature = True      # Numba compiles no other signature
        if sigs and specialized:
            d.__dict__["_specialized"] = True
        if extensions:
            d.extensions = extensions
        return d
    if func_or_sig is not None:
        if not callable(func_or_sig):
            raise TypeError("cuda.jit takes a function, a signature (a string, an object "
                            "such as void(float32[:]) or a tuple of argument types) or a "
                            "list of them")
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
    return cujit.to_device(obj, stream=_stream(stream))._numba_rules()


def device_array(shape, dtype=float, strides=None, order="C", stream=0):
    """An uninitialised DeviceArray (strides= must be None)."""
    if strides is not None:
        raise NotImplementedError("cuda.device_array(strides=...): give order= instead")
    import numpy as np
    return cujit.empty(shape, dtype=np.dtype(dtype), order=order,
                       stream=_stream(stream))._numba_rules()


def device_array_like(ary, stream=0):
    """An uninitialised contiguous DeviceArray of ary's shape and dtype
    (Fortran order for a Fortran-only contiguous ary, else C)."""
    return cujit.empty(ary.shape, dtype=ary.dtype, order=_like_order(ary),
                       stream=_stream(stream))._numba_rules()


def pinned_array(shape, dtype=float, strides=None, order="C"):
    """A NumPy array (cujit copies host arrays itself; this one is not
    page-locked)."""
    import numpy as np
    if strides is not None:
        raise NotImplementedError("cuda.pinned_array(strides=...): give order= instead")
    return np.empty(shape, dtype, order=order)


def _f_only(a):
    flags = getattr(a, "flags", None)
    return flags is not None and flags["F_CONTIGUOUS"] and not flags["C_CONTIGUOUS"]


def _like_order(ary):
    """The order of a new contiguous array like ary, as Numba picks it: 'F'
    for a Fortran-only contiguous array, or a view of one whose strides grow
    along its axes (not transposed); else 'C'."""
    if _f_only(ary):
        return "F"
    flags = getattr(ary, "flags", None)
    if flags is None or flags["C_CONTIGUOUS"] or not _f_only(getattr(ary, "base", None)):
        return "C"
    st = [abs(s) for s, n in zip(ary.strides, ary.shape) if n > 1]
    return "F" if st == sorted(st) else "C"


def pinned_array_like(ary):
    """A NumPy array of ary's shape and dtype (ary may be on the device)."""
    import numpy as np
    return np.empty(ary.shape, ary.dtype, order=_like_order(ary))


def mapped_array(shape, dtype=float, strides=None, order="C", stream=0, portable=False,
                 wg=False):
    """A NumPy array in page-locked host memory mapped into the device:
    kernels read and write it in place (cujit._hostmem)."""
    from cujit import _hostmem
    return _hostmem.mapped_array(shape, dtype, strides, order, stream, portable, wg)


def mapped_array_like(ary, stream=0, portable=False, wg=False):
    """A mapped array of ary's shape and dtype (see mapped_array)."""
    return mapped_array(ary.shape, ary.dtype, order=_like_order(ary), stream=stream,
                        portable=portable, wg=wg)


def managed_array(shape, dtype=float, strides=None, order="C", stream=0, attach_global=True):
    """A NumPy array in managed memory (cuMemAllocManaged): the host uses it
    as NumPy (after a synchronize, once kernels wrote it), kernels take it in
    place (cujit._hostmem)."""
    from cujit import _hostmem
    return _hostmem.managed_array(shape, dtype, strides, order, stream, attach_global)


def pinned(*arrays):
    """``with cuda.pinned(a):``: a no-op (cujit does not page-lock host arrays)."""
    import contextlib
    return contextlib.nullcontext()


class Stream(cujit.Stream):
    """What cuda.stream() gives: a cujit.Stream with Numba's Stream methods
    (``auto_synchronize``).  A Python subclass, so Numba-style code can also
    patch its methods: the built-in and external streams look
    ``synchronize`` up here too (Numba's tests mock it on this class)."""

    external = False
    _synchronize = cujit.Stream.synchronize

    def synchronize(self):
        """Waits for the stream's work."""
        return self._synchronize()

    def auto_synchronize(self):
        """``with s.auto_synchronize():``: synchronizes the stream on exit."""
        return _synchronizing(self)


def _synchronizing(s):
    import contextlib

    @contextlib.contextmanager
    def cm():
        yield s
        s.synchronize()
    return cm()


def stream():
    return Stream()


class _BuiltinStream:
    """One of CUDA's built-in streams (Numba's default_stream(),
    legacy_default_stream(), per_thread_default_stream()) or a stream cujit
    did not make (external_stream): anything that takes a stream takes it
    (``handle``, ``__cuda_stream__``)."""

    def __init__(self, handle, name, external=False):
        self.handle = handle
        self._name = name
        self.external = external

    @property
    def synchronize(self):
        """Stream.synchronize (cuda.cudadrv.driver.Stream's), bound to this
        stream: a mock patched on that class is called as it is"""
        f = Stream.synchronize
        return f.__get__(self) if isinstance(f, _pytypes.FunctionType) else f

    def auto_synchronize(self):
        """``with s.auto_synchronize():``: synchronizes on exit."""
        return _synchronizing(self)

    def _synchronize(self):
        """Waits for the work submitted to the stream so far: an event
        recorded on it, waited for."""
        if cujit.is_available():
            e = cujit.Event(timing=False)
            e.record(self)
            e.synchronize()

    def __cuda_stream__(self):
        return (0, self.handle)

    def __int__(self):
        return self.handle

    def __eq__(self, other):
        return isinstance(other, _BuiltinStream) and other.handle == self.handle

    def __hash__(self):
        return hash(self.handle)

    def __repr__(self):
        return f"<cujit.cuda {self._name} stream 0x{self.handle:x}>"


def default_stream():
    """The default stream (handle 0, the legacy one unless the program was
    built for per-thread default streams)."""
    return _BuiltinStream(0, "default")


def legacy_default_stream():
    return _BuiltinStream(1, "legacy default")        # CU_STREAM_LEGACY


def per_thread_default_stream():
    return _BuiltinStream(2, "per-thread default")    # CU_STREAM_PER_THREAD


def external_stream(ptr):
    """A stream made elsewhere, given as its CUstream handle (an int)."""
    return _BuiltinStream(int(ptr), "external", external=True)


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


def is_bfloat16_supported():
    """Numba's answer: the current device has compute capability 8.0 or more.
    (cujit's bfloat16 is plain C++ on 16-bit integers, which any device runs;
    Numba's tests and users ask this before they use cuda.bf16.)  False where
    no GPU can be reached."""
    try:
        return tuple(get_current_device().compute_capability) >= (8, 0)
    except cujit.CudaError:
        return False


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


# ---- devices and contexts: cuda.gpus, cuda.current_context() ----

class _GPUs:
    """``cuda.gpus``: the devices, list-like (``len``, ``gpus[i]``,
    iteration); each is a cujit.Device, which as a context manager makes
    itself current and restores the previous device (``with
    cuda.gpus[1]:``)."""

    def _count(self):
        try:
            return cujit.device_count()
        except Exception:           # no driver: no GPUs
            return 0

    def __len__(self):
        return self._count()

    def __getitem__(self, i):
        n = self._count()
        if isinstance(i, slice):
            return [cujit.Device(j) for j in range(n)[i]]
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"cuda.gpus[{i}]: there are {n} GPUs")
        return cujit.Device(i)

    def __iter__(self):
        return iter([cujit.Device(j) for j in range(self._count())])

    @property
    def current(self):
        """The current device."""
        return cujit.get_device()

    def __repr__(self):
        return f"<cujit.cuda.gpus: {self._count()} devices>"


gpus = _GPUs()


class _Context:
    """What ``cuda.current_context()`` gives: the current device's (primary)
    context as far as cujit has one."""

    def __init__(self, device):
        self.device = device

    def get_memory_info(self):
        """(free, total) bytes of the device."""
        info = cujit.memory_info()
        return _MemoryInfo(info["free"], info["total"])

    def synchronize(self):
        with self.device:
            cujit.synchronize()

    def reset(self):
        """Synchronizes and gives the memory cujit's pools hold but do not use
        back to the driver (cujit's context and compiled kernels stay)."""
        with self.device:
            cujit.release_memory()

    def get_ipc_handle(self, memory):
        """An IpcHandle of memory (a device array's gpu_data, the array, or a
        device address) that another process opens (cujit._ipc)."""
        from cujit import _ipc
        with self.device:
            return _ipc.memory_handle(memory)

    def __eq__(self, other):
        return isinstance(other, _Context) and other.device.id == self.device.id

    def __hash__(self):
        return hash(self.device.id)

    def __repr__(self):
        return f"<cujit.cuda context of device {self.device.id}>"


class _MemoryInfo(tuple):
    """(free, total), also by name."""

    def __new__(cls, free, total):
        return super().__new__(cls, (free, total))

    free = property(lambda self: self[0])
    total = property(lambda self: self[1])


def current_context(devnum=None):
    """The current device's context (after select_device(devnum) when given)."""
    if devnum is not None:
        select_device(devnum)
    return _Context(cujit.get_device())


def get_context(devnum=None):
    return current_context(devnum)


# ---- arrays of other libraries ----

def get_ipc_handle(ary):
    """ary.get_ipc_handle(): an IpcArrayHandle another process opens."""
    return ary.get_ipc_handle()


def open_ipc_array(handle, shape, dtype, strides=None, offset=0):
    """``with cuda.open_ipc_array(handle, shape, dtype) as arr:``, the array
    another process shared (cujit._ipc)."""
    from cujit import _ipc
    return _ipc.open_ipc_array(handle, shape, dtype, strides, offset)


def is_cuda_array(obj):
    return hasattr(obj, "__cuda_array_interface__")


def _producer_stream(desc):
    """the stream a __cuda_array_interface__ names (v3's 'stream': None, or
    a handle, 1 and 2 the legacy and per-thread default streams) as Numba's
    consumer takes it: an external stream object, None for none"""
    h = desc.get("stream") if isinstance(desc, dict) else None
    return external_stream(h) if isinstance(h, int) and h not in (0, 1, 2) else None


def as_cuda_array(obj, sync=True):
    """A cujit.DeviceArray viewing the memory of obj (its
    __cuda_array_interface__), no copy; obj stays alive while the view
    does.  The stream the interface names becomes the view's default stream
    (``.stream``, an external stream), as in Numba."""
    if not is_cuda_array(obj):
        raise TypeError("as_cuda_array: the object has no __cuda_array_interface__; copy "
                        "host data with cuda.to_device()")
    if isinstance(obj, cujit.DeviceArray):
        return obj if obj._numba else obj[...]._numba_rules()
    stream = _producer_stream(obj.__cuda_array_interface__)
    if sync and stream is not None and _cai_sync():
        stream.synchronize()        # Numba's consumer rule: the data is ready
    return cujit._cujit._as_device_array(obj, stream)._numba_rules()


def _cai_sync():
    """Numba's CUDA_ARRAY_INTERFACE_SYNC: whether importing an array whose
    interface names a stream waits for that stream (numba's config when
    numba is loaded, else NUMBA_CUDA_ARRAY_INTERFACE_SYNC, default on)"""
    for name in ("numba.cuda.core.config", "numba.core.config"):
        config = sys.modules.get(name)
        if config is not None and hasattr(config, "CUDA_ARRAY_INTERFACE_SYNC"):
            return bool(config.CUDA_ARRAY_INTERFACE_SYNC)
    return not _env_off(os.environ.get("NUMBA_CUDA_ARRAY_INTERFACE_SYNC", "1"))


def _launch_sync(handle):
    """Numba's rule at a cuda.jit launch (module/launch.c calls this for an
    argument whose __cuda_array_interface__ names a stream): the producer's
    stream is synchronized first, unless CUDA_ARRAY_INTERFACE_SYNC is off.
    The legacy and per-thread default streams (1, 2) are left, as in
    as_cuda_array: the launch is already ordered after them."""
    if handle not in (1, 2) and _cai_sync():
        external_stream(handle).synchronize()


def _env_off(v):
    return v.strip().lower() in ("0", "false", "no", "off")


class _Interface:
    """An object holding a __cuda_array_interface__ dict (the base of
    from_cuda_array_interface's views)."""

    def __init__(self, desc, owner):
        self.__cuda_array_interface__ = desc
        self.owner = owner


def from_cuda_array_interface(desc, owner=None, sync=True):
    """A cujit.DeviceArray over the memory a __cuda_array_interface__ dict
    describes, no copy; owner, if given, stays alive while the view does."""
    if not isinstance(desc, dict):
        raise TypeError("from_cuda_array_interface takes a __cuda_array_interface__ dict")
    if desc.get("mask") is not None:
        raise NotImplementedError("Masked arrays are not supported: cujit's arrays have no "
                                  "mask; apply it with cujit.where first")
    stream = _producer_stream(desc)
    if sync and stream is not None and _cai_sync():
        stream.synchronize()
    return cujit._cujit._as_device_array(_Interface(desc, owner), stream)._numba_rules()


class _DeviceArrayModule:
    """cuda.cudadrv.devicearray / cuda.devicearray: Numba's array class names
    (cujit's DeviceArray, usable with isinstance)."""
    DeviceNDArray = cujit.DeviceArray
    DeviceNDArrayBase = cujit.DeviceArray
    DeviceRecord = cujit.DeviceArray

    @staticmethod
    def is_cuda_ndarray(obj):
        return isinstance(obj, cujit.DeviceArray)

    @staticmethod
    def auto_device(obj, stream=0, copy=True, user_explicit=False):
        """(device array, whether it was copied): obj itself when it is on the
        device, else a copy.  A host array whose elements are not one
        contiguous block (x[::2]; axes of stride 0 aside) is a ValueError, as
        in Numba: it cannot be copied as one memory region."""
        if is_cuda_array(obj):
            return obj, False
        import numpy as np
        ary = np.asarray(obj)
        core = ary[tuple(0 if s == 0 else slice(None) for s in ary.strides)]
        if not core.flags.c_contiguous and not core.flags.f_contiguous:
            raise ValueError("auto_device(): the array is not contiguous (its strides are "
                             f"{ary.strides} for shape {ary.shape}), so it cannot be copied "
                             "as one memory region; pass np.ascontiguousarray(a)")
        return to_device(ary, stream), True

    @staticmethod
    def from_array_like(ary, stream=0, gpu_data=None):
        """A new device array of ary's shape, strides and dtype (not filled)."""
        return device_array_like(ary, stream)

    def __repr__(self):
        return "<cujit.cuda.cudadrv.devicearray>"


class CudaSupportError(ImportError):
    """No CUDA driver or device (Numba's cuda.cudadrv.error.CudaSupportError)."""


# numba.core.errors.TypingError: a kernel's type error at compile time
TypingError = cujit.CompileTypeError
# numba.cuda.core.errors' warnings (cujit/_warnings.py), and the switches that silence
# them under Numba's names (cuda.config.CUDA_LOW_OCCUPANCY_WARNINGS = 0)
NumbaPerformanceWarning = _warnings.PerformanceWarning
NumbaInvalidConfigWarning = _warnings.InvalidConfigWarning
config = _warnings.config
_warnings._push()
cujit._cujit._set_cai_sync(_launch_sync)
# numba.core.errors.NumbaWarning: what cujit warns about at compile time (a
# variable read where no path assigned it: Numba's "Detected uninitialized
# variable") is a UserWarning
NumbaWarning = UserWarning


class _DriverModule:
    """cuda.cudadrv.driver: Numba's error classes and stream class names."""
    CudaAPIError = cujit.CudaError
    CudaDriverError = cujit.CudaError
    LinkerError = cujit.CompileError
    CudaSupportError = CudaSupportError
    Stream = Stream              # cuda.stream()'s class (a cujit.Stream)
    Event = cujit.Event
    Device = cujit.Device

    @staticmethod
    def _have_nvjitlink():
        return False

    @property
    def IpcHandle(self):            # noqa: N802  (Numba's class name)
        from cujit import _ipc
        return _ipc.IpcHandle

    @staticmethod
    def device_to_host(dst, src, size, stream=0):
        """Copies size bytes from device address src (an int, an object with
        device_pointer, or a device array) into the host array dst."""
        import numpy as np
        host = np.asarray(dst).reshape(-1).view(np.uint8)
        if size > host.nbytes:
            raise ValueError(f"device_to_host: {size} bytes do not fit the {host.nbytes} "
                             "bytes of the destination")
        _raw_device(src, size).copy_to_host(host[:size])

    @staticmethod
    def host_to_device(dst, src, size, stream=0):
        """Copies size bytes of the host array src to device address dst."""
        import numpy as np
        host = np.ascontiguousarray(src).reshape(-1).view(np.uint8)
        _raw_device(dst, size).copy_to_device(host[:size])

    def __repr__(self):
        return "<cujit.cuda.cudadrv.driver>"


class _CudadrvModule:
    """cuda.cudadrv: the parts of Numba's driver package users touch."""
    devicearray = _DeviceArrayModule()
    driver = _DriverModule()
    devices = gpus
    nvrtc = _extern.NvrtcModule()

    class error:            # noqa: N801  (Numba's module name)
        CudaSupportError = CudaSupportError
        CudaDriverError = cujit.CudaError

    def __repr__(self):
        return "<cujit.cuda.cudadrv>"


def _raw_device(ptr, size):
    """a uint8 DeviceArray over size bytes at a device address"""
    if hasattr(ptr, "__cuda_array_interface__"):
        ptr = ptr.__cuda_array_interface__["data"][0]
    ptr = int(getattr(ptr, "device_pointer", ptr))
    desc = {"shape": (int(size),), "typestr": "|u1", "data": (ptr, False), "version": 3,
            "strides": None, "stream": None}
    return cujit._cujit._as_device_array(_Interface(desc, None))


class _DevicesModule:
    """cuda.devices (numba.cuda.cudadrv.devices): the GPUs and contexts."""
    gpus = None         # set below

    @staticmethod
    def get_context(devnum=None):
        return current_context(devnum)

    def __repr__(self):
        return "<cujit.cuda.devices>"


cudadrv = _CudadrvModule()
devicearray = cudadrv.devicearray
driver = cudadrv.driver
devices = _DevicesModule()
devices.gpus = gpus
DeviceNDArray = cujit.DeviceArray
CudaAPIError = cujit.CudaError
CudaDriverError = cujit.CudaError       # numba.cuda.cudadrv.error's (a forked child's)


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


# `from cujit.cuda.random import ...`, Numba's module path with numba renamed:
# cujit.cuda is a module, so the import system gets an (empty) __path__ and a
# finder that gives cujit.random under that name (it is imported at its first
# use: it defines device functions with this module's cuda.jit)
__path__ = []


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
    "Fatbin", "Cubin", "Archive", "Object", "LTOIR"} | set(_ntypes.EXPORTED))



# ---- cuda.compile_ptx / compile: code for use outside cujit ----

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


def _return_type(text):
    """cujit's return type text ("float32", "void", "Tuple(int32, int32)")
    as a type object of cujit.cuda.types"""
    if text == "void":
        return _ntypes.TYPES["none"]
    if text.startswith("Tuple(") and text.endswith(")"):
        parts, depth, cur = [], 0, ""
        for ch in text[6:-1]:
            depth += ch == "("
            depth -= ch == ")"
            if ch == "," and depth == 0:
                parts.append(cur.strip())
                cur = ""
            else:
                cur += ch
        parts.append(cur.strip())
        return _ntypes.Tuple([_return_type(p) for p in parts if p])
    return _ntypes.TYPES.get(text, text)


def compile(pyfunc, sig, debug=None, lineinfo=False, device=True, fastmath=False, cc=None,
            opt=None, abi="c", abi_info=None, output="ptx", forceinline=False,
            launch_bounds=None, **kws):
    """Numba's cuda.compile: ``(code, return_type)`` for pyfunc compiled for
    sig (a string, a signature object or a tuple of argument types).
    device=True (the default here, as in Numba) gives a device function as
    an ``extern "C"`` function (a ``.visible .func``) named pyfunc's name or
    ``abi_info={"abi_name": ...}``; device=False a kernel (``.entry``).
    output='ptx' (str), 'cubin' (bytes) or 'ltoir' (bytes: NVRTC's -dlto
    LTO-IR, for nvJitLink; forceinline=True makes a device function's entry
    __forceinline__ there).  cc=(major, minor) picks the target, else the
    current GPU's (sm_90 with none); debug=True compiles with -G,
    lineinfo=True with -lineinfo, fastmath=True with --use_fast_math,
    opt=False with NVVM's -opt=0."""
    if abi not in ("c", "numba"):
        raise NotImplementedError(f"Unsupported ABI: {abi}")
    if abi == "c" and not device:
        raise NotImplementedError("The C ABI is not supported for kernels")
    if output not in _OUTPUTS:
        raise NotImplementedError(f"Unsupported output type: {output}: give 'ptx', 'cubin' "
                                  "or 'ltoir'")
    if forceinline and output != "ltoir":
        raise ValueError("Can only designate forced inlining in LTO-IR: give "
                         "output='ltoir' with forceinline=True")
    if not device:
        _check_void(sig)
    debug, opt = _warnings.check_options(debug, opt, lineinfo)
    options = _build_options(debug=debug, lineinfo=lineinfo, fastmath=fastmath, opt=opt)
    if launch_bounds is not None:
        kws["launch_bounds"] = launch_bounds
    disp = jit(device=device, **kws)(pyfunc) if kws else Dispatcher(pyfunc, device=device)
    code, ret = disp._compile_binary(_sig(sig), _arch(cc), options, _OUTPUTS.index(output),
                                     _entry_name(pyfunc, abi_info), bool(forceinline))
    return code, _return_type(ret)


def compile_ptx(pyfunc, sig, debug=None, lineinfo=False, device=False, fastmath=False,
                cc=None, opt=None, abi="numba", abi_info=None, forceinline=False,
                launch_bounds=None, **kws):
    """Numba's cuda.compile_ptx: ``(ptx, return_type)``; a kernel unless
    device=True (see compile)."""
    return compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device,
                   fastmath=fastmath, cc=cc, opt=opt, abi=abi, abi_info=abi_info,
                   output="ptx", forceinline=forceinline, launch_bounds=launch_bounds, **kws)


def compile_for_current_device(pyfunc, sig, debug=None, lineinfo=False, device=True,
                               fastmath=False, opt=None, abi="c", abi_info=None,
                               output="ptx", **kws):
    """cuda.compile for the current GPU's compute capability"""
    return compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device,
                   fastmath=fastmath, cc=None, opt=opt, abi=abi, abi_info=abi_info,
                   output=output, **kws)


def compile_ptx_for_current_device(pyfunc, sig, debug=None, lineinfo=False, device=False,
                                   fastmath=False, opt=None, abi="numba", abi_info=None,
                                   **kws):
    """cuda.compile_ptx for the current GPU's compute capability"""
    return compile_ptx(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device,
                       fastmath=fastmath, cc=None, opt=opt, abi=abi, abi_info=abi_info,
                       **kws)


def compile_all(pyfunc, sig, debug=None, lineinfo=False, device=True, fastmath=False,
                cc=None, opt=None, abi="c", abi_info=None, output="ltoir", forceinline=False,
                launch_bounds=None, **kws):
    """Numba's cuda.compile_all: ``([code], return_type)``, the code of pyfunc
    and of the foreign files it links (cujit compiles those into pyfunc's own
    program: a list of one).  LTO-IR by default, as Numba's."""
    code, ret = compile(pyfunc, sig, debug=debug, lineinfo=lineinfo, device=device,
                        fastmath=fastmath, cc=cc, opt=opt, abi=abi, abi_info=abi_info,
                        output=output, forceinline=forceinline, launch_bounds=launch_bounds,
                        **kws)
    return [code], ret


# ---- numba.cuda.misc.special and numba.cuda.kernels.transpose ----

def literal_unroll(container):
    """Numba's literal_unroll: in a kernel, `for x in literal_unroll(t)` over
    a global or closure tuple reads the loop body once per item, each typed
    on its own (arrays of different shapes and dtypes); in Python, t."""
    return container


literal_unroll.__cujit_builtin__ = "literal_unroll"     # known by name (the front key)


def transpose(a, b=None):
    """numba.cuda.kernels.transpose.transpose: the transpose of the 2-d
    array a written into b (a new C-order device array when not given),
    which is returned; any dtype, records included."""
    import numpy as np
    if not isinstance(a, cujit.DeviceArray):
        a = to_device(a)
    if a.ndim != 2:
        raise ValueError("transpose() takes a 2-d array, got %d dimensions" % a.ndim)
    if b is None:
        b = device_array((a.shape[1], a.shape[0]), a.dtype)
    elif tuple(b.shape) != (a.shape[1], a.shape[0]):
        raise ValueError("transpose(): b has shape %s, the transpose of a has %s"
                         % (tuple(b.shape), (a.shape[1], a.shape[0])))
    if a.dtype.names is None or tuple(b.strides) == tuple(a.strides[::-1]):
        b[...] = a.T        # numbers and bool, or one layout: the stdlib's copy
        return b
    # records: their bytes, element by element (a 28-byte record is no number)
    s = a.dtype.itemsize
    ab = a._view(a.shape + (s,), a.strides + (1,), 0, np.uint8)
    bb = b._view(b.shape + (s,), b.strides + (1,), 0, np.uint8)
    _transpose_bytes[((a.shape[1] + 15) // 16, (a.shape[0] + 15) // 16), (16, 16)](ab, bb)
    return b


@jit
def _transpose_bytes(a, b):
    """b[j, i, :] = a[i, j, :] for arrays of bytes (records' elements)"""
    j, i = grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        for k in range(a.shape[2]):
            b[j, i, k] = a[i, j, k]


class _NumpySupport:
    """numba.cuda.np.numpy_support's conversions between NumPy dtypes and
    the type objects of cujit.cuda (numba's own reject cujit's objects)."""

    from_dtype = staticmethod(_ntypes.from_dtype)

    @property
    def numpy_version(self):
        """NumPy's version as a tuple of ints, (2, 4) (Numba's tests pick
        the NumPy behaviour they expect by it)."""
        import numpy as np
        return tuple(int(p) for p in np.__version__.split(".")[:2])

    @staticmethod
    def as_dtype(nbtype):
        """The NumPy dtype of a number or boolean type object (cujit's or
        numba's); NotImplementedError for anything else, as Numba raises."""
        import numpy as np
        dt = getattr(nbtype, "dtype", None)
        if isinstance(nbtype, _ntypes.Scalar) or (_ntypes._from_numba(nbtype)
                                                   and isinstance(dt, np.dtype)):
            return dt
        try:
            return np.dtype(str(nbtype))
        except TypeError:
            raise NotImplementedError("%r cannot be represented as a NumPy dtype"
                                      % (nbtype,)) from None


numpy_support = _NumpySupport()
# numba.cuda.np.numpy_support.carray / farray: cuda.carray / farray
numpy_support.carray = sys.modules[__name__].carray
numpy_support.farray = sys.modules[__name__].farray
