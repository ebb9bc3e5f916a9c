"""Where NVRTC's time goes for cujit's generated CUDA, against the same
kernels written by hand, in this process (NVRTC runs on the CPU: no GPU
needed; figures from a loaded machine are noisy, so each case is timed
several times in rounds taking turns and the medians printed).

    python3 bench/nvrtc_probe.py [--runs N] [--only NAME,...] [--variants V,...]

1. Collects the CUDA cujit generates for saxpy (a raw kernel, with its
   coarsened `_x4` entry), a 4-line @vectorize and the stdlib's most common
   operations (x + y, x * 2.0, x.sum(), m.sum(axis=1), argmax, cumsum,
   where; float32 and int64) from a child process run with CUJIT_DUMP=1 and
   an empty cache.  Without a GPU the child runs against tests/fakecuda's
   fake libcuda (built here), where the kernels compile but do not run.
2. Times nvrtcCompileProgram (this thread's CPU time, and wall time) for
   each source under variants of the options and of the text: as cujit
   compiles it, PTX only, without -lineinfo, without the -I options, other
   -std=, -default-device, without the #line marks, the prelude's unused
   parts dropped, the first entry only, --Ofast-compile levels; and NVRTC's
   own phase split (--time: front end, NVVM optimizer, PTX -> CUBIN)."""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

COLLECT = r'''
import sys
import numpy as np
import cujit
from cujit import jit

@jit.rawkernel()
def saxpy(a, x, y, out):
    i = jit.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]

@cujit.vectorize
def fma1(x, y):
    t = x * y
    u = t + 1.0
    return u

rng = np.random.default_rng(1)
for dt in (np.float32, np.int64):
    hx = (rng.random(4096) * 100).astype(dt)
    x = cujit.to_device(hx); y = cujit.to_device(hx[::-1].copy())
    m = cujit.to_device((rng.random((64, 64)) * 100).astype(dt))
    if dt == np.float32:
        saxpy[16, 256](np.float32(2.0), x, y, cujit.empty_like(x))
        fma1(x, y)
    x + y
    x * 2.0
    x.sum()
    m.sum(axis=1)
    cujit.argmax(x)
    cujit.cumsum(x)
    cujit.where(x > y, x, y)
cujit.synchronize()
'''

BASE = ["-lineinfo", "--std=c++17", "-minimal"]


def include_opts():
    """The -I options cujit passes (the toolkit's headers, found as it finds them)."""
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    inc = os.path.join(home, "include")
    out = ["-I" + inc] if os.path.exists(os.path.join(inc, "cuda_fp16.h")) else []
    if out and os.path.isdir(os.path.join(inc, "cccl")):
        out.append("-I" + os.path.join(inc, "cccl"))
    return out


def fake_driver(tmp):
    """The fake libcuda of tests/fakecuda, built in tmp; its folder."""
    cc = os.environ.get("CC", "cc")
    lib = os.path.join(tmp, "libcuda.so.1")
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", lib,
                    os.path.join(ROOT, "tests", "fakecuda", "fakecuda.c")], check=True)
    return tmp


def have_gpu():
    r = subprocess.run([sys.executable, "-c", "import cujit, sys; "
                        "sys.exit(0 if cujit.is_available() else 1)"],
                       capture_output=True, env=dict(os.environ, PYTHONPATH=ROOT))
    return r.returncode == 0


def collect():
    """{kernel name: (CUDA text, uses --Ofast-compile=min)} from a child's CUJIT_DUMP."""
    tmp = tempfile.mkdtemp(prefix="cujit-probe-")
    try:
        # one compile at a time: each dump is followed by its own log line
        env = dict(os.environ, CUJIT_DUMP="1", CUJIT_LOG="1", CUJIT_CACHE_DIR=tmp,
                   CUJIT_FRONT_KEY="0", CUJIT_PARALLEL_COMPILE="0", PYTHONPATH=ROOT)
        if not have_gpu():
            d = fake_driver(tmp)
            env["LD_LIBRARY_PATH"] = d + os.pathsep + env.get("LD_LIBRARY_PATH", "")
        script = os.path.join(tmp, "collect.py")
        with open(script, "w") as f:
            f.write(COLLECT)
        p = subprocess.run([sys.executable, script], env=env, capture_output=True,
                           text=True, timeout=900)
        if p.returncode != 0:
            sys.exit("collecting the sources failed:\n" + p.stderr[-3000:])
        return parse_dump(p.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def parse_dump(text):
    out, cur, lines = {}, None, []
    for ln in text.splitlines(keepends=True):
        if re.match(r"// ---- cujit: .* ----$", ln.rstrip("\n")):
            cur, lines = True, []
        elif cur and ln.startswith("cujit: kernel "):
            out[ln.split()[2]] = ("".join(lines), "--Ofast-compile=min" in ln)
            cur = None
        elif cur:
            lines.append(ln)
    return out


# ---- the same kernels written by hand, as small as they come ----

HAND = {
    "saxpy": ("saxpy", False, r'''
extern "C" __global__ void saxpy(float a, const float *x, const float *y, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = a * x[i] + y[i];
    }
}
'''),
    "binary": ("binary", True, r'''
extern "C" __global__ void binary(const float *x, const float *y, float *out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        out[i] = x[i] * y[i] + 1.0f;
    }
}
'''),
    "sum": ("sum", False, r'''
extern "C" __global__ void sum(const float *x, float *out, int n)
{
    __shared__ float part[32];
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        v += x[i];
    }
    for (int d = 16; d > 0; d >>= 1) {
        v += __shfl_down_sync(0xffffffffu, v, d);
    }
    if ((threadIdx.x & 31) == 0) {
        part[threadIdx.x >> 5] = v;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < blockDim.x >> 5; w++) {
            v += part[w];
        }
        atomicAdd(out, v);
    }
}
'''),
    "argmax": ("argmax", False, r'''
extern "C" __global__ void argmax(const float *x, float *bv, long long *bi, int n)
{
    __shared__ float sv[32];
    __shared__ long long si[32];
    float v = -__int_as_float(0x7f800000);
    long long k = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        if (x[i] > v) {
            v = x[i];
            k = i;
        }
    }
    for (int d = 16; d > 0; d >>= 1) {
        float ov = __shfl_down_sync(0xffffffffu, v, d);
        long long ok = __shfl_down_sync(0xffffffffu, k, d);
        if (ov > v || (ov == v && ok < k)) {
            v = ov;
            k = ok;
        }
    }
    if ((threadIdx.x & 31) == 0) {
        sv[threadIdx.x >> 5] = v;
        si[threadIdx.x >> 5] = k;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < blockDim.x >> 5; w++) {
            if (sv[w] > v || (sv[w] == v && si[w] < k)) {
                v = sv[w];
                k = si[w];
            }
        }
        bv[blockIdx.x] = v;
        bi[blockIdx.x] = k;
    }
}
'''),
    "cumsum": ("cumsum", False, r'''
extern "C" __global__ void cumsum(const float *x, float *out, float *carry, int n)
{
    __shared__ float s[1024];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int d = 1; d < blockDim.x; d <<= 1) {
        float t = threadIdx.x >= d ? s[threadIdx.x - d] : 0.0f;
        __syncthreads();
        s[threadIdx.x] += t;
        __syncthreads();
    }
    if (i < n) {
        out[i] = s[threadIdx.x];
    }
    if (threadIdx.x == blockDim.x - 1) {
        carry[blockIdx.x] = s[threadIdx.x];
    }
}
'''),
    "where": ("where", True, r'''
extern "C" __global__ void where(const bool *c, const float *x, const float *y, float *out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        out[i] = c[i] ? x[i] : y[i];
    }
}
'''),
}


# ---- variants of a source and its options ----

def entries(src):
    """Offsets of each `extern "C" __global__` entry (with its comment and #line)."""
    return [m.start() for m in re.finditer(r'(?m)^(/\*[^\n]*\*/\n)?(#line[^\n]*\n)?extern "C" '
                                           r'__global__', src)]


def first_entry_only(src):
    e = entries(src)
    return src[:e[1]] if len(e) > 1 else src


def no_line_marks(src):
    return re.sub(r"(?m)^#line[^\n]*\n", "", src)


def used_prelude_only(src):
    """Drops the prelude's templates that the rest of the text never names."""
    parts = [("cj_array<T, 0, I>", r"template <typename T, typename I> struct cj_array<T, 0, I> "
              r"\{\n    T \*data;\n\};\n", r"cj_array<[^>]*, 0,"),
             ("cj_at", r"template <typename T, typename I> CJ_DEVICE T &cj_at\(T \*p, I off\)\n"
              r"\{\n    return \*\(T \*\)\(\(char \*\)p \+ off\);\n\}\n", r"cj_at\("),
             ("cj_max", r"template <typename T> CJ_DEVICE T cj_max\(T a, T b\)[^\n]*\n", r"cj_max\("),
             ("cj_min", r"template <typename T> CJ_DEVICE T cj_min\(T a, T b\)[^\n]*\n", r"cj_min\("),
             ("cj_sq", r"template <typename T> CJ_DEVICE T cj_sq\(T x\)[^\n]*\n", r"cj_sq\(")]
    for _, decl, use in parts:
        m = re.search(decl, src)
        if m and not re.search(use, src[:m.start()] + src[m.end():]):
            src = src[:m.start()] + src[m.end():]
    return src


def variants(fast):
    """(label, text transform, arch, cubin, options) per variant."""
    inc = include_opts()
    own = BASE + inc + (["--Ofast-compile=min"] if fast else [])
    same = (lambda s: s)

    def without(*drop):
        return [o for o in own if o not in drop]

    return [
        ("as cujit", same, "sm_90", True, own),
        ("ptx only", same, "compute_90", False, own),
        ("-lineinfo off", same, "sm_90", True, without("-lineinfo")),
        ("no -I", same, "sm_90", True, without(*inc)),
        ("std c++11", same, "sm_90", True, without("--std=c++17") + ["--std=c++11"]),
        ("std default", same, "sm_90", True, without("--std=c++17")),
        ("-default-device", same, "sm_90", True, own + ["-default-device"]),
        ("no #line", no_line_marks, "sm_90", True, own),
        ("used prelude", used_prelude_only, "sm_90", True, own),
        ("1st entry only", first_entry_only, "sm_90", True, own),
        ("Ofc=min", same, "sm_90", True, without("--Ofast-compile=min") + ["--Ofast-compile=min"]),
        ("Ofc=mid", same, "sm_90", True, without("--Ofast-compile=min") + ["--Ofast-compile=mid"]),
        ("Ofc=max", same, "sm_90", True, without("--Ofast-compile=min") + ["--Ofast-compile=max"]),
        ("Ofc=0", same, "sm_90", True, without("--Ofast-compile=min")),
    ]


def compile_once(C, src, name, arch, cubin, opts):
    """(thread CPU ms, wall ms, PTX) of one nvrtcCompileProgram and its outputs."""
    c0, w0 = time.thread_time(), time.perf_counter()
    ptx, _, _ = C._nvrtc_compile(src, name, arch=arch, cubin=cubin, options=opts)
    return 1e3 * (time.thread_time() - c0), 1e3 * (time.perf_counter() - w0), ptx


def phases(C, src, name, opts):
    """NVRTC's --time split: {phase: ms}."""
    fd, path = tempfile.mkstemp(suffix=".csv")
    os.close(fd)
    os.remove(path)
    try:
        C._nvrtc_compile(src, name, arch="sm_90", cubin=True, options=opts + ["--time=" + path])
        out = {}
        for ln in open(path).read().splitlines()[1:]:
            f = [x.strip() for x in ln.split(",")]
            if len(f) >= 3:
                out[f[1]] = out.get(f[1], 0) + float(f[2])
        return out
    finally:
        if os.path.exists(path):
            os.remove(path)


def ptx_instructions(ptx):
    """Instructions in the PTX (lines ending in ';' that are not declarations)."""
    return sum(1 for ln in ptx.splitlines()
               if ln.strip().endswith(";") and not ln.strip().startswith((".", "//", "{", "}")))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default="", help="kernel names (substrings), comma separated")
    ap.add_argument("--variants", default="", help="variant labels, comma separated")
    ap.add_argument("--save", default="", help="write the collected sources to this JSON file")
    a = ap.parse_args()

    t0 = time.perf_counter()
    srcs = collect()
    if a.save:
        with open(a.save, "w") as f:
            json.dump(srcs, f, indent=1)
    t1 = time.perf_counter()
    from cujit import _cujit as C
    C._nvrtc_version()
    t2 = time.perf_counter()
    print(f"sources of {len(srcs)} kernels collected in {t1 - t0:.1f} s; "
          f"NVRTC loaded in {1e3 * (t2 - t1):.1f} ms")
    cases = [(k, s, f, "cujit") for k, (s, f) in srcs.items()]
    cases += [(name, s, f, "hand:" + label) for label, (name, f, s) in HAND.items()]
    if a.only:
        want = a.only.split(",")
        cases = [c for c in cases if any(w in c[0] or w in c[3] for w in want)]
    first = compile_once(C, HAND["saxpy"][2], "saxpy", "sm_90", True, BASE + include_opts())
    print(f"first compile of the process: {first[1]:.1f} ms wall ({first[0]:.1f} ms CPU)\n")

    labels = [v[0] for v in variants(False)]
    if a.variants:
        labels = [v for v in labels if v in a.variants.split(",")]
    cpu = {}
    for r in range(a.runs):                     # rounds taking turns
        for name, src, fast, who in cases:
            for label, tf, arch, cubin, opts in variants(fast):
                if label not in labels:
                    continue
                c, w, ptx = compile_once(C, tf(src), name, arch, cubin, opts)
                cpu.setdefault((name, label), []).append((c, w, ptx_instructions(ptx)))
    print("CPU ms of nvrtcCompileProgram (median of %d; wall in the last column for 'as "
          "cujit'); PTX instructions\n" % a.runs)
    print(f"{'kernel':44s} {'lines':>5s} " + " ".join(f"{lb[:14]:>14s}" for lb in labels)
          + f" {'wall':>7s} {'ptx ins':>7s}")
    for name, src, fast, who in cases:
        row = [statistics.median(x[0] for x in cpu[(name, lb)]) for lb in labels]
        base = cpu[(name, labels[0])]
        print(f"{(who + ' ' + name)[:44]:44s} {src.count(chr(10)):5d} "
              + " ".join(f"{v:14.1f}" for v in row)
              + f" {statistics.median(x[1] for x in base):7.1f} {base[0][2]:7d}")
    print("\nNVRTC's phases (--time, one run each, ms), as cujit compiles:")
    for name, src, fast, who in cases:
        ph = phases(C, src, name, variants(fast)[0][4])
        print(f"  {(who + ' ' + name)[:44]:44s} " + ", ".join(f"{k} {v:.0f}" for k, v in ph.items()))


if __name__ == "__main__":
    main()
