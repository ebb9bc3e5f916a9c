"""Runs the generated CUDA C++ of the RUN entries of tests/kernels/ on the CPU
(no GPU needed) and compares the outputs with the NumPy references, the same
way tests/gpu/test_kernels_gpu.py does on a GPU.

The CUDA text from ``inspect_cuda`` is compiled with the host C++ compiler
behind a small shim (``__global__`` and ``__device__`` erased, ``threadIdx``
and friends as globals, the kernel called once per thread, one thread after
another).  This checks the *semantics* of what cujit generates: Python
division, NEP 50 promotion, wrap-around, comparisons, casts, math...

Kernels whose meaning needs threads running together (barriers, shuffles,
votes, shared memory) or PTX (inline asm: float16) are skipped with the
reason; so are entries whose arguments the shim cannot pass."""
import ctypes
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import cujit  # noqa: F401  (a missing extension fails here)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "gpu"))
import kernels  # noqa: E402
from test_kernels_gpu import ENTRIES, compare  # noqa: E402

CXX = os.environ.get("CXX") or shutil.which("g++") or shutil.which("clang++")

# what needs threads that run together, or the GPU itself
NEEDS_GPU = ["__syncthreads", "__syncwarp", "_sync(", "__activemask", "__shared__", "asm(", "__nv_",
             "%%laneid"]

# float16 conversions written in PTX, and their host equivalents (_Float16)
HOST_ASM = [
    (re.compile(r'asm\("cvt\.rn\.f16\.f32 %0, %1;" : "=h"\((\w+)\) : "f"\((\w+)\)\);'),
     r"{ _Float16 cj_h = (_Float16)\2; memcpy(&\1, &cj_h, 2); }"),
    (re.compile(r'asm\("cvt\.f32\.f16 %0, %1;" : "=f"\((\w+)\) : "h"\((\w+)\)\);'),
     r"{ _Float16 cj_h; memcpy(&cj_h, &\2, 2); \1 = (float)cj_h; }"),
    # 16-bit atomics: one thread at a time, so a plain read-modify-write
    (re.compile(r'asm volatile\("atom\.cas\.b16 %0, \[%1\], %2, %3;" : "=h"\((\w+)\) : '
                r'"l"\((\w+)\), "h"\((\w+)\), "h"\((\w+)\) : "memory"\);'),
     r"{ \1 = *(unsigned short *)\2; if (\1 == \3) { *(unsigned short *)\2 = \4; } }"),
    (re.compile(r'asm volatile\("atom\.add\.noftz\.f16 %0, \[%1\], %2;" : "=h"\((\w+)\) : '
                r'"l"\((\w+)\), "h"\((\w+)\) : "memory"\);'),
     r"{ _Float16 cj_a, cj_b; memcpy(&\1, \2, 2); memcpy(&cj_a, \2, 2); memcpy(&cj_b, &\3, 2); "
     r"cj_a = cj_a + cj_b; memcpy(\2, &cj_a, 2); }"),
]

# cuda.fp16's f16 instructions (prelude.c's CJ_H2 / CJ_H1 / CJ_HCMP macros and
# cj_hfma) in _Float16 arithmetic, which rounds each result to float16 as
# the instructions do
HOST_ASM += [
    (re.compile(r"#define CJ_H2\(name, ins\) .*"),
     r"static unsigned short cj_host_h2(const char *ins, cj_half a, cj_half b) { "
     r"_Float16 x, y, z; memcpy(&x, &a.bits, 2); memcpy(&y, &b.bits, 2); "
     r"z = ins[0] == 'a' ? (_Float16)(x + y) : ins[0] == 's' ? (_Float16)(x - y) : "
     r"(_Float16)(x * y); unsigned short r; memcpy(&r, &z, 2); return r; }" "\n"
     r"#define CJ_H2(name, ins) CJ_DEVICE cj_half name(cj_half a, cj_half b) "
     r"{ return cj_hbits(cj_host_h2(ins, a, b)); }"),
    (re.compile(r"#define CJ_H1\(name, ins\) .*"),
     r"static unsigned short cj_host_h1(const char *ins, cj_half a) { "
     r"return ins[0] == 'n' ? a.bits ^ 0x8000 : a.bits & 0x7fff; }" "\n"
     r"#define CJ_H1(name, ins) CJ_DEVICE cj_half name(cj_half a) "
     r"{ return cj_hbits(cj_host_h1(ins, a)); }"),
    (re.compile(r"#define CJ_HCMP\(name, cmp\) .*"),
     r"static bool cj_host_hcmp(const char *c, cj_half a, cj_half b) { float x = a, y = b; "
     r"return c[0] == 'e' ? x == y : c[0] == 'n' ? x != y : c[1] == 't' ? "
     r"(c[0] == 'l' ? x < y : x > y) : (c[0] == 'l' ? x <= y : x >= y); }" "\n"
     r"#define CJ_HCMP(name, cmp) CJ_DEVICE bool name(cj_half a, cj_half b) "
     r"{ return cj_host_hcmp(cmp, a, b); }"),
    (re.compile(r'asm\("fma\.rn\.f16 %0, %1, %2, %3;" : "=h"\(r\) : "h"\(a\.bits\), '
                r'"h"\(b\.bits\), "h"\(c\.bits\)\);'),
     r"{ _Float16 x, y, z; memcpy(&x, &a.bits, 2); memcpy(&y, &b.bits, 2); "
     r"memcpy(&z, &c.bits, 2); z = (_Float16)std::fma((float)x, (float)y, (float)z); "
     r"memcpy(&r, &z, 2); }"),
]


# PTX `exit` (a raise, a None unwrapped, debug=True's checks) ends the thread:
# a C++ exception that cj_host_launch catches around each thread
HOST_ASM += [(re.compile(r'asm volatile\("exit;"\);'), "throw 1;")]


def host_source(src):
    for pat, rep in HOST_ASM:
        src = pat.sub(rep, src)
    return src

SHIM = r"""
#if __has_include(<vector_types.h>) && __has_include(<vector_functions.h>)
/* CUDA's vector types from the toolkit's own headers where the host compiler
 * finds them (a linked source that includes cuda_fp16.h brings them in, which
 * would clash with definitions of our own); their host_defines.h macros are
 * undone below, so __forceinline__ stays a plain inline here */
#include <vector_types.h>
#include <vector_functions.h>
#define CJ_HOST_CUDA_VECTORS 1
#undef __global__
#undef __device__
#undef __host__
#undef __forceinline__
#undef __noinline__
#undef __restrict__
#undef __constant__
#undef __align__
#endif
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <cmath>
#include <algorithm>
struct cj_dim3 { unsigned x, y, z; };
static cj_dim3 threadIdx, blockIdx, blockDim, gridDim;
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __restrict__
#define __constant__
#define __align__(n) __attribute__((aligned(n)))
static inline float __int_as_float(int i) { float f; memcpy(&f, &i, 4); return f; }
static inline int __float_as_int(float f) { int i; memcpy(&i, &f, 4); return i; }
static inline double __longlong_as_double(long long i) { double f; memcpy(&f, &i, 8); return f; }
static inline long long __double_as_longlong(double f) { long long i; memcpy(&i, &f, 8); return i; }
static inline void __threadfence() {}
static inline void __threadfence_block() {}
static inline void __threadfence_system() {}
template <typename T> static T cj_host_atomic(T *p, T v, int op, T c = T(0))
{
    T old = *p;
    switch (op) {
    case 0: *p = old + v; break;
    case 1: *p = old - v; break;
    case 2: *p = v > old ? v : old; break;
    case 3: *p = v < old ? v : old; break;
    case 4: *p = v; break;
    case 5: *p = old == c ? v : old; break;
    }
    return old;
}
template <typename T, typename U> static T atomicAdd(T *p, U v) { return cj_host_atomic(p, (T)v, 0); }
template <typename T, typename U> static T atomicSub(T *p, U v) { return cj_host_atomic(p, (T)v, 1); }
template <typename T, typename U> static T atomicMax(T *p, U v) { return cj_host_atomic(p, (T)v, 2); }
template <typename T, typename U> static T atomicMin(T *p, U v) { return cj_host_atomic(p, (T)v, 3); }
template <typename T, typename U> static T atomicExch(T *p, U v) { return cj_host_atomic(p, (T)v, 4); }
template <typename T, typename U, typename V> static T atomicCAS(T *p, U c, V v) { return cj_host_atomic(p, (T)v, 5, (T)c); }
template <typename T, typename U> static T atomicAnd(T *p, U v) { T o = *p; *p = o & (T)v; return o; }
template <typename T, typename U> static T atomicOr(T *p, U v) { T o = *p; *p = o | (T)v; return o; }
template <typename T, typename U> static T atomicXor(T *p, U v) { T o = *p; *p = o ^ (T)v; return o; }
template <typename T, typename U> static T atomicInc(T *p, U v) { T o = *p; *p = o >= (T)v ? 0 : o + 1; return o; }
template <typename T, typename U> static T atomicDec(T *p, U v) { T o = *p; *p = (o == 0 || o > (T)v) ? (T)v : o - 1; return o; }
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
static inline int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline unsigned __brev(unsigned x) { unsigned r = 0; for (int k = 0; k < 32; k++) { r = (r << 1) | (x & 1); x >>= 1; } return r; }
static inline unsigned long long __brevll(unsigned long long x) { unsigned long long r = 0; for (int k = 0; k < 64; k++) { r = (r << 1) | (x & 1); x >>= 1; } return r; }
"""



def _vector_shim():
    """CUDA's vector types and their make_* functions (cujit.cuda.float32x4
    is CUDA's float4), which NVRTC knows and the host compiler does not"""
    bases = {"char": "signed char", "short": "short", "int": "int", "longlong": "long long",
             "uchar": "unsigned char", "ushort": "unsigned short", "uint": "unsigned int",
             "ulonglong": "unsigned long long", "float": "float", "double": "double"}
    out = []
    for name, ct in bases.items():
        for n in range(1, 5):
            lanes = "xyzw"[:n]
            out.append("struct %s%d { %s %s; };" % (name, n, ct, ", ".join(lanes)))
            params = ", ".join("%s %s" % (ct, c) for c in lanes)
            out.append("static inline %s%d make_%s%d(%s) { %s%d r = {%s}; return r; }"
                       % (name, n, name, n, params, name, n, ", ".join(lanes)))
    # the toolkit's own where the shim took them (CJ_HOST_CUDA_VECTORS)
    return "#ifndef CJ_HOST_CUDA_VECTORS\n" + "\n".join(out) + "\n#endif\n"


SHIM += _vector_shim()

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
    for (unsigned tx = 0; tx < block[0]; tx++) {
        blockIdx = {bx, by, bz};
        threadIdx = {tx, ty, tz};
        try {
            %s(%s);
        } catch (int) {         /* the thread ended (PTX exit) */
        }
    }
    fflush(stdout);
}
"""

CTYPES = {
    "bool": ctypes.c_bool, "signed char": ctypes.c_int8, "unsigned char": ctypes.c_uint8,
    "short": ctypes.c_int16, "unsigned short": ctypes.c_uint16, "int": ctypes.c_int32,
    "unsigned int": ctypes.c_uint32, "long long": ctypes.c_int64,
    "unsigned long long": ctypes.c_uint64, "float": ctypes.c_float, "double": ctypes.c_double,
    "cj_half": ctypes.c_uint16, "cj_bf16": ctypes.c_uint16,
}
COMPLEX = {"cj_complex64": ctypes.c_float, "cj_complex128": ctypes.c_double}
ENTRY = re.compile(r'extern "C" __global__ void (\w+)\((.*)\)\s*$', re.M)
ARRAY = re.compile(r"cj_array<(.+), (\d+), (int|long long)>$")


def split_params(text):
    """Top-level comma split of a C++ parameter list."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def param_type(p):
    return p.rsplit(" ", 1)[0].strip()


def scalar_ctype(t):
    if t in CTYPES:
        return CTYPES[t]
    if t in COMPLEX:
        class C(ctypes.Structure):
            _fields_ = [("re", COMPLEX[t]), ("im", COMPLEX[t])]
        return C
    return None


def array_struct(t):
    m = ARRAY.match(t)
    if not m or scalar_ctype(m.group(1)) is None:
        return None
    n = int(m.group(2))
    idx = ctypes.c_int32 if m.group(3) == "int" else ctypes.c_int64
    fields = [("data", ctypes.c_void_p)]
    if n:
        fields += [("shape", idx * n), ("strides", idx * n)]
    return type("cj_array", (ctypes.Structure,), {"_fields_": fields})


def marshal(t, value):
    """A ctypes object for one kernel parameter of C++ type t."""
    st = array_struct(t)
    if st is not None:
        a = value
        s = st()
        s.data = a.__array_interface__["data"][0]
        if a.ndim:
            s.shape[:] = list(a.shape)
            s.strides[:] = list(a.strides)
        return s
    if t.startswith("cj_array"):
        raise NotImplementedError("array of " + t)
    ct = scalar_ctype(t)
    if ct is None:
        raise NotImplementedError("parameter type " + t)
    if t in COMPLEX:
        z = complex(value)
        return ct(z.real, z.imag)
    if t == "bool":
        return ct(bool(value))
    if t == "cj_half":
        return ct(int(np.float16(value).view(np.uint16)))
    if t in ("float", "double"):
        return ct(float(value))
    return ct(int(value))


_BUILT = {}


def host_library(src, name, types, stem, prefix=SHIM):
    """The shimmed CUDA `src` built for the host (stem.cpp -> stem.so) and
    loaded, with cj_host_launch calling entry `name` on its parameters, of the
    C++ `types`, read from the argument pointers cujit packed."""
    typedefs = "".join("typedef %s P%d;\n" % (t, k) for k, t in enumerate(types))
    call = ", ".join("*(P%d *)args[%d]" % (k, k) for k in range(len(types)))
    cpp, so = stem + ".cpp", stem + ".so"
    with open(cpp, "w") as f:
        f.write(prefix + src + "\n" + typedefs + LAUNCH % (name, call))
    r = subprocess.run([CXX, "-std=c++17", "-O1", "-w", "-shared", "-fPIC", "-o", so, cpp],
                       capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError("host compile failed:\n" + r.stderr[-3000:])
    return load_host_library(so)


def load_host_library(so):
    lib = ctypes.CDLL(so)
    lib.cj_host_launch.argtypes = [ctypes.POINTER(ctypes.c_void_p),
                                   ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint)]
    return lib


def build(src, name, nparams, tmp):
    key = hashlib.sha1(src.encode()).hexdigest()[:16]
    if key in _BUILT:
        return _BUILT[key]
    m = ENTRY.search(src)
    types = [param_type(p) for p in split_params(m.group(2))]
    _BUILT[key] = lib = host_library(src, name, types[:nparams], os.path.join(tmp, key))
    return lib


def dim3(v):
    v = (v,) if isinstance(v, int) else tuple(v)
    return (ctypes.c_uint * 3)(*(v + (1,) * (3 - len(v))))


@pytest.fixture(scope="module")
def tmpdir_host():
    d = tempfile.mkdtemp(prefix="cujit-host-")
    yield d
    shutil.rmtree(d, ignore_errors=True)


def host_launcher(tmp):
    def launch(kernel, grid, block, args, shared_mem=0):
        # inspect_cuda() without arguments lists what was compiled: "()" names
        # the signature of a kernel that takes no parameters
        src = host_source(kernel.inspect_cuda(*args) if args else kernel.inspect_cuda("()"))
        for what in NEEDS_GPU:
            if what in src:
                pytest.skip("needs a GPU (%s)" % what.strip("(_"))
        m = ENTRY.search(src)
        types = [param_type(p) for p in split_params(m.group(2))]
        try:
            objs = [marshal(t, a) for t, a in zip(types, args)]
        except NotImplementedError as e:
            pytest.skip("the host shim cannot pass this argument: %s" % e)
        lib = build(src, m.group(1), len(types), tmp)
        ptrs = (ctypes.c_void_p * len(objs))(*[ctypes.addressof(o) for o in objs])
        lib.cj_host_launch(ptrs, dim3(grid), dim3(block))
    return launch


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler (g++ or clang++)")
@pytest.mark.parametrize("entry", ENTRIES)
def test_run_on_host(entry, tmpdir_host, capfd):
    from test_kernels_gpu import run_entry
    run_entry(entry, "numpy", capfd, launcher=host_launcher(tmpdir_host))

