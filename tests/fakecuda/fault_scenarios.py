"""Faults in the runtime, against the fake libcuda and the NVRTC shim
(tests/fakecuda/faultplan.h), each scenario in a fresh process started by
tests/test_faults_nogpu.py:

    python fault_scenarios.py NAME

A representative workload (a raw kernel with an error record, a vectorized
function, a reduction, the stdlib's x + y, x.sum() and where, slicing copies,
to_device / copy_to_host, a stream and events) runs once to find every
driver and NVRTC entry point it calls and how often; then every call of
every entry point fails in turn, once.  Each fault must give a
cujit.CudaError (or MemoryError) whose message names the operation (and the
kernel, where one was being loaded or run), leak nothing (references, GC
objects, pool bytes) and leave the next identical workload working."""
import ctypes
import gc
import os
import sys

import numpy as np

import cujit
from cujit import jit

FAKE = ctypes.CDLL("libcuda.so.1")
NVRTC = ctypes.CDLL(os.environ["FAKENVRTC_LIB"]) if os.environ.get("FAKENVRTC_LIB") else None
for _lib in (FAKE, NVRTC):
    if _lib is not None:
        _lib.fake_fault_name.restype = ctypes.c_char_p
        _lib.fake_fault_calls.restype = ctypes.c_longlong
        # (each function touched here: ctypes makes its object at the first use,
        # which the object census would count)
        _lib.fake_fault_set.argtypes = [ctypes.c_char_p, ctypes.c_longlong, ctypes.c_int]
        _lib.fake_fault_set_n.argtypes = [ctypes.c_char_p, ctypes.c_longlong, ctypes.c_int,
                                          ctypes.c_longlong]
        _lib.fake_fault_calls.argtypes = [ctypes.c_char_p]
        _lib.fake_fault_count.argtypes = []
RNG = np.random.default_rng()
N = 1000
# kernels no disk cache has seen: a bias under 2**24 (float32 holds each such
# integer exactly, so NONCE + k gives distinct constants in the CUDA)
NONCE = int(RNG.integers(1 << 23))

# CUresult / nvrtcResult a fault of each entry point reports; others: 999
OOM, LAUNCH_FAILED, ILLEGAL_ADDRESS, LOST_CONTEXT, NOT_FOUND = 2, 719, 700, 709, 500
RESULTS = {
    "cuMemAllocFromPoolAsync": [OOM, LOST_CONTEXT], "cuMemAlloc_v2": [OOM],
    "cuLaunchKernel": [OOM, LAUNCH_FAILED, LOST_CONTEXT],
    "cuStreamSynchronize": [ILLEGAL_ADDRESS], "cuCtxSynchronize": [ILLEGAL_ADDRESS],
    "cuEventSynchronize": [ILLEGAL_ADDRESS],
    "cuCtxGetCurrent": [LOST_CONTEXT], "cuCtxSetCurrent": [LOST_CONTEXT],
    "cuModuleGetFunction": [NOT_FOUND], "cuModuleGetGlobal_v2": [999],
    "cuModuleLoadData": [OOM, 200],
}
NVRTC_OOM = 1


def lib_of(name):
    return NVRTC if name.startswith("nvrtc") else FAKE


def calls():
    """{entry point: calls so far} over both libraries"""
    out = {}
    for lib in (FAKE, NVRTC):
        if lib is None:
            continue
        for i in range(lib.fake_fault_count()):
            n = lib.fake_fault_name(i)
            out[n.decode()] = lib.fake_fault_calls(n)
    return out


def fired():
    return sum(ctypes.c_longlong.in_dll(lib, "fake_faults_fired").value
               for lib in (FAKE, NVRTC) if lib is not None)


# ---- the workload ----

def make_kernels(nonce):
    """A raw kernel, a vectorized function and a reduction whose CUDA differs
    with nonce (a new one compiles and loads: the cold path)"""
    bias = float(NONCE + nonce)

    @jit.rawkernel()
    def scale(x, out, n):
        i = jit.grid(1)
        if i < n:
            assert x[i] < 1e30
            out[i] = x[i] * 2.0 + bias

    @cujit.vectorize
    def vadd(a, b):
        return a + b + bias

    total = cujit.reduce(lambda a, b: a + b + bias - bias)
    return scale, vadd, total


STEP = [""]


def step(name):
    STEP[0] = name


def workload(kernels, h):
    scale, vadd, total = kernels
    step("to_device")
    x = cujit.to_device(h)
    y = cujit.to_device(h[::-1].copy())
    out = cujit.empty_like(x)
    step("stream")
    s = cujit.Stream()
    step("event")
    e0, e1 = cujit.Event(), cujit.Event()
    e0.record(s)
    step("scale")
    scale[(N + 127) // 128, 128, s](x, out, N)
    step("vadd")
    z = vadd(x, out)
    hz = vadd(x, h)                 # a host operand: copied in, and freed after
    step("total")
    t = total(z)
    step("add")
    w = x + y
    step("sum")
    r = w.sum()
    step("where")
    q = cujit.where(x > y, x, y)
    step("slice")
    c = q[::3].copy()
    step("event")
    e1.record(s)
    e1.synchronize()
    e0.elapsed_time(e1)
    step("copy_to_host")
    res = (c.copy_to_host(), z.copy_to_host(), hz.copy_to_host(), float(t), float(r))
    step("synchronize")
    s.synchronize()
    cujit.synchronize()
    step("")
    return res


# the words a message must hold when a step fails: the kernel or operation
# (x.sum() runs the reduction "add"; where(x > y, ...) "greater" first; a
# slice's copy allocates, then runs the kernel "copy")
STEP_WORDS = {
    "to_device": ("to_device", "allocat", "cop"), "stream": ("stream",),
    "event": ("event", "elapsed"), "scale": ("scale",), "vadd": ("vadd",),
    "total": ("<lambda>",), "add": ("add",), "sum": ("sum", "add"),
    "where": ("where", "greater"), "slice": ("cop", "allocat"), "copy_to_host": ("cop", "item"),
    "synchronize": ("synchroniz",),
}


def pool_used():
    return cujit.memory_info()["used"]


def census():
    gc.collect()
    return len(gc.get_objects()), pool_used()


def probe():
    """Prints the calls of each entry point in a cold and a warm workload."""
    h = RNG.random(N).astype(np.float32)
    c0 = calls()
    workload(make_kernels(1), h)
    c1 = calls()
    workload(make_kernels(1), h)
    c2 = calls()
    for n in sorted(c2):
        print("%-28s cold %4d warm %4d" % (n, c1.get(n, 0) - c0.get(n, 0),
                                          c2.get(n, 0) - c1.get(n, 0)))
    print("probe ok")


def run_fault(kernels, h, name, k, result, times=1):
    """One workload with calls k .. k + times - 1 of `name` failing:
    (exception or None, the step it came from, faults fired, calls of name)"""
    lib = lib_of(name)
    f0, c0 = fired(), lib.fake_fault_calls(name.encode())
    lib.fake_fault_set_n(name.encode(), k, result, times)
    err = None
    try:
        workload(kernels, h)
    except Exception as e:          # noqa: BLE001 - judged by the caller
        err = e
    lib.fake_fault_set(name.encode(), 0, 0)
    return err, STEP[0], fired() - f0, lib.fake_fault_calls(name.encode()) - c0


ERRNAMES = {OOM: "CUDA_ERROR_OUT_OF_MEMORY", LAUNCH_FAILED: "CUDA_ERROR_LAUNCH_FAILED",
            ILLEGAL_ADDRESS: "CUDA_ERROR_ILLEGAL_ADDRESS", NOT_FOUND: "CUDA_ERROR_NOT_FOUND",
            LOST_CONTEXT: "CUDA_ERROR_CONTEXT_IS_DESTROYED", 999: "CUDA_ERROR_UNKNOWN",
            200: "CUDA_ERROR_INVALID_IMAGE"}


# calls whose failure only turns an optimisation off, rightly without an error
DEGRADES = {
    "nvrtcVersion": "asked before each compilation whether --Ofast-compile exists",
}


def judge(what, err, st, nfired, retried):
    """Checks one fault's outcome; a list of problems.  A fault may pass
    without an exception only where the failed call was tried again (an
    allocation after a trim, a free or a destroy, which cannot raise)."""
    name, res = what[0], what[2]
    if not nfired:
        return ["the fault did not fire (the workload's calls changed)"]
    if err is None:
        return [] if retried or name in DEGRADES else [
            "no exception, and the call was not tried again"]
    msg = str(err)
    bad = []
    if not isinstance(err, (cujit.CudaError, MemoryError)):
        bad.append("%s, not a CudaError: %s" % (type(err).__name__, msg[:300]))
    if res == OOM and not isinstance(err, MemoryError):
        bad.append("out of memory is not a MemoryError: %r" % err)
    words = STEP_WORDS.get(st, ())
    if not any(w in msg for w in words):
        bad.append("the message names none of %s (step %r): %s" % (words, st, msg[:300]))
    want = "NVRTC" if name.startswith("nvrtc") else ERRNAMES.get(res, "")
    if want not in msg and "cannot make device" not in msg:
        bad.append("the message does not say %s: %s" % (want, msg[:300]))
    return bad


def one_fault(kernels, h, what, ncalls):
    """Fails what = (name, k, result, times) in a workload whose calls of
    name are ncalls without faults, then checks that nothing leaked and that
    the same workload works again"""
    rc = sys.getrefcount(h)
    bad = []                        # made before the census: it counts
    n0, used0 = census()
    err, st, nfired, n = run_fault(kernels, h, *what)
    bad += judge(what, err, st, nfired, n == ncalls + what[3])
    err = None
    used1 = census()[1]
    if used1 != used0:
        bad.append("pool bytes %d -> %d" % (used0, used1))
    if sys.getrefcount(h) != rc:
        bad.append("references to the input %d -> %d" % (rc, sys.getrefcount(h)))
    try:
        workload(kernels, h)
    except Exception as e:          # noqa: BLE001
        bad.append("the next workload fails: %s: %s" % (type(e).__name__, e))
    # objects compared after the next workload: caches of the last launch
    # configuration are refilled there as after any run
    n1 = census()[0]
    if n1 != n0:
        bad.append("GC objects %d -> %d" % (n0, n1))
    return ["%s call %d -> %d (x%d): %s" % (what + (b,)) for b in bad]


def plan(counts):
    """(name, k, result, times) for every call of every entry point"""
    out = []
    for name in sorted(counts):
        for k in range(1, counts[name] + 1):
            if name.startswith("nvrtc"):
                out.append((name, k, NVRTC_OOM, 1))
                continue
            for res in RESULTS.get(name, [999]):
                # an allocation that runs out is tried again after a trim
                out.append((name, k, res, 2 if res == OOM and "Alloc" in name else 1))
            if name == "cuMemAllocFromPoolAsync":
                out.append((name, k, OOM, 1))       # the retry succeeds: no error
    return out


def delta(a, b):
    return {n: b[n] - a.get(n, 0) for n in b if b[n] > a.get(n, 0)}


def report(problems, what):
    for p in problems:
        print("PROBLEM", p)
    print("%s: %d problems" % (what, len(problems)))
    assert not problems


def warm_faults():
    """Every call of every entry point of a warm workload (kernels loaded)
    fails in turn."""
    h = RNG.random(N).astype(np.float32)
    kernels = make_kernels(0)
    workload(kernels, h)
    c1 = calls()
    workload(kernels, h)
    counts = delta(c1, calls())
    problems, todo = [], plan(counts)
    one_fault(kernels, h, todo[0], counts[todo[0][0]])     # the harness's own first use
    for what in todo:
        problems += one_fault(kernels, h, what, counts[what[0]])
    print("%d entry points, %d faults" % (len(counts), len(todo)))
    report(problems, "warm_faults")
    print("warm_faults ok")


def cold_faults():
    """Every call of the entry points that loading new kernels adds (NVRTC,
    modules, contexts) fails in turn, each time with kernels never seen."""
    h = RNG.random(N).astype(np.float32)
    workload(make_kernels(0), h)
    for attempt in range(1, 4):
        # the harness counts calls around a warm and a cold workload; work
        # another thread of the process does meanwhile (NVRTC's preload on a
        # loaded machine) can land in the warm count: measure again
        kernels = make_kernels(0)
        c0 = calls()
        workload(kernels, h)
        kernels = make_kernels(attempt)
        c1 = calls()
        workload(kernels, h)
        warm, cold = delta(c0, c1), delta(c1, calls())
        counts = {n: c for n, c in cold.items() if c > warm.get(n, 0)}
        if counts:
            break
        print("attempt %d: no entry point called more when cold: warm %s, cold %s"
              % (attempt, warm, cold))
    assert counts, "loading new kernels called no entry point more than a warm workload"
    problems, todo = [], plan(counts)
    one_fault(make_kernels(99), h, todo[0], counts[todo[0][0]])   # the harness's first use
    for i, what in enumerate(todo):
        kernels = make_kernels(100 + i)
        problems += one_fault(kernels, h, what, counts[what[0]])
    print("%d entry points, %d faults: %s" % (len(counts), len(todo), sorted(counts)))
    report(problems, "cold_faults")
    print("cold_faults ok")


def first_use():
    """A fault armed from the process's start (FAKECUDA_FAULT) in the first
    workload: an error, then the next workload works."""
    h = RNG.random(N).astype(np.float32)
    err = None
    try:
        workload(make_kernels(0), h)
    except Exception as e:          # noqa: BLE001
        err = e
    print("first:", type(err).__name__, err)
    if err is not None:
        assert isinstance(err, (cujit.CudaError, MemoryError)), repr(err)
    assert fired() >= 1, "the fault did not fire"
    workload(make_kernels(0), h)
    print("first_use ok")

if __name__ == "__main__":
    globals()[sys.argv[1]]()
