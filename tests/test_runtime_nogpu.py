"""The runtime without a GPU: NVRTC to PTX, the disk cache's file format,
import and error behaviour without a driver, and - against a fake libcuda
(tests/fakecuda) - arrays, copies, exports, imports, streams, devices,
kernel loading through the disk cache and error records."""
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import cujit
from cujit import _cujit as C

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAKE_DIR = os.path.join(ROOT, "tests", "fakecuda")

KERNEL = ('extern "C" __global__ void k(float *x, int n)'
          '{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2.0f; }')


def nvrtc_or_skip():
    try:
        return C._nvrtc_version()
    except cujit.CudaError as e:
        pytest.skip("NVRTC not available: %s" % e)


# ---- NVRTC ----

def test_nvrtc_ptx():
    nvrtc_or_skip()
    ptx, cubin, ms = C._nvrtc_compile(KERNEL, "k")
    assert cubin is None and ms > 0
    assert ".visible .entry k(" in ptx and ".target sm_75" in ptx
    ptx, cubin, _ = C._nvrtc_compile(KERNEL, "k", arch="compute_80")
    assert ".target sm_80" in ptx and cubin is None
    # -lineinfo (lineinfo=True): #line directives reach the PTX as .loc / .file
    ptx, _, _ = C._nvrtc_compile('#line 7 "saxpy.py"\n' + KERNEL, "k", options=["-lineinfo"])
    assert "saxpy.py" in ptx and ".loc" in ptx
    ptx, _, _ = C._nvrtc_compile('#line 7 "saxpy.py"\n' + KERNEL, "k")
    assert "saxpy.py" not in ptx and ".loc" not in ptx


def test_nvrtc_cubin():
    nvrtc_or_skip()
    ptx, cubin, _ = C._nvrtc_compile(KERNEL, "k", arch="sm_80", cubin=True)
    assert cubin[:4] == b"\x7fELF" and ".target sm_80" in ptx
    _, cubin, _ = C._nvrtc_compile(KERNEL, "k", arch="compute_80", cubin=True)
    assert cubin is None            # a virtual arch gives PTX only


def test_nvrtc_options():
    nvrtc_or_skip()
    src = 'extern "C" __global__ void k(float *x) { x[0] = VALUE; }'
    ptx, _, _ = C._nvrtc_compile(src, "k", options=["-DVALUE=2.5f"])
    assert "1075838976" in ptx      # the bits of 2.5f
    with pytest.raises(cujit.CudaError, match="NVRTC"):
        C._nvrtc_compile(src, "k", options=["--no-such-option"])


def test_nvrtc_error_log():
    nvrtc_or_skip()
    bad = 'extern "C" __global__ void k(float *x)\n{\n    x[0] = y;\n}\n'
    log = C._nvrtc_compile('#line 10 "user.py"\n' + bad, "k", return_log=True)
    assert isinstance(log, str) and 'user.py(12): error: identifier "y" is undefined' in log
    with pytest.raises(cujit.CudaError) as e:
        C._nvrtc_compile(bad, "k")
    assert "NVRTC failed to compile 'k'" in str(e.value) and "is undefined" in str(e.value)


def test_nvrtc_version():
    major, minor = nvrtc_or_skip()
    assert major >= 11 and minor >= 0


# ---- disk cache format ----

def test_cache_keys():
    k = C._cache_key("src", "k", "", "sm_90")
    assert len(k) == 32 and int(k, 16) >= 0
    assert k == C._cache_key("src", "k", "", "sm_90")
    others = {C._cache_key("src2", "k", "", "sm_90"), C._cache_key("src", "k2", "", "sm_90"),
              C._cache_key("src", "k", "x", "sm_90"), C._cache_key("src", "k", "", "sm_80"),
              C._cache_key("src", "k", "", "sm_90", ["-DX"])}
    assert len(others) == 5 and k not in others


def test_cache_roundtrip(tmp_path):
    d = str(tmp_path / "a" / "b")          # created on first store
    k = C._cache_key("src", "k")
    assert C._cache_load(d, k) is None
    cubin, ptx = os.urandom(3000), ".version 9.0\n// ptx\n"
    path = C._cache_store(d, k, cubin, ptx)
    assert path == os.path.join(d, k + ".cjc")
    assert C._cache_load(d, k) == (cubin, ptx)
    assert not [f for f in os.listdir(d) if f.startswith(".")]     # no temp file left
    k2, k3 = C._cache_key("ptx only", "k"), C._cache_key("cubin only", "k")
    C._cache_store(d, k2, None, ptx)
    C._cache_store(d, k3, cubin, None)
    assert C._cache_load(d, k2) == (None, ptx) and C._cache_load(d, k3) == (cubin, None)
    C._cache_store(d, k, b"new", "new ptx")                         # replaced
    assert C._cache_load(d, k) == (b"new", "new ptx")


def test_cache_rejects_damaged_entries(tmp_path):
    d = str(tmp_path)
    k = C._cache_key("src", "k")
    cubin, ptx = os.urandom(4000), ".version 9.0\n" + "// x\n" * 100
    path = C._cache_store(d, k, cubin, ptx)
    data = open(path, "rb").read()

    def write(b):
        with open(path, "wb") as f:
            f.write(b)

    for n in (0, 1, 8, 40, 71, 72, 100, len(data) - 1):            # truncated
        write(data[:n])
        assert C._cache_load(d, k) is None, n
    for i in (0, 8, 12, 20, 40, 48, 56, 64, 100, 3000, len(data) - 2, len(data) - 1):
        b = bytearray(data)                                           # one bit flipped
        b[i] ^= 0x10
        write(bytes(b))
        assert C._cache_load(d, k) is None, i
    write(data + b"\0")                                               # trailing bytes
    assert C._cache_load(d, k) is None
    other = C._cache_store(d, C._cache_key("other source", "k"), cubin, ptx)
    os.replace(other, path)                                           # foreign entry
    assert C._cache_load(d, k) is None
    write(b"CUJITC01" + os.urandom(200))
    assert C._cache_load(d, k) is None
    write(data)
    assert C._cache_load(d, k) == (cubin, ptx)


def test_cache_info_and_clear(tmp_path, monkeypatch):
    monkeypatch.setenv("CUJIT_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("CUJIT_CACHE", raising=False)
    info = cujit.cache_info()
    assert info["dir"] == str(tmp_path) and info["enabled"] and info["entries"] == 0
    for key in ("bytes", "hits", "misses", "rejected"):
        assert key in info
    for i in range(3):
        C._cache_store(str(tmp_path), C._cache_key("s%d" % i, "k"), b"x" * 10, "p")
    (tmp_path / "unrelated.txt").write_text("keep me")
    (tmp_path / ".cjtmp-0-1-2.tmp").write_text("stale temp file")
    info = cujit.cache_info()
    assert info["entries"] == 3 and info["bytes"] > 30
    assert cujit.clear_cache() == 4
    assert os.listdir(tmp_path) == ["unrelated.txt"]
    monkeypatch.setenv("CUJIT_CACHE", "0")
    assert not cujit.cache_info()["enabled"]


# ---- without a driver ----

def test_import_loads_no_cuda_library():
    code = ("import cujit, sys\n"
            "maps = open('/proc/self/maps').read()\n"
            "sys.exit(('libcuda' in maps) * 1 + ('libnvrtc' in maps) * 2)\n")
    if not os.path.exists("/proc/self/maps"):
        pytest.skip("needs /proc")
    r = subprocess.run([sys.executable, "-c", code], env=dict(os.environ))
    assert r.returncode == 0, "import cujit loaded libcuda (1) / libnvrtc (2): %d" % r.returncode


def test_no_driver_raises_cuda_error():
    if cujit.is_available():
        pytest.skip("a CUDA driver and GPU are present")
    assert issubclass(cujit.CudaError, RuntimeError)
    assert issubclass(cujit.OutOfMemoryError, cujit.CudaError)
    assert issubclass(cujit.OutOfMemoryError, MemoryError)
    for fn in (lambda: cujit.zeros(3), lambda: cujit.to_device(np.arange(3)),
               lambda: cujit.empty((2, 2)), lambda: cujit.get_device(), lambda: cujit.Stream(),
               lambda: cujit.Event(), lambda: cujit.synchronize(), lambda: cujit.Device(0)):
        with pytest.raises(cujit.CudaError) as e:
            fn()
        msg = str(e.value)
        assert "libcuda.so.1" in msg or "cuInit" in msg or "no GPU" in msg, msg
    # what does not need the driver keeps working
    cujit.release_memory()
    assert isinstance(cujit.cache_info(), dict)


# ---- against the fake driver ----

def build_shared(tmp_path_factory, what, src, name, *flags):
    """tests/fakecuda/<src> built as a shared object <name> in a fresh folder
    (its folder); skips where there is no C compiler on Linux"""
    cc = os.environ.get("CC", "cc")
    if not shutil.which(cc) or not sys.platform.startswith("linux"):
        pytest.skip("needs a C compiler on Linux to build " + what)
    out = tmp_path_factory.mktemp(os.path.splitext(src)[0])
    r = subprocess.run([cc, "-shared", "-fPIC", "-O1", *flags, "-o", str(out / name),
                        os.path.join(FAKE_DIR, src)], capture_output=True, text=True)
    assert r.returncode == 0, "cannot build %s: %s" % (what, r.stderr[-1500:])
    return str(out)


@pytest.fixture(scope="module")
def fake_driver(tmp_path_factory):
    return build_shared(tmp_path_factory, "the fake libcuda", "fakecuda.c", "libcuda.so.1")


def run_scenario(fake_driver, name, cache_dir, *args, **env):
    e = dict(os.environ, CUJIT_CACHE_DIR=str(cache_dir),
             LD_LIBRARY_PATH=fake_driver + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    e.pop("CUJIT_CACHE", None)
    e.update(env)
    r = subprocess.run([sys.executable, os.path.join(FAKE_DIR, "scenarios.py"), name] + list(args),
                       env=e, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, "scenario %s failed:\n%s\n%s" % (name, r.stdout, r.stderr)
    assert "%s ok" % name in r.stdout
    return r


@pytest.mark.parametrize("name", ["arrays", "errors", "imports", "streams", "devices", "no_leaks",
                                  "call_style", "records", "foreign"])
def test_fake_driver(fake_driver, tmp_path, name):
    run_scenario(fake_driver, name, tmp_path)


def test_fake_driver_without_pools(fake_driver, tmp_path):
    run_scenario(fake_driver, "no_pool", tmp_path, FAKECUDA_NOPOOL="1")


def test_fake_driver_no_device(fake_driver, tmp_path):
    run_scenario(fake_driver, "no_device", tmp_path, FAKECUDA_NODEV="1")


@pytest.fixture(scope="module")
def fake_cupy(tmp_path_factory):
    import sysconfig
    return build_shared(tmp_path_factory, "_fakecupy", "fakecupy.c",
                        "_fakecupy" + sysconfig.get_config_var("EXT_SUFFIX"), "-Wall", "-Werror",
                        "-I" + sysconfig.get_paths()["include"])


@pytest.mark.parametrize("fields", ["1", "0"])
def test_fake_driver_cupy_fields(fake_driver, fake_cupy, tmp_path, fields):
    run_scenario(fake_driver, "cupy_fields", tmp_path, FAKECUPY_DIR=fake_cupy,
                 CUJIT_CUPY_FIELDS=fields)


@pytest.mark.parametrize("nocoop", ["0", "1"])
def test_fake_driver_cooperative_launch(fake_driver, tmp_path, nocoop):
    """this_grid().sync(): cuLaunchCooperativeKernel after the residency check"""
    nvrtc_or_skip()
    env = {"FAKECUDA_NOCOOP": "1"} if nocoop == "1" else {}
    run_scenario(fake_driver, "cooperative", tmp_path, **env)


def test_fake_driver_kernels_and_disk_cache(fake_driver, tmp_path):
    nvrtc_or_skip()
    r = run_scenario(fake_driver, "kernels", tmp_path, "first", CUJIT_LOG="1")
    assert "cujit: kernel scale2 (sm_90): nvrtc" in r.stderr and "disk cache miss" in r.stderr
    entries = sorted(f for f in os.listdir(tmp_path) if f.endswith(".cjc"))
    assert len(entries) == 2
    r = run_scenario(fake_driver, "kernels", tmp_path, "second", CUJIT_LOG="1")
    assert r.stderr.count("disk cache hit") == 2
    # a damaged entry is ignored, recompiled and replaced
    for f in entries:
        p = tmp_path / f
        p.write_bytes(p.read_bytes()[:-7])
    run_scenario(fake_driver, "kernels", tmp_path, "first")
    run_scenario(fake_driver, "kernels", tmp_path, "second")
    assert sorted(f for f in os.listdir(tmp_path) if f.endswith(".cjc")) == entries


def test_fake_driver_fast_compile(fake_driver, tmp_path):
    major, minor = nvrtc_or_skip()
    r = run_scenario(fake_driver, "fast_compile", tmp_path, CUJIT_LOG="1")
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("cujit: kernel")]
    vec = [ln for ln in lines if "cj_vec_f" in ln]
    red = [ln for ln in lines if "cj_red_add" in ln]
    assert len(vec) == 1 and len(red) == 1, lines
    if (major, minor) >= (12, 8):
        assert "(--Ofast-compile=min)" in vec[0], vec
    assert "Ofast-compile" not in red[0], red
    # the pipeline times each stage of both forms, and their launch
    for ln in vec + red:
        ms = {w: float(v) for w, v in re.findall(r"(?:: |, )([a-z ]+?) (\d+\.\d+) ms", ln)}
        assert set(ms) >= {"source", "parse", "frontend", "typeinfer", "codegen", "key", "disk",
                           "nvrtc", "module", "launch", "total"}, ln
        assert all(v >= 0 for v in ms.values()) and ms["nvrtc"] > 0, ln
        assert ms["parse"] > 0 and ms["total"] >= ms["nvrtc"] + ms["launch"], ln
    # turned off: the elementwise kernel gets another cache key, the
    # reduction keeps its own
    r = run_scenario(fake_driver, "fast_compile", tmp_path / "off", CUJIT_LOG="1",
                     CUJIT_FAST_COMPILE="0")
    assert "Ofast-compile" not in r.stderr
    with_fast = sorted(f for f in os.listdir(tmp_path) if f.endswith(".cjc"))
    without = sorted(f for f in os.listdir(tmp_path / "off") if f.endswith(".cjc"))
    assert len(with_fast) == 2 and len(without) == 2
    assert len(set(with_fast) & set(without)) == 1      # the reduction's entry only


FIELDS = ["import", "cuda init", "front key miss", "source", "parse", "frontend", "typeinfer",
          "codegen", "key", "disk", "nvrtc", "module", "launch", "total"]


def log_fields(ln):
    """{field: ms} of a CUJIT_LOG kernel line, in the order printed"""
    return {w: float(v) for w, v in re.findall(r"(?:: |, )([a-z ]+?) (\d+\.\d+) ms", ln)}


def test_fake_driver_first_call_log(fake_driver, tmp_path):
    """A first call's CUJIT_LOG line has every part, in order, once it is
    launched; the import and the driver's set-up only on the first line of
    the process; nothing for a second call; compile() has no launch."""
    nvrtc_or_skip()
    for cache in ("miss (stored)", "hit"):
        r = run_scenario(fake_driver, "first_call_log", tmp_path, CUJIT_LOG="1")
        parts = r.stderr.split("LAUNCH 1\n")[1].split("LAUNCH 2\n")
        first = [ln for ln in parts[0].splitlines() if ln.startswith("cujit: kernel")]
        assert len(first) == 1, r.stderr
        ms = log_fields(first[0])
        want = FIELDS if cache != "hit" else [f.replace("miss", "hit") for f in FIELDS]
        assert list(ms) == want, first[0]
        assert first[0].endswith("disk cache " + cache), first[0]
        assert ms["import"] > 0 and all(v >= 0 for v in ms.values()), first[0]
        # the parts add up to the total (each printed rounded)
        assert abs(ms["total"] - sum(v for k, v in ms.items() if k not in ("import", "total"))) \
            < 0.1 + 1e-3 * ms["total"], first[0]
        if cache != "hit":
            assert ms["parse"] > 0 and ms["nvrtc"] > 0, first[0]
        else:
            assert ms["parse"] == ms["nvrtc"] == 0, first[0]
        second, rest = parts[1].split("COMPILE\n")
        assert "cujit: kernel" not in second, r.stderr
        comp = [ln for ln in rest.split("END\n")[0].splitlines() if ln.startswith("cujit: kernel")]
        assert len(comp) == 1 and "launch" not in comp[0] and "import" not in comp[0], comp
        assert "cuda init" not in comp[0] and "total" in comp[0], comp


def test_fake_driver_nvrtc_preload(fake_driver, tmp_path):
    nvrtc_or_skip()
    run_scenario(fake_driver, "preload", tmp_path)
    run_scenario(fake_driver, "preload", tmp_path, CUJIT_PRELOAD_NVRTC="0")


KMOD = """import os
import cujit
from cujit import jit
import kdev
N = int(os.environ.get("KN", "1"))


@jit.rawkernel()
def scale2(x, n):
    i = jit.threadIdx.x + jit.blockIdx.x * jit.blockDim.x
    if i < n:
        x[i] = kdev.twice(x[i]) * N


@cujit.vectorize
def f(a, b):
    return a * b + 1.0


@cujit.reduce(identity=0)
def add(a, b):
    return a + b


class Cfg:
    n = 3


CFG = Cfg()


@jit.rawkernel()
def other(x):
    x[0] = CFG.n        # an object's attribute: not keyable, never a stale hit


def make(k):
    @jit.rawkernel()
    def fill(x):
        x[0] = k        # a closure cell: two products, two keys
    return fill


fill2, fill7 = make(2.5), make(7.5)
"""

KDEV = """from cujit import jit


@jit.rawkernel(device=True)
def twice(v):
    return v * %s
"""


def front_run(fake_driver, tmp_path, **env):
    """the front_key scenario in a fresh process: {label: 'hit' | 'miss'}
    from CUJIT_LOG, and what it printed"""
    import json
    env = dict(CUJIT_LOG="1", PYTHONDONTWRITEBYTECODE="1", **env)
    r = run_scenario(fake_driver, "front_key", tmp_path / "cache", str(tmp_path / "src"), **env)
    states = {}
    for ln in r.stderr.splitlines():
        if ": front key " in ln and ln.startswith("cujit: ") and "(sm_" not in ln:
            label = ln[len("cujit: "):ln.index(": front key")].split("(")[0]
            state = ln.split(": front key ")[1]
            states.setdefault(label, set()).add(state.split(",")[0].split(" (")[0].split(":")[0])
    out = json.loads(r.stdout.splitlines()[-2])
    return {k: "/".join(sorted(v)) for k, v in states.items()}, out, r.stderr


def test_fake_driver_front_key(fake_driver, tmp_path):
    """A first call whose result is in the disk cache runs no frontend,
    typeinfer or codegen; a changed callee, global constant or cujit
    version is a miss, and results and CUDA stay right."""
    nvrtc_or_skip()
    src = tmp_path / "src"
    src.mkdir()
    (src / "kmod.py").write_text(KMOD)
    (src / "kdev.py").write_text(KDEV % "2")
    all_miss = {"scale2": "miss", "vectorize f": "miss", "reduce add": "miss",
                "other": "not keyed", "fill": "miss"}
    all_hit = dict(all_miss, scale2="hit", fill="hit",
                   **{"vectorize f": "hit", "reduce add": "hit"})
    states, first, _ = front_run(fake_driver, tmp_path)
    assert states == all_miss, states
    assert first["scale2"] == [2.0 * i for i in range(8)]
    states, second, err = front_run(fake_driver, tmp_path)
    assert states == all_hit, states
    assert second == first                          # the same CUDA, the same results
    assert "2.5" in second["fill2"] and "7.5" in second["fill7"]
    kernel_lines = [ln for ln in err.splitlines() if ln.startswith("cujit: kernel")]
    assert len(kernel_lines) == 3 and all("front key hit" in ln and "frontend 0.00 ms" in ln
                                          and "disk cache hit" in ln for ln in kernel_lines)
    # the callee's body changes (same file size): the kernel misses, the forms hit
    (src / "kdev.py").write_text(KDEV % "3")
    states, out, _ = front_run(fake_driver, tmp_path)
    assert states == dict(all_hit, scale2="miss"), states
    (cuda,) = out["cuda"].values()
    assert "* 3.0f" in cuda or "3.0f *" in cuda or "* 3" in cuda, cuda
    assert out["cuda"] != first["cuda"] and out["f"] == first["f"]
    # a global constant the kernel reads changes, its file does not
    states, out2, _ = front_run(fake_driver, tmp_path, KN="5")
    assert states == dict(all_hit, scale2="miss"), states
    assert out2["cuda"] != out["cuda"] and "5.0f" in list(out2["cuda"].values())[0]
    # another cujit version misses everything, then hits
    states, _, _ = front_run(fake_driver, tmp_path, KN="5", CUJIT_TEST_VERSION="9.9.9")
    assert states == all_miss, states
    states, again, _ = front_run(fake_driver, tmp_path, KN="5", CUJIT_TEST_VERSION="9.9.9")
    assert states == all_hit and again == out2, states
    # turned off: no key
    states, off, _ = front_run(fake_driver, tmp_path, KN="5", CUJIT_FRONT_KEY="0")
    assert set(states.values()) == {"not keyed"} and off == out2, states
    # damaged index records are misses, and are written again
    for p in (tmp_path / "cache").glob("*.cjr"):
        p.write_bytes(p.read_bytes()[:-3])
    states, _, _ = front_run(fake_driver, tmp_path, KN="5", CUJIT_TEST_VERSION="9.9.9")
    assert states == all_miss, states
    states, _, _ = front_run(fake_driver, tmp_path, KN="5", CUJIT_TEST_VERSION="9.9.9")
    assert states == all_hit, states


@pytest.mark.parametrize("what", ["kernel", "device", "vectorize", "reduce"])
def test_fake_driver_nvrtc_preload_at_definition(fake_driver, tmp_path, what):
    nvrtc_or_skip()
    r = run_scenario(fake_driver, "preload_at_definition", tmp_path, what, "on")
    assert "ok running" in r.stdout or "ok done" in r.stdout
    if what == "kernel":
        r = run_scenario(fake_driver, "preload_at_definition", tmp_path, what, "off",
                         CUJIT_PRELOAD_NVRTC="0")
        assert "ok idle" in r.stdout
        run_scenario(fake_driver, "preload_at_definition", tmp_path, what, "device",
                     CUJIT_PRELOAD_NVRTC="device")


def test_fake_driver_sticky_error(fake_driver, tmp_path):
    nvrtc_or_skip()
    run_scenario(fake_driver, "sticky_error", tmp_path)


# ---- example arguments given to inspect_*: __cuda_array_interface__ ----

class _CAI:
    """An object that only exposes __cuda_array_interface__ (no memory)."""

    def __init__(self, shape, typestr, strides=None, readonly=False, mask=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr,
                                         "strides": strides, "data": (0, readonly),
                                         "version": 3, "mask": mask}


def test_inspect_reads_cuda_array_interface():
    from cujit import jit

    @jit.rawkernel()
    def k(x, y):
        i = jit.grid(1)
        if i < y.shape[0]:
            y[i, 0] = x[i, 0]

    # C-ordered float32 and F-ordered float64 (strides in bytes), read the
    # same way the launch path reads them
    k.inspect_cuda(_CAI((4, 5), "<f4"), _CAI((4, 5), "<f8", strides=(8, 32)))
    assert k.signatures == ["(float32[:, ::1], float64[::1, :])"]
    with pytest.raises(TypeError, match="masked arrays"):
        k.inspect_cuda(_CAI((4, 5), "<f4", mask=object()), _CAI((4, 5), "<f4"))
    with pytest.raises(TypeError, match="typestr '<V4'"):
        k.inspect_cuda(_CAI((4, 5), "<V4"), _CAI((4, 5), "<f4"))
