"""One NVRTC compilation timed through ctypes, for the scripts that weigh
what a header or an algorithm adds to compile time (thrust_nvrtc.py,
collectives_nvrtc.py): the toolkit's libnvrtc, no cujit in between."""
import ctypes
import os
import time


def load(home):
    """the toolkit's NVRTC under CUDA home `home`"""
    return ctypes.CDLL(os.path.join(home, "lib64", "libnvrtc.so"))


def compile_ms(nv, src, opts, cubin):
    """(milliseconds, log): one compilation of `src` with `opts` until its PTX
    (or CUBIN) is read back; the log is NVRTC's when it failed, else ''"""
    p = ctypes.c_void_p()
    assert nv.nvrtcCreateProgram(ctypes.byref(p), src.encode(), b"k.cu", 0, None, None) == 0
    arr = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
    t = time.perf_counter()
    r = nv.nvrtcCompileProgram(p, len(opts), arr)
    n = ctypes.c_size_t()
    get_size, get = ((nv.nvrtcGetCUBINSize, nv.nvrtcGetCUBIN) if cubin
                     else (nv.nvrtcGetPTXSize, nv.nvrtcGetPTX))
    if r == 0:
        get_size(p, ctypes.byref(n))
        get(p, ctypes.create_string_buffer(n.value))
    ms = 1e3 * (time.perf_counter() - t)
    log = ""
    if r != 0:
        nv.nvrtcGetProgramLogSize(p, ctypes.byref(n))
        buf = ctypes.create_string_buffer(n.value)
        nv.nvrtcGetProgramLog(p, buf)
        log = buf.value.decode()
    nv.nvrtcDestroyProgram(ctypes.byref(p))
    return ms, log
