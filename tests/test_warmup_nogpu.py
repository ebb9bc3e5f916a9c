"""The stdlib ready before first use, without a GPU (against the fake libcuda
of tests/fakecuda, where kernels compile through NVRTC but do not run):
`python -m cujit warmup` fills an empty disk cache and a later process's
first use of each operation reads it; its errors; cujit.warmup(background=
True); the kernels of one operation compiled together on threads
(CUJIT_PARALLEL_COMPILE) and jit.rawkernel(fast_compile=True)."""
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import cujit
from cujit import _cujit as C

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAKE_DIR = os.path.join(ROOT, "tests", "fakecuda")


@pytest.fixture(scope="module")
def fake_driver(tmp_path_factory):
    cc = os.environ.get("CC", "cc")
    if not shutil.which(cc) or not sys.platform.startswith("linux"):
        pytest.skip("needs a C compiler on Linux to build the fake libcuda")
    try:
        C._nvrtc_version()
    except cujit.CudaError as e:
        pytest.skip("NVRTC not available: %s" % e)
    out = tmp_path_factory.mktemp("fakecuda")
    lib = str(out / "libcuda.so.1")
    r = subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", lib,
                        os.path.join(FAKE_DIR, "fakecuda.c")], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip("cannot build the fake libcuda: " + r.stderr[-500:])
    return str(out)


def env_for(fake_driver, cache, **extra):
    e = dict(os.environ, CUJIT_CACHE_DIR=str(cache),
             LD_LIBRARY_PATH=fake_driver + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    for v in ("CUJIT_CACHE", "CUJIT_LOG", "CUJIT_PARALLEL_COMPILE", "CUJIT_FAST_COMPILE"):
        e.pop(v, None)
    e.update(extra)
    return e


def run(args, env, timeout=600):
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=timeout)


def run_script(tmp_path, name, code, env):
    path = tmp_path / name
    path.write_text(textwrap.dedent(code))
    return run([sys.executable, str(path)], env)


def binaries(cache):
    return sorted(f for f in os.listdir(cache) if f.endswith(".cjc"))


FIRST_USES = """
import numpy as np
import cujit
x = cujit.to_device(np.arange(1 << 20, dtype=np.float32))
y = cujit.to_device(np.ones(1 << 20, dtype=np.float32))
m = cujit.to_device(np.ones((512, 512), dtype=np.float32))
x + y
x.sum()
m.sum(axis=1)
cujit.argmax(x)
cujit.cumsum(x)
cujit.synchronize()
print("done", cujit.cache_info()["misses"])
"""


def test_warmup_fills_the_cache_and_a_first_use_reads_it(fake_driver, tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    env = env_for(fake_driver, cache)
    ops = "add,sum,sum_axis1,argmax,cumsum"
    r = run([sys.executable, "-m", "cujit", "warmup", "--dtypes", "float32", "--ops", ops,
             "--jobs", "2"], env)
    assert r.returncode == 0, r.stderr
    assert "5 operations (float32)" in r.stdout and "already in the disk cache" in r.stdout
    compiled = int(r.stdout.split("kernels compiled")[0].split()[-1])
    files = binaries(cache)
    assert compiled >= 7 and len(files) >= 7       # add, 2 sums, argmax 2, cumsum 3
    # a second warm-up finds them all
    r = run([sys.executable, "-m", "cujit", "warmup", "--dtypes", "float32", "--ops", ops], env)
    assert r.returncode == 0 and " 0 kernels compiled" in r.stdout, r.stdout + r.stderr
    assert binaries(cache) == files
    # a new process's first uses read every binary: no NVRTC, no new file
    r = run_script(tmp_path, "first.py", FIRST_USES, dict(env, CUJIT_LOG="1"))
    assert r.returncode == 0, r.stderr
    # (CUJIT_LOG's lines say why a first use compiled: the flake seen twice in
    # full local runs, "done 8", has not been explained yet)
    assert r.stdout.split() == ["done", "0"], r.stdout + r.stderr[-4000:]
    loads = [ln for ln in r.stderr.splitlines() if ln.startswith("cujit: kernel ")]
    assert len(loads) >= 7 and all("disk cache hit" in ln for ln in loads), r.stderr
    assert binaries(cache) == files


def test_without_warmup_first_uses_compile(fake_driver, tmp_path):
    """The reference for the test above: the same first uses in an empty cache
    run NVRTC for each kernel."""
    cache = tmp_path / "cache"
    cache.mkdir()
    r = run_script(tmp_path, "first.py", FIRST_USES, env_for(fake_driver, cache))
    assert r.returncode == 0, r.stderr
    assert int(r.stdout.split()[1]) >= 7


def test_warmup_errors(fake_driver, tmp_path):
    env = env_for(fake_driver, tmp_path)
    r = run([sys.executable, "-m", "cujit", "warmup", "--ops", "add,no_such_op"], env)
    assert r.returncode == 2 and "unknown operation no_such_op" in r.stderr
    assert "the operations are: add" in r.stderr
    r = run([sys.executable, "-m", "cujit", "warmup", "--dtypes", "float33"], env)
    assert r.returncode == 2 and "float33" in r.stderr
    r = run([sys.executable, "-m", "cujit", "warmup", "--ops", "add"], dict(env, CUJIT_CACHE="0"))
    assert r.returncode == 2 and "disk cache is off" in r.stderr
    r = run([sys.executable, "-m", "cujit", "warmup", "--no-such-flag"], env)
    assert r.returncode == 2 and "--no-such-flag" in r.stderr
    r = run([sys.executable, "-m", "cujit", "warmup", "--list"], env)
    assert r.returncode == 0 and r.stdout.split()[:2] == ["add", "subtract"]
    assert os.listdir(tmp_path) == []
    with pytest.raises(ValueError, match="unknown operation"):
        cujit.warmup(ops=["nope"])


def test_warmup_without_a_driver(tmp_path):
    """Where no driver is reachable: one line saying why, exit status 1."""
    e = dict(os.environ, CUJIT_CACHE_DIR=str(tmp_path))
    probe = run([sys.executable, "-c", "import cujit, sys; sys.exit(cujit.is_available())"], e)
    if probe.returncode != 0:
        pytest.skip("a CUDA driver is reachable here")
    r = run([sys.executable, "-m", "cujit", "warmup", "--ops", "add"], e)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert "the warm-up runs the operations on the GPU it compiles for" in r.stderr


def test_warmup_in_the_background(fake_driver, tmp_path):
    code = """
    import os, time, cujit
    p = cujit.warmup(dtypes=["int64"], ops=["add", "sum"], background=True)
    nice = []
    while p.poll() is None and not nice:
        try:
            if os.getpriority(os.PRIO_PROCESS, p.pid) == 19:
                nice.append(19)
        except OSError:
            pass
        time.sleep(0.005)
    print("rc", p.wait(timeout=600), nice)
    """
    cache = tmp_path / "cache"
    cache.mkdir()
    r = run_script(tmp_path, "bg.py", code, env_for(fake_driver, cache))
    assert r.returncode == 0 and r.stdout.split() == ["rc", "0", "[19]"], r.stdout + r.stderr
    assert len(binaries(cache)) >= 2


COMPILE_TOGETHER = """
import sys, threading
import numpy as np
import cujit
from cujit._stdlib import _load
started = []
class Counting(threading.Thread):
    def start(self):
        started.append(self)
        super().start()
_load.threading.Thread = Counting
x = cujit.to_device(np.arange(1 << 20, dtype=np.float32))
for f in (cujit.cumsum, cujit.argmax, cujit.cumsum, cujit.argmax):
    f(x)
cujit.synchronize()
m = _load._kmod("scan")
ks = [k for key, k in _load._specialized.items() if key[:2] in (("scan", "partials"),
      ("scan", "carries"), ("scan", "finish"))]
ctx = cujit._cujit._current_context()
assert isinstance(ctx, int) and ctx != 0
cujit._cujit._set_context(ctx)
for bad, exc in ((0, ValueError), ("x", TypeError)):
    try:
        cujit._cujit._set_context(bad)
        raise AssertionError("no error for %r" % (bad,))
    except exc:
        pass
print(len(started), cujit.cache_info()["misses"], sorted(len(k.signatures) for k in ks))
"""


@pytest.mark.parametrize("mode", ["1", "0"])
def test_kernels_of_one_operation_compile_together(fake_driver, tmp_path, mode):
    """cumsum's three kernels and argmax's two: the others on threads at the
    first use (3 - 1 + 2 - 1 threads), none at the second, each kernel
    compiled once; CUJIT_PARALLEL_COMPILE=0 starts no thread.  The threads
    take the caller's context (_current_context / _set_context)."""
    cache = tmp_path / "cache"
    cache.mkdir()
    r = run_script(tmp_path, "together.py", COMPILE_TOGETHER,
                   env_for(fake_driver, cache, CUJIT_PARALLEL_COMPILE=mode))
    assert r.returncode == 0, r.stderr
    nthreads, misses, sigs = r.stdout.split(maxsplit=2)
    assert nthreads == ("3" if mode == "1" else "0")
    assert misses == "5" and sigs.strip() == "[1, 1, 1]", r.stdout


FAST = """
import numpy as np
import cujit
from cujit import jit

@jit.rawkernel(fast_compile=True)
def fast(x):
    x[jit.grid(1)] = 1.0

@jit.rawkernel()
def full(x):
    x[jit.grid(1)] = 2.0

x = cujit.to_device(np.zeros(64, dtype=np.float32))
fast[1, 64](x)
full[1, 64](x)
cujit.synchronize()
try:
    jit.rawkernel(device=True, fast_compile=True)(lambda x: x)
except TypeError as e:
    print("device:", e)
"""


def test_fast_compile_kernel(fake_driver, tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    r = run_script(tmp_path, "fast.py", FAST, env_for(fake_driver, cache, CUJIT_LOG="1"))
    assert r.returncode == 0, r.stderr
    loads = {ln.split()[2]: ln for ln in r.stderr.splitlines() if ln.startswith("cujit: kernel ")}
    (fast,) = [v for k, v in loads.items() if k.startswith("cj_fast_")]
    (full,) = [v for k, v in loads.items() if k.startswith("cj_full_")]
    assert "(--Ofast-compile=min)" in fast and "Ofast" not in full
    assert "device: fast_compile=True applies to kernels" in r.stdout
