"""Numba's build options without a GPU: lineinfo=True (.loc / .file in the
PTX, none without it, NVRTC's errors at the user's line either way),
opt=False (NVVM's -opt=0: a local depot, no fma contraction), LTO-IR from
cuda.compile, cuda.cudadrv.nvrtc, and the include directories of linked
CUDA C++ (the file's own, CUDA_NVRTC_EXTRA_SEARCH_PATHS) with the headers
they include in the cache keys (counted on the fake driver: an edited
header compiles again, an unchanged one hits the disk cache).  On the GPU:
tests/gpu/test_buildopts_gpu.py."""
import math
import os
import re
import subprocess
import sys

import pytest

import cujit
from cujit import cuda
from cujit.cuda import float64, int32
from test_runtime_nogpu import fake_driver, nvrtc_or_skip  # noqa: F401

LOC = re.compile(r"\.loc\s+[0-9]+\s+[0-9]+\s+[0-9]+")
THIS_FILE = re.compile(r'\.file\s+[0-9]+\s+".*test_buildopts\.py"')


def store_one(x):
    x[0] = 1


def fma_like(x, y, z):
    return x * y + z


# ---- lineinfo ----

def test_lineinfo_only_when_asked():
    nvrtc_or_skip()
    sig = (int32[:],)
    plain = cuda.jit(store_one).inspect_asm(sig)
    assert not LOC.search(plain) and ".file" not in plain
    lined = cuda.jit(lineinfo=True)(store_one).inspect_asm(sig)
    assert THIS_FILE.search(lined) and LOC.search(lined)
    assert ".debug_info" not in lined          # lines only, not debug=True's full info
    dev = cuda.jit("float64(float64, float64, float64)", device=True, lineinfo=True)(fma_like)
    assert THIS_FILE.search(dev.inspect_asm((float64, float64, float64)))
    ptx, _ = cuda.compile_ptx(store_one, sig, lineinfo=True)
    assert THIS_FILE.search(ptx)
    ptx, _ = cuda.compile_ptx(store_one, sig)
    assert not LOC.search(ptx)


BAD = cuda.CUSource('extern "C" __device__ int bad(int *o, int a) { return nope; }\n',
                    name="bad.cu")
bad = cuda.declare_device("bad", "int32(int32)", link=BAD)


@pytest.mark.parametrize("lineinfo", [False, True])
def test_nvrtc_errors_keep_their_lines(lineinfo):
    """NVRTC's messages are mapped through the #line marks, which stay in the
    text whether the PTX carries lines or not"""
    nvrtc_or_skip()

    @cuda.jit(lineinfo=lineinfo)
    def k(r):
        r[0] = bad(r[0])
    with pytest.raises(cujit.CompileError) as ei:
        k.inspect_ptx("(int32[:],)")
    assert ei.value.filename == "bad.cu" and ei.value.lineno == 1, \
        (ei.value.filename, ei.value.lineno)
    assert "nope" in str(ei.value)


# ---- opt=False ----

def test_opt_false_is_nvvm_opt0():
    nvrtc_or_skip()
    sig = (float64[::1],)
    assert "__local_depot" not in cuda.jit(sig)(store_one).inspect_asm()[sig]
    assert "__local_depot" in cuda.jit(sig, opt=False)(store_one).inspect_asm()[sig]
    dsig = (float64, float64, float64)
    on = cuda.jit(dsig, device=True)(fma_like).inspect_asm(dsig)
    off = cuda.jit(dsig, device=True, opt=False)(fma_like).inspect_asm(dsig)
    assert "fma.rn.f64" in on and "fma.rn.f64" not in off
    assert ".debug_info" not in off            # not debug=True's -G
    ptx, _ = cuda.compile_ptx(fma_like, dsig, device=True, opt=False)
    assert "fma.rn.f64" not in ptx and "mul.rn.f64" in ptx     # ptxas keeps it apart too


OPTIONS_SCRIPT = r"""
import numpy as np
from cujit import cuda
cuda.config.CUDA_LOW_OCCUPANCY_WARNINGS = 0

def store_one(x):
    x[0] = 1

x = np.zeros(1)
for opts in ({}, {"lineinfo": True}, {"opt": False}, {"fastmath": True}):
    k = cuda.jit(cache=True, **opts)(store_one)
    k[1, 1](x)
    print(sorted(opts), "misses", sum(k.stats.cache_misses.values()),
          "hits", sum(k.stats.cache_hits.values()))
"""


def test_build_options_are_in_the_binary_key(fake_driver, tmp_path):  # noqa: F811
    """lineinfo / opt / fastmath reach NVRTC as options, which the disk
    cache's key holds: one function under four option sets is four
    binaries (each a miss in a fresh cache, each a hit in the next process)"""
    nvrtc_or_skip()
    script = tmp_path / "k.py"
    script.write_text(OPTIONS_SCRIPT)
    env = dict(os.environ, CUJIT_CACHE_DIR=str(tmp_path / "cache"),
               LD_LIBRARY_PATH=fake_driver + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    env.pop("CUJIT_CACHE", None)
    for counts in ("misses 1 hits 0", "misses 0 hits 1"):
        r = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-4000:]
        lines = r.stdout.strip().splitlines()
        assert len(lines) == 4 and all(line.endswith(counts) for line in lines), lines


# ---- LTO-IR ----

LTO_MAGIC = b"\xedCN\x7f"          # NVVM's LTO-IR container


def test_compile_to_ltoir():
    nvrtc_or_skip()
    code, resty = cuda.compile(fma_like, float64(float64, float64, float64), output="ltoir")
    assert isinstance(code, bytes) and code[:4] == LTO_MAGIC and str(resty) == "float64"
    inlined, _ = cuda.compile(fma_like, float64(float64, float64, float64), output="ltoir",
                              forceinline=True)
    assert inlined[:4] == LTO_MAGIC and inlined != code
    codes, _ = cuda.compile_all(store_one, (int32[:],), device=False, abi="numba")
    assert len(codes) == 1 and codes[0][:4] == LTO_MAGIC
    with pytest.raises(ValueError, match="Can only designate forced inlining in LTO-IR"):
        cuda.compile(fma_like, float64(float64, float64, float64), forceinline=True)


def test_cudadrv_nvrtc():
    nvrtc_or_skip()
    nv = cuda.cudadrv.nvrtc
    ccs = nv.get_supported_ccs()
    assert (9, 0) in ccs and nv.find_closest_arch((9, 0)) == (9, 0)
    assert nv.find_closest_arch((9, 9)) == max(c for c in ccs if c <= (9, 9))
    with pytest.raises(RuntimeError, match="not supported"):
        nv.find_closest_arch((1, 0))
    ptx, log = nv.compile('extern "C" __device__ int f(int x) { return x + 1; }', "f.cu",
                          (9, 0))
    assert ".visible .func" in ptx and ".target sm_90" in ptx and log == ""
    lto, _ = nv.compile('extern "C" __device__ int f(int x) { return x + 1; }', "f.cu",
                        (9, 0), ltoir=True)
    assert lto[:4] == LTO_MAGIC


# ---- include directories of linked CUDA C++ ----

def write_tree(root, scale=3):
    """root/src/saxpy.cu includes "local.cuh" (beside it) and <extra.cuh>
    (in root/inc, a search path), which includes "deeper.cuh" beside it"""
    (root / "src").mkdir(exist_ok=True)
    (root / "inc").mkdir(exist_ok=True)
    (root / "src" / "local.cuh").write_text(
        "template <typename T> __device__ T mymul(T a, T b) { return a * b; }\n")
    (root / "inc" / "deeper.cuh").write_text("#define SCALE %d\n" % scale)
    (root / "inc" / "extra.cuh").write_text(
        '#include "deeper.cuh"\n'
        "template <typename T> __device__ T myadd(T a, T b) { return a + b; }\n")
    cu = root / "src" / "saxpy.cu"
    cu.write_text('#include "local.cuh"\n#include <extra.cuh>\n'
                  'extern "C" __device__ int saxpy(float *r, float a, float x, float y) {\n'
                  '    *r = myadd(mymul(a, x), y) * SCALE;\n    return 0;\n}\n')
    return cu


@pytest.fixture
def search_path():
    saved = cuda.config.CUDA_NVRTC_EXTRA_SEARCH_PATHS
    yield
    cuda.config.CUDA_NVRTC_EXTRA_SEARCH_PATHS = saved


def saxpy_kernel(cu):
    saxpy = cuda.declare_device("saxpy", "float32(float32, float32, float32)", link=str(cu))

    @cuda.jit
    def k(r, a, x, y):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = saxpy(a, x[i], y[i])
    return k


SIG = "(float32[::1], float32, float32[::1], float32[::1])"


def test_include_directories(tmp_path, search_path):
    nvrtc_or_skip()
    cu = write_tree(tmp_path)
    k = saxpy_kernel(cu)
    with pytest.raises(cujit.CompileError, match="extra.cuh"):
        k.inspect_ptx(SIG)                  # the file's own directory only: no <extra.cuh>
    cuda.config.CUDA_NVRTC_EXTRA_SEARCH_PATHS = "%s:%s" % (tmp_path / "nowhere", tmp_path / "inc")
    k = saxpy_kernel(cu)
    assert ".visible .entry" in k.inspect_ptx(SIG)
    src = k.inspect_cuda(SIG)
    assert "//cujit-include: %s\n" % (tmp_path / "src") in src
    assert "//cujit-include: %s\n" % (tmp_path / "inc") in src
    with pytest.raises(TypeError, match="CUDA_NVRTC_EXTRA_SEARCH_PATHS must be a str"):
        cuda.config.CUDA_NVRTC_EXTRA_SEARCH_PATHS = ["a", "b"]


def test_headers_change_the_text(tmp_path, search_path):
    nvrtc_or_skip()
    cu = write_tree(tmp_path)
    cuda.config.CUDA_NVRTC_EXTRA_SEARCH_PATHS = str(tmp_path / "inc")
    first = saxpy_kernel(cu).inspect_cuda(SIG)
    assert first == saxpy_kernel(cu).inspect_cuda(SIG)
    (tmp_path / "inc" / "deeper.cuh").write_text("#define SCALE 4\n")  # two levels down
    second = saxpy_kernel(cu).inspect_cuda(SIG)
    assert second != first and "//cujit-headers: " in second
    # <cuda_fp16.h> is the toolkit's: found by NVRTC, not digested
    toolkit = tmp_path / "tk.cu"
    toolkit.write_text('#include <cuda_fp16.h>\nextern "C" __device__ int saxpy(float *r, '
                       'float a, float x, float y) { *r = a * x + y; return 0; }\n')
    assert "//cujit-headers: " not in saxpy_kernel(toolkit).inspect_cuda(SIG)


SCRIPT = r"""
import sys
import numpy as np
from cujit import cuda
cuda.config.CUDA_LOW_OCCUPANCY_WARNINGS = 0
saxpy = cuda.declare_device("saxpy", "float32(float32, float32, float32)", link=sys.argv[1])

@cuda.jit(cache=True)
def k(r, a, x, y):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = saxpy(a, x[i], y[i])

x = np.ones(4, np.float32)
k[1, 4](np.zeros(4, np.float32), np.float32(2), x, x)
print("misses", sum(k.stats.cache_misses.values()), "hits", sum(k.stats.cache_hits.values()))
"""


def test_edited_header_compiles_again(fake_driver, tmp_path):  # noqa: F811
    """Counted on the fake driver across processes: the disk cache serves
    an unchanged header, an edited one (included from a search path,
    two levels down) is compiled again"""
    nvrtc_or_skip()
    cu = write_tree(tmp_path)
    script = tmp_path / "k.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, CUJIT_CACHE_DIR=str(tmp_path / "cache"),
               NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS=str(tmp_path / "inc"),
               LD_LIBRARY_PATH=fake_driver + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    env.pop("CUJIT_CACHE", None)

    def run():
        r = subprocess.run([sys.executable, str(script), str(cu)], env=env,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-4000:]
        return r.stdout.strip().splitlines()[-1]

    assert run() == "misses 1 hits 0"
    assert run() == "misses 0 hits 1"
    (tmp_path / "inc" / "deeper.cuh").write_text("#define SCALE 5\n")
    assert run() == "misses 1 hits 0"
    assert run() == "misses 0 hits 1"


# ---- max_registers ----

def series(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15):
    """sixteen live values through a loop: 60-70 registers unlimited on sm_90"""
    s = 0.0
    for k in range(16):
        s += (math.sin(a0 * k + a1) * a2 + math.cos(a3 * k + a4) * a5
              + a6 * a7 * math.exp(-a8 * k) + a9 * a10 - a11 * a12
              + a13 / (1.0 + a14 * a14 + a15 * a15 * k))
        a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15 = \
            a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a0 + s * 1e-3
    return s


def heavy_kernel(max_registers):
    dev = cuda.jit(device=True)(series)

    @cuda.jit(max_registers=max_registers)
    def heavy(r, x):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = dev(x[i, 0], x[i, 1], x[i, 2], x[i, 3], x[i, 4], x[i, 5], x[i, 6], x[i, 7],
                       x[i, 8], x[i, 9], x[i, 10], x[i, 11], x[i, 12], x[i, 13], x[i, 14],
                       x[i, 15])
    return heavy


def test_max_registers_reaches_ptxas():
    nvrtc_or_skip()
    sig = "(float64[::1], float64[:, ::1])"
    free, capped = heavy_kernel(None).inspect_cubin(sig), heavy_kernel(32).inspect_cubin(sig)
    assert free[:4] == capped[:4] == b"\x7fELF" and free != capped
    with pytest.raises(ValueError, match="max_registers=300"):
        cuda.jit(max_registers=300)(store_one)
    with pytest.raises(TypeError):
        cuda.jit(max_registers=32.5)(store_one)
