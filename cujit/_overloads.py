"""The values of a ``@cuda.jit`` dispatcher's ``overloads``: one compiled
signature of a kernel, as Numba's ``overloads[sig]`` gives it (its compiled
kernel object), with what cujit can say about it:

- ``cooperative``: the kernel is launched cooperatively (it uses
  ``cuda.cg.this_grid()``, or calls a function declared with
  ``use_cooperative=True``);
- ``max_cooperative_grid_blocks(blockdim, dynsmemsize=0)``: the most blocks
  of that shape that can be resident at once on the current device, so the
  largest cooperative grid;
- ``inspect_asm()`` (PTX), ``inspect_cuda()`` (cujit's CUDA C++),
  ``inspect_llvm()`` (the CUDA C++ after a note: cujit makes no LLVM IR),
  ``library`` (``get_asm_str()``, ``get_llvm_str()``, ``_linking_files``:
  cujit links no files) and the function attributes (``regs_per_thread``
  ...).

``DeviceCompiled`` is what a device function's ``compile_device(args)``
gives: its extern "C" name as Numba's ``fndesc.mangled_name``, its own
CUDA C++ and PTX.  ``DeviceOverload`` is ``overloads[sig]`` of a signature
a device function (or a kernel called from another) was compiled for in
the kernels that call it: the same, compiled on its own when asked."""

__all__ = ["CompiledKernel", "DeviceCompiled", "DeviceOverload"]

import types as _pytypes

# CU_FUNC_ATTRIBUTE_*, as in cujit.cuda
_ATTR_MAX_THREADS, _ATTR_SHARED, _ATTR_CONST, _ATTR_LOCAL, _ATTR_REGS = range(5)

_LLVM_NOTE = ("// cujit generates CUDA C++ (compiled by NVRTC), not LLVM IR; "
              "inspect_asm() gives the PTX\n")


def _threads(blockdim):
    """a block's thread count: an int or a tuple of one to three ints"""
    dims = (blockdim,) if isinstance(blockdim, int) else tuple(blockdim)
    if not 1 <= len(dims) <= 3 or not all(isinstance(d, int) and d > 0 for d in dims):
        raise ValueError(f"blockdim {blockdim!r}: give a positive int or a tuple of one to "
                         "three positive ints")
    n = 1
    for d in dims:
        n *= d
    return n


class _Library:
    """What Numba's code library gives that cujit can: PTX, the CUDA C++ in
    place of LLVM IR, and no linked files."""

    def __init__(self, kernel):
        self._kernel = kernel
        self._linking_files = []

    def get_asm_str(self, cc=None):
        return self._kernel.inspect_asm()

    def get_llvm_str(self):
        return self._kernel.inspect_llvm()


class _Overload:
    """What an entry of ``dispatcher.overloads`` has whatever it compiled:
    its dispatcher's name and function, its signature, its library."""

    def __init__(self, dispatcher, signature):
        self._dispatcher = dispatcher
        self.signature = signature      # cujit's text of it, the overloads' key
        self.library = _Library(self)
        self._codelibrary = self.library

    @property
    def name(self):
        return self._dispatcher.__name__

    @property
    def py_func(self):
        return self._dispatcher.py_func


class CompiledKernel(_Overload):
    """One compiled signature of a kernel (``dispatcher.overloads[sig]``)."""

    @property
    def cooperative(self):
        return self._dispatcher._cooperative(self.signature)

    def max_cooperative_grid_blocks(self, blockdim, dynsmemsize=0):
        """The most blocks of ``blockdim`` threads (and ``dynsmemsize`` bytes
        of dynamic shared memory each) resident at once on the current
        device: the largest grid a cooperative launch can have."""
        if not isinstance(dynsmemsize, int) or dynsmemsize < 0:
            raise ValueError(f"dynsmemsize {dynsmemsize!r}: give a byte count (an int >= 0)")
        return self._dispatcher._coresident_blocks(_threads(blockdim), dynsmemsize,
                                                   self.signature)

    def inspect_cuda(self):
        return self._dispatcher.inspect_cuda(self.signature)

    def inspect_asm(self, cc=None):
        return self._dispatcher.inspect_ptx(self.signature)

    def inspect_llvm(self):
        return _LLVM_NOTE + self.inspect_cuda()

    def _attribute(self, attr):
        return self._dispatcher.func_attribute(attr, self.signature)

    @property
    def regs_per_thread(self):
        return self._attribute(_ATTR_REGS)

    @property
    def const_mem_size(self):
        return self._attribute(_ATTR_CONST)

    @property
    def shared_mem_per_block(self):
        return self._attribute(_ATTR_SHARED)

    @property
    def local_mem_per_thread(self):
        return self._attribute(_ATTR_LOCAL)

    @property
    def max_threads_per_block(self):
        return self._attribute(_ATTR_MAX_THREADS)

    def __repr__(self):
        return f"<compiled kernel {self.name}{self.signature}>"


class DeviceCompiled:
    """A device function compiled on its own (``compile_device(args)``)."""

    def __init__(self, dispatcher, signature, name, source, return_type):
        self._dispatcher = dispatcher
        self.signature = signature
        self.return_type = return_type
        self.fndesc = _pytypes.SimpleNamespace(mangled_name=name, llvm_func_name=name,
                                               qualname=dispatcher.py_func.__qualname__)
        self._source = source
        self.library = _Library(self)

    def inspect_cuda(self):
        return self._source

    def inspect_llvm(self):
        return _LLVM_NOTE + self._source

    def inspect_asm(self, cc=None):
        return self._dispatcher.inspect_asm(self.signature)

    def __repr__(self):
        return f"<device function {self.fndesc.mangled_name}{self.signature}>"


class DeviceOverload(_Overload):
    """A signature kernels called a function with as a device function
    (``dispatcher.overloads[sig]`` of a device function): its own CUDA C++
    and PTX, compiled when first asked (``compile_device``); a signature
    holding a compile-time argument (a function) has no such text."""

    def __init__(self, dispatcher, signature):
        super().__init__(dispatcher, signature)
        self._compiled = None

    def _device(self):
        if self._compiled is None:
            d = self._dispatcher
            if not d.device:        # a kernel called from another: as a device function
                from cujit import cuda
                d = cuda.jit(device=True)(d.py_func)
            self._compiled = d.compile_device(self.signature)
        return self._compiled

    @property
    def fndesc(self):
        return self._device().fndesc

    def inspect_cuda(self):
        return self._device().inspect_cuda()

    def inspect_llvm(self):
        return self._device().inspect_llvm()

    def inspect_asm(self, cc=None):
        return self._device().inspect_asm(cc)

    def __repr__(self):
        return f"<device function {self.name}{self.signature}>"
