"""``@cuda.jit`` and what it makes: the ``Dispatcher``, a cujit.Kernel with
Numba's methods and properties (``overloads``, ``specialize``, ``forall``,
``inspect_asm`` / ``inspect_sass``, ``stats``, the ``get_*`` attributes,
``extensions``), compiled by Numba's typing rules; its pickling
(``__reduce__``, ``_rebuild``) and the launch path of a dispatcher with
extensions."""

import sys
import types as _pytypes

import cujit
from cujit import _ntypes
from cujit import _warnings
from cujit._cujit import Kernel
from cujit._overloads import CompiledKernel, DeviceCompiled, DeviceOverload
from cujit.cuda.memory import _arg_value
from cujit.cuda.options import (_ACCEPTED, _OUT_PTX, _arch, _build_options, _carveout,
                                _check_link, _entry_name, _kernel_options, _launch_bounds)
from cujit.cuda.signatures import (_arg_type, _check_void, _conversion, _convert, _has_enum,
                                   _is_signature_value, _numba_name, _parse_params,
                                   _reinterpretable, _sig, _type_name)


# CU_FUNC_ATTRIBUTE_*: what the Dispatcher's get_* methods read
_ATTR_MAX_THREADS, _ATTR_SHARED, _ATTR_CONST, _ATTR_LOCAL, _ATTR_REGS = range(5)


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
        dev = set(self._callee_signatures)      # compiled as a device function by its callers
        return _SigDict({sig: (DeviceOverload if sig in dev else CompiledKernel)(self, sig)
                         for sig in self.signatures},
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
            sigs = list(getattr(self, "__cujit_signatures__", None) or self.signatures)
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


def _make(func, device, options):
    d = Dispatcher(func, device=device, **_kernel_options(options))
    d._options = dict(options)
    d._numba_warnings = True
    return d


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
