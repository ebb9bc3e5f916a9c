"""@guvectorize without a GPU, run by tests/test_gufunc_nogpu.py in a fresh
process against the fake libcuda:

    python gufunc_scenarios.py NAME

Device memory is host memory there, and the fake driver calls
fake_launch_hook on every launch: this file compiles the launched kernel's
CUDA (from the gufunc's inspect_cuda()) for the host with the shim of
tests/test_kernels_host.py and runs it on the parameters cujit packed, so
the whole call path (layout checks, broadcasting, strides, out=, packing,
the generated kernel) is checked against NumPy on the CPU."""
import ctypes
import os
import shutil
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "gpu"))

import cujit  # noqa: E402
import test_gufunc_gpu as cases  # noqa: E402
from test_kernels_host import (ENTRY, build, host_source, param_type,  # noqa: E402
                               split_params)

FAKE = ctypes.CDLL("libcuda.so.1")
HOOK = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                        ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint))
TMP = tempfile.mkdtemp(prefix="cujit-gufunc-host-")
launched = []


def gufuncs():
    return [v for v in vars(cases).values() if isinstance(v, cujit.GUFunc)]


def source_of(name):
    for g in gufuncs():
        for src in g.inspect_cuda():
            if 'void %s(' % name in src:
                return src
    raise AssertionError("no gufunc compiled kernel " + name)


@HOOK
def on_launch(name, params, grid, block):
    name = name.decode()
    src = host_source(source_of(name))
    m = [e for e in ENTRY.finditer(src) if e.group(1) == name][0]
    nparams = len([param_type(p) for p in split_params(m.group(2))])
    lib = build(src, name, nparams, TMP)
    lib.cj_host_launch(ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p)), grid, block)
    launched.append(name)


def install():
    ctypes.c_void_p.in_dll(FAKE, "fake_launch_hook").value = ctypes.cast(on_launch,
                                                                         ctypes.c_void_p).value


def run_cases():
    install()
    try:
        for case in cases.CASES:
            case()
            print(case.__name__, "passed")
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    assert launched


if __name__ == "__main__":
    globals()[sys.argv[1]]()
    print("%s ok" % sys.argv[1])
