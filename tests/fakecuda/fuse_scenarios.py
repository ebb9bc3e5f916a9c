"""@cujit.fuse without a GPU, run by tests/test_fuse_nogpu.py in a fresh
process against the fake libcuda:

    python fuse_scenarios.py NAME

Device memory is host memory there, and the fake driver calls
fake_launch_hook on every launch: this file compiles the launched kernel's
CUDA (from the fused function's inspect_cuda()) for the host with the shim
of tests/test_kernels_host.py and runs it on the parameters cujit packed, so
that the whole call path (broadcasting, layouts, in-place outputs, the
grouping of a reduction's dimensions, packing, both passes, the generated
kernels) is checked against NumPy on the CPU, with the cases of
tests/gpu/test_fuse_gpu.py.  A block's threads run one after another, last
first, and the block reduction becomes a running combination whose total
the first thread (run last) sees."""
import ctypes
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "gpu"))

import cujit  # noqa: E402
import test_fuse_gpu as cases  # noqa: E402
from cujit._fuse import Fused  # noqa: E402
from test_kernels_host import CXX, ENTRY, SHIM, host_source, split_params  # noqa: E402

FAKE = ctypes.CDLL("libcuda.so.1")
HOOK = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                        ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint))
# host builds, kept between runs when CUJIT_HOST_BUILDS names a folder
KEEP = os.environ.get("CUJIT_HOST_BUILDS")
TMP = KEEP or tempfile.mkdtemp(prefix="cujit-fuse-host-")
launched = []

GPU_ONLY = r"""
#define __shared__ static
static inline void __syncthreads() {}
template <typename T> static T __shfl_down_sync(unsigned, T v, int) { return v; }
"""

# a block's threads run last first: thread 0 sees every value combined
HOST_BLOCK_REDUCE = r"""
template <typename T, typename F> static T cj_block_reduce(T v, F combine)
{
    static T acc;
    acc = threadIdx.x == blockDim.x - 1 ? v : combine(v, acc);
    return acc;
}
"""

LAUNCH = r"""
extern "C" void cj_host_launch(void **args, const unsigned *grid, const unsigned *block)
{
    gridDim = {grid[0], grid[1], grid[2]};
    blockDim = {block[0], block[1], block[2]};
    for (unsigned bz = 0; bz < grid[2]; bz++)
    for (unsigned by = 0; by < grid[1]; by++)
    for (unsigned bx = 0; bx < grid[0]; bx++)
    for (unsigned tz = 0; tz < block[2]; tz++)
    for (unsigned ty = 0; ty < block[1]; ty++)
    for (unsigned tx = block[0]; tx-- > 0;) {
        blockIdx = {bx, by, bz};
        threadIdx = {tx, ty, tz};
        %s(%s);
    }
}
"""

_built = {}


# the fused call in progress: its own inspect_cuda(*args) finds the form it
# launches (kernels of two forms may share a name: an int8 array or a Python
# int as the second input)
_calls = []
_call = Fused.__call__


def _traced_call(self, *args):
    _calls.append((self, args))
    try:
        return _call(self, *args)
    finally:
        _calls.pop()


Fused.__call__ = _traced_call


def source_of(name):
    f, args = _calls[-1]
    src = f.inspect_cuda(*args)
    assert 'void %s(' % name in src, (name, f)
    return src


def host_version(src):
    src = host_source(src)
    if "cj_block_reduce" in src:
        src = src.replace("static __device__ T cj_block_reduce(T v, F combine)",
                          "static __device__ T cj_block_reduce_gpu(T v, F combine)")
        first = src.index('extern "C"')
        src = src[:first] + HOST_BLOCK_REDUCE + src[first:]
    return src


def param_type(p):
    """the type of parameter p, the name's stars kept (float *out0)"""
    t, name = p.rsplit(" ", 1)
    return t + " " + "*" * (len(name) - len(name.lstrip("*")))


def build(src, name):
    key = hashlib.sha1((src + name).encode()).hexdigest()[:16]
    if key in _built:
        return _built[key]
    m = [e for e in ENTRY.finditer(src) if e.group(1) == name][0]
    types = [param_type(p) for p in split_params(m.group(2))]
    typedefs = "".join("typedef %s P%d;\n" % (t, k) for k, t in enumerate(types))
    call = ", ".join("*(P%d *)args[%d]" % (k, k) for k in range(len(types)))
    cpp = os.path.join(TMP, key + ".cpp")
    so = os.path.join(TMP, key + ".so")
    if os.path.exists(so):
        _built[key] = lib = _load(so)
        return lib
    with open(cpp, "w") as f:
        f.write(SHIM + GPU_ONLY + src + "\n" + typedefs + LAUNCH % (name, call))
    r = subprocess.run([CXX, "-std=c++17", "-O1", "-w", "-shared", "-fPIC", "-o", so, cpp],
                       capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError("host compile failed:\n" + r.stderr[-3000:])
    _built[key] = lib = _load(so)
    return lib


def _load(so):
    lib = ctypes.CDLL(so)
    lib.cj_host_launch.argtypes = [ctypes.POINTER(ctypes.c_void_p),
                                   ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint)]
    return lib


@HOOK
def on_launch(name, params, grid, block):
    name = name.decode()
    lib = build(host_version(source_of(name)), name)
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
            print(case.__name__, "passed", flush=True)
    finally:
        if not KEEP:
            shutil.rmtree(TMP, ignore_errors=True)
    assert any(n.endswith("_final") for n in launched), "no second pass ran"
    assert "fused_polar" in launched


if __name__ == "__main__":
    globals()[sys.argv[1]]()
    print("%s ok" % sys.argv[1])
