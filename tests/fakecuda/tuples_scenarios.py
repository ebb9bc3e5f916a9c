"""Tuple and namedtuple kernel arguments without a GPU, run by
tests/test_tuples_nogpu.py in a fresh process against the fake libcuda:

    python tuples_scenarios.py run_cases

Device memory is host memory there, and the fake driver calls
fake_launch_hook on every launch: this file compiles the launched kernel's
CUDA (from the kernel's inspect_cuda()) for the host with the shim of
tests/test_kernels_host.py and runs it on the parameters cujit packed.  So
the cases of tests/gpu/test_tuples_gpu.py check, against NumPy, the whole
path: the tuple's key, its arrays read (host arrays copied back), its
struct packed by the runtime at the offsets the C++ compiler gives the
generated struct, and the kernel's code."""
import ctypes
import hashlib
import os
import re
import shutil
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "gpu"))

import cujit  # noqa: E402
import test_tuples_gpu as cases  # noqa: E402
from test_kernels_host import (ENTRY, host_library, host_source,  # noqa: E402
                               split_params)

FAKE = ctypes.CDLL("libcuda.so.1")
HOOK = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                        ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint))
TMP = tempfile.mkdtemp(prefix="cujit-tuples-host-")
launched = []
failures = []
_BUILT = {}


def source_of(name):
    """The source holding entry `name` and the entry's full name (the fake
    driver keeps 63 characters of a name)."""
    for k in vars(cases).values():
        k = getattr(k, "form", k)       # cuda.vectorize's Numba-style wrapper: its form
        if isinstance(k, (cujit.Kernel, cujit.GUFunc, cujit.Vectorize)):
            srcs = k.inspect_cuda()
            for src in srcs.values() if isinstance(srcs, dict) else srcs:
                src = src.split("\n/* staged:")[0]      # barriers: not for this shim
                for e in ENTRY.finditer(src):
                    if e.group(1).startswith(name):
                        return src, e.group(1)
    raise AssertionError("no kernel compiled " + name)


def build_entry(src, name):
    """The entry `name` of src (a kernel's plain or coarsened entry) for the
    host, called with the parameters as cujit packed them."""
    key = hashlib.sha1((src + name).encode()).hexdigest()[:16]
    if key in _BUILT:
        return _BUILT[key]
    m = [e for e in ENTRY.finditer(src) if e.group(1) == name][0]
    types = [re.sub(r"\w+$", "", p).strip() for p in split_params(m.group(2))]  # T *x too
    lib = host_library(src, name, types, os.path.join(TMP, key))
    _BUILT[key] = lib
    return lib


@HOOK
def on_launch(name, params, grid, block):
    try:
        name = name.decode()
        src, name = source_of(name)
        lib = build_entry(host_source(src), name)
        lib.cj_host_launch(ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p)), grid, block)
        launched.append(name)
    except Exception:       # a callback cannot raise: the case fails after the launch
        failures.append(traceback.format_exc())


def run_cases():
    ctypes.c_void_p.in_dll(FAKE, "fake_launch_hook").value = ctypes.cast(on_launch,
                                                                         ctypes.c_void_p).value
    for g in vars(cases).values():
        g = getattr(g, "form", g)       # cuda.guvectorize's Numba-style wrapper: its form
        if isinstance(g, cujit.GUFunc):
            g.stage = "off"     # the staged entry's barriers: gufunc_scenarios.py runs those
    try:
        for case in cases.CASES:
            del launched[:]
            try:
                case()
            finally:
                assert not failures, "".join(failures)
            assert launched, case.__name__ + " launched nothing"
            print(case.__name__, "passed")
    finally:
        shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    globals()[sys.argv[1]]()
    print(sys.argv[1], "ok")
