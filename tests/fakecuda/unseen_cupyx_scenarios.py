"""The cupyx.jit cases of tests/unseen/cupyx_kernels.py (or of another
corpus of cupyx_harness.CORPORA: cupyx_more.py) against the fake libcuda, run
by tests/test_unseen_cupyx_nogpu.py (test_unseen_cupyx_more_nogpu.py) in a
fresh process:

    python unseen_cupyx_scenarios.py [--corpus=cupyx_more] [NAME ...]

Each case runs as on a GPU, through cujit's own jit (`from cujit import
jit`, NumPy standing in for the `cupy` the kernels read) with cujit's device
arrays (host memory on the fake driver) and its launch forms, shared_mem=,
stream=.  The fake driver calls fake_launch_hook on every launch: the
launched kernel's CUDA is compiled for the host and run on the parameters
cujit packed.  A kernel with barriers and shared memory only runs with a
host thread per CUDA thread of a block (a std::barrier for __syncthreads);
one with warp shuffles, votes, cub, cooperative groups or thrust is only
compiled (NVRTC, PTX for the fake device), and its values are left to
tests/gpu/test_unseen_cupyx.py.

Prints one line per case: `CASE <name> values` (checked against NumPy),
`CASE <name> compiled` (launched, values not checkable here) or `CASE <name>
error <type>: <message>`."""
import ctypes
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
sys.path.insert(0, TESTS)
sys.path.insert(0, os.path.join(TESTS, "gpu"))
sys.path.insert(0, os.path.join(TESTS, "unseen"))

import numpy as np  # noqa: E402

import cupyx_harness as H  # noqa: E402
from gufunc_scenarios import THREADED_SHIM  # noqa: E402
from test_kernels_host import (CXX, ENTRY, NEEDS_GPU, host_library,  # noqa: E402
                               host_source, param_type, split_params)

from cujit import jit  # noqa: E402

FAKE = ctypes.CDLL("libcuda.so.1")
HOOK = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                        ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint))
TMP = tempfile.mkdtemp(prefix="cujit-unseen-cupyx-")

# what the threaded shim runs: barriers and shared memory; the rest of
# NEEDS_GPU (shuffles, votes, warp barriers, inline PTX) is compiled only
THREADED_OK = ("__syncthreads", "__shared__")
# cujit's cooperative groups, block / warp collectives (jit.cub) and
# jit.thrust: prelude code written for the device
COMPILE_ONLY = re.compile(r"\bcj_(cg|coll|th)_")

# every thread of a block a host thread, blocks in turn over a 3-d grid
THREADED_LAUNCH = r"""
extern "C" void cj_host_launch(void **args, const unsigned *grid, const unsigned *block,
                               unsigned shmem)
{
    gridDim = {grid[0], grid[1], grid[2]};
    blockDim = {block[0], block[1], block[2]};
    unsigned nt = block[0] * block[1] * block[2];
    std::vector<long long> smem(shmem / 8 + 2);
    cj_host_smem = (char *)smem.data();
    for (unsigned bz = 0; bz < grid[2]; bz++)
    for (unsigned by = 0; by < grid[1]; by++)
    for (unsigned bx = 0; bx < grid[0]; bx++) {
        blockIdx = {bx, by, bz};
        std::barrier<> bar(nt);
        cj_host_bar = &bar;
        std::vector<std::thread> ts;
        for (unsigned t = 0; t < nt; t++) {
            unsigned tx = t %% block[0], ty = t / block[0] %% block[1], tz = t / block[0] / block[1];
            ts.emplace_back([=] { threadIdx = {tx, ty, tz}; %s(%s); });
        }
        for (auto &th : ts) {
            th.join();
        }
    }
}
"""
SMEM = re.compile(r"extern __shared__ (__align__\(\d+\) )?([\w ]+?) (\w+)\[\];")
_THREADED = {}
# the shim's atomics from host threads that run together: one at a time
LOCKED_SHIM = ("#include <mutex>\nstatic std::mutex cj_host_mu;\n"
               + THREADED_SHIM.replace("{\n    T old = *p;",
                                       "{\n    std::lock_guard<std::mutex> cj_lk(cj_host_mu);\n"
                                       "    T old = *p;")
               .replace("{ T o = *p;", "{ std::lock_guard<std::mutex> cj_lk(cj_host_mu); T o = *p;"))
_PLAIN = {}


class Registry:
    """the kernels a case built (cujit's own objects), to find a launched
    entry's CUDA by its name"""

    def __init__(self):
        self.kernels = []
        self.mode = "values"

    def jit(self):
        reg = self
        mod = type(jit)("cujit_recording_jit")
        mod.__dict__.update({k: getattr(jit, k) for k in dir(jit) if not k.startswith("__")})

        def rawkernel(*a, **kw):
            deco = jit.rawkernel(*a, **kw)

            def wrap(f):
                k = deco(f)
                reg.kernels.append(k)
                return k
            return wrap
        mod.rawkernel = rawkernel
        return mod

    def source(self, name):
        for k in self.kernels:
            for src in k.inspect_cuda().values():
                if "void %s(" % name in src:
                    return src
        raise AssertionError("no kernel of this case compiled entry " + name)


def build_threaded(src, name):
    key = hashlib.sha1((src + name).encode()).hexdigest()[:16]
    if key in _THREADED:
        return _THREADED[key]
    m = [e for e in ENTRY.finditer(src) if e.group(1) == name][0]
    types = [param_type(p) for p in split_params(m.group(2))]
    src = SMEM.sub(r"#define \3 ((\2 *)cj_host_smem)", src)
    src = src.replace("__shared__", "static")    # one block at a time: a static is its memory
    call = ", ".join("*(%s *)args[%d]" % (t, k) for k, t in enumerate(types))
    cpp, so = os.path.join(TMP, key + ".cpp"), os.path.join(TMP, key + ".so")
    with open(cpp, "w") as f:
        f.write(LOCKED_SHIM + src + THREADED_LAUNCH % (name, call))
    r = subprocess.run([CXX, "-std=c++20", "-O1", "-w", "-shared", "-fPIC", "-pthread", "-o",
                        so, cpp], capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError("host compile failed:\n" + r.stderr[-3000:])
    lib = ctypes.CDLL(so)
    lib.cj_host_launch.argtypes = [ctypes.POINTER(ctypes.c_void_p),
                                   ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint),
                                   ctypes.c_uint]
    _THREADED[key] = lib
    return lib


REG = None
FAILED = []


def launch(name, params, grid, block):
    src = host_source(REG.source(name))
    args = ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p))
    needs = [w for w in NEEDS_GPU if w in src]
    if COMPILE_ONLY.search(src) or any(w not in THREADED_OK for w in needs):
        REG.mode = "compiled"
        return
    if needs:
        shmem = ctypes.c_uint.in_dll(FAKE, "fake_last_shmem").value
        build_threaded(src, name).cj_host_launch(args, grid, block, shmem)
        return
    key = hashlib.sha1((src + name).encode()).hexdigest()[:16]
    if key not in _PLAIN:
        m = [e for e in ENTRY.finditer(src) if e.group(1) == name][0]
        types = [param_type(p) for p in split_params(m.group(2))]
        _PLAIN[key] = host_library(src, name, types, os.path.join(TMP, key))
    _PLAIN[key].cj_host_launch(args, grid, block)


@HOOK
def on_launch(name, params, grid, block):
    try:
        launch(name.decode(), params, grid, block)
    except BaseException:           # never unwind through the C driver
        FAILED.append(traceback.format_exc())


def run(name, cases):
    global REG
    REG = Registry()
    del FAILED[:]
    try:
        c, got, want = H.run_case(name, REG.jit(), np, H.CujitArrays(), cases=cases)
        if FAILED:
            raise RuntimeError("the host run of a launch failed:\n" + FAILED[0])
        if REG.mode == "values":
            H.check(c, got, want)
        return REG.mode
    except Exception as e:
        return "error %s: %s" % (type(e).__name__, (str(e) or repr(e)).replace("\n", "\\n"))


def main(argv):
    corpus = "cupyx_kernels"
    if argv and argv[0].startswith("--corpus="):
        corpus = argv.pop(0).split("=", 1)[1]
    cases = H.cases_of(corpus)
    ctypes.c_void_p.in_dll(FAKE, "fake_launch_hook").value = ctypes.cast(
        on_launch, ctypes.c_void_p).value
    try:
        for name in argv or list(cases):
            print("CASE %s %s" % (name, run(name, cases)), flush=True)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
