"""@guvectorize without a GPU, run by tests/test_gufunc_nogpu.py in a fresh
process against the fake libcuda:

    python gufunc_scenarios.py NAME

Device memory is host memory there, and the fake driver calls
fake_launch_hook on every launch: this file compiles the launched kernel's
CUDA (from the gufunc's inspect_cuda()) for the host with the shim of
tests/test_kernels_host.py and runs it on the parameters cujit packed, so
the whole call path (layout checks, broadcasting, strides, out=, packing,
the generated kernel) is checked against NumPy on the CPU.

The staged entry (<kernel>_st: a block's inputs copied to shared memory
between two barriers) runs with one host thread per CUDA thread of a block
and a std::barrier for __syncthreads() (THREADED_SHIM below); run_cases
runs every case staged where the launch chooses it, then with .stage =
"off" (check_staged_always asks for staging itself); run_cases_auto only
the first."""
import ctypes
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "gpu"))

import cujit  # noqa: E402
import test_gufunc_gpu as cases  # noqa: E402
from test_kernels_host import (CXX, ENTRY, SHIM, build, host_source,  # noqa: E402
                               param_type, split_params)

FAKE = ctypes.CDLL("libcuda.so.1")
HOOK = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                        ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint))
TMP = tempfile.mkdtemp(prefix="cujit-gufunc-host-")
launched = []

# the staged entry: each thread of a block a host thread, __syncthreads() a
# barrier, the block's dynamic shared memory a buffer; blocks in turn (uint4
# and CUDA's other vector types come with SHIM)
THREADED_SHIM = SHIM.replace("static cj_dim3 threadIdx, blockIdx, blockDim, gridDim;",
                             "static thread_local cj_dim3 threadIdx;\n"
                             "static cj_dim3 blockIdx, blockDim, gridDim;") + r"""
#include <barrier>
#include <thread>
#include <vector>
static std::barrier<> *cj_host_bar;
static char *cj_host_smem;
static inline void __syncthreads() { cj_host_bar->arrive_and_wait(); }
static inline unsigned __umulhi(unsigned a, unsigned b)
{
    return (unsigned)(((unsigned long long)a * b) >> 32);
}
"""
THREADED_LAUNCH = r"""
extern "C" void cj_host_launch(void **args, const unsigned *grid, const unsigned *block,
                               unsigned shmem)
{
    gridDim = {grid[0], grid[1], grid[2]};
    blockDim = {block[0], block[1], block[2]};
    std::vector<long long> smem(shmem / 8 + 2);
    cj_host_smem = (char *)smem.data();
    for (unsigned bx = 0; bx < grid[0]; bx++) {
        blockIdx = {bx, 0, 0};
        std::barrier<> bar(block[0]);
        cj_host_bar = &bar;
        std::vector<std::thread> ts;
        for (unsigned tx = 0; tx < block[0]; tx++) {
            ts.emplace_back([=] { threadIdx = {tx, 0, 0}; %s(%s); });
        }
        for (auto &t : ts) {
            t.join();
        }
    }
}
"""
SMEM = re.compile(r"extern __shared__ __align__\(16\) char (\w+)\[\];")
_THREADED = {}


def build_threaded(src, name):
    """The staged entry `name` of src, for the threaded launch."""
    key = hashlib.sha1((src + name).encode()).hexdigest()[:16]
    if key in _THREADED:
        return _THREADED[key]
    m = [e for e in ENTRY.finditer(src) if e.group(1) == name][0]
    types = [param_type(p) for p in split_params(m.group(2))]
    src = SMEM.sub(r"char *\1 = cj_host_smem;", src)
    call = ", ".join("*(%s *)args[%d]" % (t, k) for k, t in enumerate(types))
    cpp, so = os.path.join(TMP, key + ".cpp"), os.path.join(TMP, key + ".so")
    with open(cpp, "w") as f:
        f.write(THREADED_SHIM + src + THREADED_LAUNCH % (name, call))
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


def gufuncs():
    """the test file's gufuncs (the cujit form inside a Numba-style one)"""
    forms = [getattr(v, "form", v) for v in vars(cases).values()]
    return [f for f in forms if isinstance(f, cujit.GUFunc)]


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
    if name.endswith("_st"):
        shmem = ctypes.c_uint.in_dll(FAKE, "fake_last_shmem").value
        build_threaded(src, name).cj_host_launch(
            ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p)), grid, block, shmem)
        launched.append(name)
        return
    src = src.split("\n/* staged:")[0]            # barriers: not for this shim
    m = [e for e in ENTRY.finditer(src) if e.group(1) == name][0]
    nparams = len([param_type(p) for p in split_params(m.group(2))])
    lib = build(src, name, nparams, TMP)
    lib.cj_host_launch(ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p)), grid, block)
    launched.append(name)


def install():
    ctypes.c_void_p.in_dll(FAKE, "fake_launch_hook").value = ctypes.cast(on_launch,
                                                                         ctypes.c_void_p).value


def run_cases(plain_too=True):
    install()
    try:
        for case in cases.CASES:
            case()
            print(case.__name__, "passed")
        assert [n for n in launched if n.endswith("_st")], launched
        if not plain_too:
            return
        for g in gufuncs():
            g.stage = "off"
        for case in cases.CASES:
            del launched[:]
            case()
            print(case.__name__, "passed on the plain entry")
            staged = [n for n in launched if n.endswith("_st")]
            assert not staged or case is cases.check_staged_always, (case.__name__, staged)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)


def run_cases_auto():
    run_cases(plain_too=False)


def _message(fn, *args, **kw):
    try:
        fn(*args, **kw)
    except ValueError as e:
        return str(e)
    raise AssertionError("no ValueError from %r" % (fn,))


def errors():
    """Core dimension errors with NumPy's text (its own test gufuncs inner1d
    "(i),(i)->()" and matrix_multiply "(m,n),(n,p)->(m,p)", renamed)"""
    from numpy._core import _umath_tests as ut

    @cujit.guvectorize("(i),(i)->()")
    def inner1d(a, b, out):
        out[0] = a[0] * b[0]

    @cujit.guvectorize("(m,n),(n,p)->(m,p)")
    def matrix_multiply(a, b, c):
        c[0, 0] = a[0, 0] * b[0, 0]

    for g, ref, args in [
            (inner1d, ut.inner1d, (np.ones(3), np.ones(4))),
            (inner1d, ut.inner1d, (np.ones(3), np.float64(2))),
            (inner1d, ut.inner1d, (np.ones((2, 3)), np.ones((2, 4)))),
            (matrix_multiply, ut.matrix_multiply, (np.ones((2, 3)), np.ones((4, 5)))),
            (matrix_multiply, ut.matrix_multiply, (np.ones(3), np.ones((3, 5)))),
            (matrix_multiply, ut.matrix_multiply, (np.ones((2, 3)), np.ones((3, 5)),
                                                   np.empty((2, 4))))]:
        got, want = _message(g, *args), _message(ref, *args)
        assert got == want, (got, want)
    # the loop dimensions do not broadcast: NumPy's beginning
    got = _message(inner1d, np.ones((2, 3)), np.ones((4, 3)))
    want = _message(ut.inner1d, np.ones((2, 3)), np.ones((4, 3)))
    assert got.startswith(want.split(":")[0] + ": (2,3)->(2,) (4,3)->(4,)"), (got, want)
    # an output core dimension no input gives
    @cujit.guvectorize("(n)->(m)")
    def grow(x, y):
        y[0] = x[0]
    got = _message(grow, np.ones(3))
    assert got == ("grow: Output operand 0 has core dimension 0 unspecified, with gufunc "
                   "signature (n)->(m)"), got
    assert host(grow(np.ones(3), out=cujit.empty((4,), np.float64))).shape == (4,)
    # out= with another loop shape
    got = _message(inner1d, np.ones((2, 3)), np.ones(3), out=cujit.empty(1, np.float64))
    assert got == ("non-broadcastable output operand with shape (1,) doesn't match the "
                   "broadcast shape (2,)"), got
    for bad in [lambda: inner1d(np.ones(3)), lambda: inner1d(np.ones(3), np.ones(3), x=1),
                lambda: inner1d(np.ones(3), np.ones(3), out=5)]:
        try:
            bad()
        except TypeError:
            pass
        else:
            raise AssertionError("no TypeError")
    sig = cujit.guvectorize(["void(float32[:], float32[:], float32[:])"], "(n),(n)->()")(
        lambda a, b, out: None)
    try:
        sig(np.ones(3, np.complex64), np.ones(3, np.float32))
    except TypeError as e:
        assert "has no signature for inputs (complex64, float32)" in str(e), e
    else:
        raise AssertionError("no TypeError")


def host(x):
    return x if isinstance(x, np.ndarray) else cujit.asnumpy(x)


if __name__ == "__main__":
    globals()[sys.argv[1]]()
    print("%s ok" % sys.argv[1])
