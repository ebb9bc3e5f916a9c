"""The cases of tests/unseen/numba_api.py under cujit without a GPU, run by
tests/test_unseen_numba_api_nogpu.py in a fresh process against the fake
libcuda:

    python unseenapi_scenarios.py run_cases [NAME ...]

Each case is built with `from cujit import cuda` and launched as on a GPU:
its kernels compile (NVRTC), and the fake driver calls fake_launch_hook on
every launch, where this file compiles the launched kernel's CUDA for the
host with the shim of tests/test_kernels_host.py and runs it on the
parameters cujit packed (device memory is host memory there).  A kernel
whose meaning needs threads running together (barriers, shuffles, votes,
shared memory) or the GPU's own instructions is compiled and not run.

One line per case: `CASE name passed`, `CASE name compiled (why it did not
run)` or `CASE name failed: the error`, then `run_cases ok`."""
import ctypes
import hashlib
import io
import os
import re
import shutil
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
sys.path.insert(0, TESTS)
sys.path.insert(0, os.path.join(TESTS, "unseen"))

import numpy as np  # noqa: E402

import cujit  # noqa: E402
from cujit import cuda  # noqa: E402
import numba_api  # noqa: E402
from test_kernels_host import (ENTRY, NEEDS_GPU, host_library,  # noqa: E402
                               host_source, split_params)

FAKE = ctypes.CDLL("libcuda.so.1")
HOOK = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                        ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint))
TMP = tempfile.mkdtemp(prefix="cujit-unseenapi-host-")
state = {"kernels": [], "launched": 0, "not_run": [], "failures": []}
_BUILT = {}


def source_of(name):
    """The source holding entry `name` among the current case's kernels."""
    for k in state["kernels"]:
        srcs = k.inspect_cuda()
        for src in srcs.values() if isinstance(srcs, dict) else srcs:
            for e in ENTRY.finditer(src):
                if e.group(1) == name:
                    return src, e.group(1)
    raise AssertionError("no kernel compiled " + name)


def build_entry(src, name):
    key = hashlib.sha1((src + name).encode()).hexdigest()[:16]
    if key not in _BUILT:
        m = [e for e in ENTRY.finditer(src) if e.group(1) == name][0]
        types = [re.sub(r"\w+$", "", p).strip() for p in split_params(m.group(2))]
        _BUILT[key] = host_library(src, name, types, os.path.join(TMP, key))
    return _BUILT[key]


@HOOK
def on_launch(name, params, grid, block):
    try:
        src, entry = source_of(name.decode())
        src = host_source(src)
        needs = [w.strip("(_") for w in NEEDS_GPU if w in src]
        if needs:
            state["not_run"].append(", ".join(needs))
            return
        lib = build_entry(src, entry)
        sys.stdout.flush()
        lib.cj_host_launch(ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p)), grid, block)
        state["launched"] += 1
    except Exception:       # a callback cannot raise: the case fails after the launch
        state["failures"].append(traceback.format_exc())


def captured_run(c, args):
    """c.run(args) with the process's stdout (the host kernels' printf) read
    back."""
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile() as f:
        os.dup2(f.fileno(), 1)
        try:
            c.run(args)
            cuda.synchronize()
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
        f.seek(0)
        return f.read().decode()


def run_case(M, build):
    state.update(kernels=[], launched=0, not_run=[], failures=[])
    c = build()
    state["kernels"] = c.kernels
    args = c.make(np.random.default_rng(20261125))
    before = M.ncopy(args)
    text = captured_run(c, args)
    assert not state["failures"], "".join(state["failures"])
    if state["not_run"]:
        return "compiled (needs a GPU: %s)" % "; ".join(sorted(set(state["not_run"])))
    assert state["launched"], "launched nothing"
    M.compare(c, before, args)
    if c.printed:
        M.compare_printed(c.printed(before), text)
    return "passed"


def run_cases(*names):
    ctypes.c_void_p.in_dll(FAKE, "fake_launch_hook").value = ctypes.cast(on_launch,
                                                                         ctypes.c_void_p).value
    M = numba_api.load(cuda)
    try:
        for build in M.CASES:
            if names and build.__name__ not in names:
                continue
            try:
                what = run_case(M, build)
            except Exception as e:
                detail = traceback.format_exc() if not isinstance(e, cujit.CompileError) else ""
                what = "failed: %s: %s\n%s" % (type(e).__name__, e, detail)
            print("CASE", build.__name__, what.replace("\n", "\n    "), flush=True)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    globals()[sys.argv[1]](*sys.argv[2:])
    print(sys.argv[1], "ok")
