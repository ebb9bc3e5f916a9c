"""The science kernels of tests/unseen/numba_science.py without a GPU, run
by tests/test_unseen_numba_science_nogpu.py in a fresh process against the
fake libcuda:

    python unseen_nb_scenarios.py OUT.json [CASE ...]

Every case runs its host code unchanged under cujit.cuda (to_device,
launches, streams, events, copy_to_host); device memory is host memory
there, and the fake driver calls fake_launch_hook on each launch: the hook
finds the launched kernel's CUDA among the compiled Dispatchers, builds it
for the host with the shim of tests/test_kernels_host.py and runs it on the
parameters cujit packed.  A kernel whose threads work together (a case's
`coop`) runs with one host thread per CUDA thread of a block, blocks in
turn: __syncthreads() a barrier of the block (a thread that returns drops
out of it, as an exited GPU thread does), __shared__ arrays the block's
statics, the warp shuffles and ballots an exchange through a slot per lane
between two barriers of the warp, syncthreads_count a count between
barriers of the block, atomics under one lock.  The results are compared with
NumPy's by the case's own verify(); OUT.json records, per case, "ok" or the
error."""
import ctypes
import gc
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import traceback
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "unseen"))

import cujit  # noqa: E402
from cujit import cuda  # noqa: E402
from test_kernels_host import (CXX, ENTRY, LAUNCH, SHIM, host_source,  # noqa: E402
                               param_type, split_params)

import numba_science  # noqa: E402

FAKE = ctypes.CDLL("libcuda.so.1")
HOOK = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                        ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint))
TMP = tempfile.mkdtemp(prefix="cujit-unseen-nb-")

THREADED_SHIM = SHIM.replace(
    "static cj_dim3 threadIdx, blockIdx, blockDim, gridDim;",
    "static thread_local cj_dim3 threadIdx;\nstatic cj_dim3 blockIdx, blockDim, gridDim;").replace(
    "template <typename T> static T cj_host_atomic(T *p, T v, int op, T c = T(0))\n{\n",
    "#include <mutex>\nstatic std::mutex cj_host_mu;\n"
    "template <typename T> static T cj_host_atomic(T *p, T v, int op, T c = T(0))\n{\n"
    "    std::lock_guard<std::mutex> cj_lock(cj_host_mu);\n") + r"""
#include <barrier>
#include <thread>
#include <vector>
#define __shared__ static
static std::barrier<> *cj_host_bar;
static std::vector<std::barrier<> *> cj_host_warp_bar;
static unsigned long long cj_host_slot[32][32];
static thread_local unsigned cj_host_lin;
static inline void __syncthreads() { cj_host_bar->arrive_and_wait(); }
static inline void __syncwarp(unsigned m = 0xffffffffu) { cj_host_warp_bar[cj_host_lin / 32]->arrive_and_wait(); }
/* lane src's v (its own where src is outside the segment of `width`) */
template <typename T> static T cj_host_shfl(T v, int src, int width)
{
    unsigned w = cj_host_lin / 32, lane = cj_host_lin % 32, base = lane / width * width;
    memcpy(&cj_host_slot[w][lane], &v, sizeof(T));
    cj_host_warp_bar[w]->arrive_and_wait();
    T r = v;
    if (src >= (int)base && src < (int)(base + width)) {
        memcpy(&r, &cj_host_slot[w][src], sizeof(T));
    }
    cj_host_warp_bar[w]->arrive_and_wait();
    return r;
}
template <typename T> static T __shfl_sync(unsigned m, T v, int src, int width = 32)
{ return cj_host_shfl(v, (int)(cj_host_lin % 32) / width * width + src % width, width); }
template <typename T> static T __shfl_up_sync(unsigned m, T v, unsigned d, int width = 32)
{ return cj_host_shfl(v, (int)(cj_host_lin % 32) - (int)d, width); }
template <typename T> static T __shfl_down_sync(unsigned m, T v, unsigned d, int width = 32)
{ return cj_host_shfl(v, (int)(cj_host_lin % 32) + (int)d, width); }
template <typename T> static T __shfl_xor_sync(unsigned m, T v, int x, int width = 32)
{ return cj_host_shfl(v, (int)(cj_host_lin % 32) ^ x, width); }
static inline unsigned __activemask() { return 0xffffffffu; }
static unsigned cj_host_nt;
/* the block's count of threads whose p is true, between barriers */
static inline int __syncthreads_count(int p)
{
    static int count;
    cj_host_bar->arrive_and_wait();
    {
        std::lock_guard<std::mutex> cj_lock(cj_host_mu);
        count += p != 0;
    }
    cj_host_bar->arrive_and_wait();
    int r = count;
    cj_host_bar->arrive_and_wait();
    if (cj_host_lin == 0) {
        count = 0;
    }
    return r;
}
static inline int __syncthreads_or(int p) { return __syncthreads_count(p) > 0; }
static inline unsigned __ballot_sync(unsigned m, int p)
{
    unsigned w = cj_host_lin / 32, n = std::min(32u, cj_host_nt - w * 32), bits = 0;
    cj_host_slot[w][cj_host_lin % 32] = p != 0;
    cj_host_warp_bar[w]->arrive_and_wait();
    for (unsigned k = 0; k < n; k++) {
        bits |= (unsigned)cj_host_slot[w][k] << k;
    }
    cj_host_warp_bar[w]->arrive_and_wait();
    return bits;
}
"""
THREADED_LAUNCH = r"""
extern "C" void cj_host_launch(void **args, const unsigned *grid, const unsigned *block)
{
    gridDim = {grid[0], grid[1], grid[2]};
    blockDim = {block[0], block[1], block[2]};
    unsigned nt = block[0] * block[1] * block[2];
    cj_host_nt = nt;
    for (unsigned bz = 0; bz < grid[2]; bz++)
    for (unsigned by = 0; by < grid[1]; by++)
    for (unsigned bx = 0; bx < grid[0]; bx++) {
        blockIdx = {bx, by, bz};
        std::barrier<> bar(nt);
        cj_host_bar = &bar;
        std::vector<std::barrier<> *> wb;
        for (unsigned w = 0; w * 32 < nt; w++) {
            wb.push_back(new std::barrier<>(std::min(32u, nt - w * 32)));
        }
        cj_host_warp_bar = wb;
        std::vector<std::thread> ts;
        for (unsigned t = 0; t < nt; t++) {
            ts.emplace_back([=] {
                cj_host_lin = t;
                threadIdx = {t %% block[0], t / block[0] %% block[1], t / (block[0] * block[1])};
                %s(%s);
                cj_host_bar->arrive_and_drop();
            });
        }
        for (auto &th : ts) {
            th.join();
        }
        for (auto *b : wb) {
            delete b;
        }
    }
    fflush(stdout);
}
"""
DYN_SMEM = re.compile(r"extern __shared__ __align__\(16\) (unsigned char|char) (\w+)\[\];")
COOP = ("__syncthreads", "_sync(", "__shared__")
_BUILT = {}
_SOURCES = {}


def source_of(name):
    """the CUDA of the kernel `name`: the last configured Dispatcher's
    (kernels of one factory share their names), else any compiled one's"""
    if _LAST and _LAST[0] is not None:
        for src in _LAST[0].inspect_cuda().values():
            if any(m.group(1) == name for m in ENTRY.finditer(src)):
                return src
    if name not in _SOURCES:
        for k in gc.get_objects():
            if isinstance(k, cujit.Kernel):
                for src in k.inspect_cuda().values():
                    for m in ENTRY.finditer(src):
                        _SOURCES.setdefault(m.group(1), src)
    return _SOURCES[name]


_LAST = [None]
_getitem = cuda.Dispatcher.__getitem__


def _configure(self, config):
    """kernel[grid, block]: remembered, for source_of"""
    _LAST[0] = self
    return _getitem(self, config)


cuda.Dispatcher.__getitem__ = _configure


def build(src, name):
    key = hashlib.sha1((src + name).encode()).hexdigest()[:16]
    if key in _BUILT:
        return _BUILT[key]
    m = [e for e in ENTRY.finditer(src) if e.group(1) == name][0]
    types = [param_type(p) for p in split_params(m.group(2))]
    call = ", ".join("*(%s *)args[%d]" % (t, k) for k, t in enumerate(types))
    threaded = any(w in src for w in COOP)
    if threaded:
        text = THREADED_SHIM + DYN_SMEM.sub(r"static \1 \2[1 << 16];", src) + \
            THREADED_LAUNCH % (name, call)
    else:
        text = SHIM + src + LAUNCH % (name, call)
    cpp, so = os.path.join(TMP, key + ".cpp"), os.path.join(TMP, key + ".so")
    with open(cpp, "w") as f:
        f.write(text)
    r = subprocess.run([CXX, "-std=c++20", "-O1", "-w", "-shared", "-fPIC", "-pthread", "-o",
                        so, cpp], capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError("host compile failed:\n" + r.stderr[-3000:])
    lib = ctypes.CDLL(so)
    lib.cj_host_launch.argtypes = [ctypes.POINTER(ctypes.c_void_p),
                                   ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint)]
    _BUILT[key] = lib
    return lib


failures = []
launched = []


@HOOK
def on_launch(name, params, grid, block):
    """runs the launched kernel on the CPU; a failure is recorded (an
    exception cannot cross the driver)"""
    try:
        name = name.decode()
        launched.append(name)
        src = host_source(source_of(name))
        build(src, name).cj_host_launch(ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p)),
                                        grid, block)
    except BaseException as e:  # noqa: B036
        failures.append("%s: %s: %s" % (name, type(e).__name__, e))


def run_case(mod, fn):
    del failures[:], launched[:]
    c = fn()
    inputs = c.make(np.random.default_rng(12345))
    got = c.run(*inputs)
    assert not failures, failures
    assert launched, "no kernel was launched"
    c.verify(inputs, got)


def run_corpus(corpus, argv):
    """runs the cases of `corpus` (a module of tests/unseen, loaded here for
    cujit.cuda) named in argv[2:], or all, recording each in argv[1]; the
    other corpora's scripts call it too"""
    out, names = argv[1], argv[2:]
    ctypes.c_void_p.in_dll(FAKE, "fake_launch_hook").value = \
        ctypes.cast(on_launch, ctypes.c_void_p).value
    mod = corpus.load(cuda, "cujit")
    results = {}
    warnings.simplefilter("ignore")
    try:
        for fn in mod.CASES:
            if names and fn.__name__ not in names:
                continue
            try:
                run_case(mod, fn)
                results[fn.__name__] = "ok"
            except BaseException:  # noqa: B036
                results[fn.__name__] = traceback.format_exc(limit=6)[-3000:]
            print(fn.__name__, results[fn.__name__][:300], flush=True)
            _write(out, results)        # after each case: a crash keeps the others'
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
        _write(out, results)


def _write(out, results):
    with open(out + ".tmp", "w") as f:
        json.dump(results, f, indent=1)
    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    run_corpus(numba_science, sys.argv)
