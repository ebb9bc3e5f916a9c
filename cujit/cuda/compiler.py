"""cuda.compile, compile_ptx, compile_all and their _for_current_device
forms: a function's code (PTX, cubin or LTO-IR) for use outside cujit, and
its return type as a type object of cujit.cuda.types."""

from cujit import _ntypes
from cujit import _warnings
from cujit.cuda.dispatcher import Dispatcher, jit
from cujit.cuda.options import _OUTPUTS, _arch, _build_options, _entry_name
from cujit.cuda.signatures import _check_void, _sig


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
