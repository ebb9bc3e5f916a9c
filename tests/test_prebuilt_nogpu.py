"""The prebuilt store without a GPU (issue 13): `python -m cujit prebuild`
builds the stdlib's binaries for a named architecture on cujit's stand-in
driver (no libcuda at all), from a copy of the package in another folder
(the build tree, as setup.py does); a new process on the fake libcuda of
tests/fakecuda (an sm_90 device) then reads every kernel of its first uses
from the store: `prebuilt hit` in CUJIT_LOG, no NVRTC, nothing compiled.
CUJIT_NO_PREBUILT=1, another NVRTC, other options and another architecture
miss; a corrupt, truncated or foreign entry is refused and compiled again;
the store is read whoever owns it."""
import os
import shutil
import stat
import subprocess
import sys
import textwrap

import pytest

import cujit
from cujit import _cujit as C

from test_runtime_nogpu import FAKE_DIR, build_shared, nvrtc_or_skip

OPS = "add,scale,where,sum,sum_axis_last,argmax,cumsum"


def run(args, env, cwd=None, timeout=600):
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=timeout,
                          cwd=cwd)


def clean_env(**extra):
    e = dict(os.environ)
    for v in ("CUJIT_CACHE", "CUJIT_LOG", "CUJIT_NO_PREBUILT", "CUJIT_PREBUILT_DIR",
              "CUJIT_PREBUILD_ARCHS", "CUJIT_PREBUILD_ARCH", "CUJIT_NVRTC_OPTIONS",
              "CUJIT_FAST_COMPILE", "CUJIT_CACHE_DIR"):
        e.pop(v, None)
    e.update(extra)
    return e


@pytest.fixture(scope="module")
def fake_driver(tmp_path_factory):
    nvrtc_or_skip()
    return build_shared(tmp_path_factory, "the fake libcuda", "fakecuda.c", "libcuda.so.1")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A store for sm_90 (float32 and int64), built with no driver by a copy of
    the installed package in another folder; (its path, the prebuild's output)"""
    nvrtc_or_skip()
    root = tmp_path_factory.mktemp("prebuild")
    shutil.copytree(os.path.dirname(os.path.abspath(cujit.__file__)), root / "pkg" / "cujit",
                    ignore=shutil.ignore_patterns("__pycache__", "_prebuilt"))
    out = root / "store"
    env = clean_env(PYTHONPATH=str(root / "pkg"), LD_LIBRARY_PATH="/nonexistent")
    r = run([sys.executable, "-m", "cujit", "prebuild", "--archs", "sm_90", "--out", str(out),
             "--dtypes", "float32,int64", "--ops", OPS, "--jobs", "2"], env, cwd=str(root))
    assert r.returncode == 0, r.stdout + r.stderr
    return out, r.stdout


def binaries(d):
    return sorted(f for f in os.listdir(d) if f.endswith(".cjc")) if os.path.isdir(d) else []


FIRST = """
import numpy as np
import cujit
x = cujit.to_device(np.arange(1 << 20, dtype=np.float32))
y = cujit.to_device(np.ones(1 << 20, dtype=np.float32))
m = cujit.to_device(np.ones((1024, 1024), dtype=np.float32))
i = cujit.to_device(np.arange(1 << 20, dtype=np.int64))
x + y
x * 2.0
cujit.where(x > y, x, y)
x.sum()
i.sum()
m.sum(axis=1)
cujit.argmax(x)
cujit.cumsum(x)
cujit.synchronize()
info = cujit.cache_info()
print("done", info["misses"], info["prebuilt_hits"], info["rejected"])
"""


def first_uses(tmp_path, fake_driver, store_dir, **env):
    """FIRST in a new process on the fake driver, its user cache empty:
    (misses, prebuilt hits, CUJIT_LOG's kernel lines, the user cache folder);
    rejected entries in last_rejected[0]"""
    path = tmp_path / "first.py"
    path.write_text(textwrap.dedent(FIRST))
    cache = tmp_path / ("cache%d" % len(list(tmp_path.iterdir())))
    e = clean_env(CUJIT_CACHE_DIR=str(cache), CUJIT_PREBUILT_DIR=str(store_dir), CUJIT_LOG="1",
                  LD_LIBRARY_PATH=fake_driver + os.pathsep + os.environ.get("LD_LIBRARY_PATH",
                                                                            ""))
    e.update(env)
    r = run([sys.executable, str(path)], e)
    assert r.returncode == 0, r.stderr[-3000:]
    words = r.stdout.split()
    assert words[0] == "done", r.stdout
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("cujit: kernel ")]
    last_rejected[0] = int(words[3])
    return int(words[1]), int(words[2]), lines, cache


last_rejected = [0]


def test_prebuild_builds_a_store_for_a_named_arch_without_a_gpu(store):
    out, text = store
    files = binaries(out)
    # add, scale, greater + where, 2 sums (x2 dtypes), argmax's 2, cumsum's 3 ...
    assert len(files) >= 20, (files, text)
    assert "sm_90: %d kernels built" % len(files) in text
    assert "store %s: %d files" % (out, len(files)) in text
    # readable by every user of the package
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o755
    assert all(stat.S_IMODE(os.stat(out / f).st_mode) == 0o644 for f in files)
    assert not [f for f in os.listdir(out) if not f.endswith(".cjc")]


def test_first_uses_read_the_store(store, fake_driver, tmp_path):
    """Built by a copy of the package elsewhere, read by the installed one:
    every kernel a prebuilt hit, no NVRTC time, nothing compiled or stored."""
    misses, hits, lines, cache = first_uses(tmp_path, fake_driver, store[0])
    assert misses == 0 and hits >= 10, lines
    assert len(lines) == hits
    for ln in lines:
        assert ln.endswith("disk cache miss, prebuilt hit"), ln
        assert " nvrtc 0.00 ms" in ln, ln
    assert binaries(cache) == []


def test_no_prebuilt_misses(store, fake_driver, tmp_path):
    misses, hits, lines, _ = first_uses(tmp_path, fake_driver, store[0], CUJIT_NO_PREBUILT="1")
    assert hits == 0 and misses >= 10
    assert lines and not [ln for ln in lines if "prebuilt" in ln]


@pytest.mark.parametrize("change", ["options", "fast_compile"])
def test_other_options_miss(store, fake_driver, tmp_path, change):
    """The key has the NVRTC options: extra options miss everywhere; full
    optimisation of the kernels built with --Ofast-compile=min (elementwise
    forms, argmax's last pass) misses those, and reductions still hit."""
    env = {"CUJIT_NVRTC_OPTIONS": "-DCUJIT_TEST_OPTION=1"} if change == "options" \
        else {"CUJIT_FAST_COMPILE": "0"}
    misses, hits, lines, _ = first_uses(tmp_path, fake_driver, store[0], **env)
    if change == "options":
        assert hits == 0 and misses >= 10, lines
    else:
        vec = [ln for ln in lines if ln.startswith("cujit: kernel cj_vec_")]
        red = [ln for ln in lines if ln.startswith("cujit: kernel cj_red_")]
        assert len(vec) >= 4 and all("prebuilt" not in ln for ln in vec), lines
        assert len(red) >= 3 and all("prebuilt hit" in ln for ln in red), lines
        assert hits >= 5 and misses >= len(vec), lines


def test_another_arch_misses(store, fake_driver, tmp_path):
    """Device 1 of the fake driver is an sm_86: the sm_90 store has nothing for it."""
    path = tmp_path / "dev1.py"
    path.write_text("import numpy as np, cujit\ncujit.Device(1).use()\n"
                    "x = cujit.to_device(np.ones(1 << 20, np.float32))\nx.sum(); x + x\n"
                    "cujit.synchronize()\ni = cujit.cache_info()\n"
                    "print(i['misses'], i['prebuilt_hits'])\n")
    e = clean_env(CUJIT_CACHE_DIR=str(tmp_path / "c1"), CUJIT_PREBUILT_DIR=str(store[0]),
                  LD_LIBRARY_PATH=fake_driver)
    r = run([sys.executable, str(path)], e)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["2", "0"], r.stdout


def test_another_nvrtc_misses(store, fake_driver, tmp_path):
    """The key has NVRTC's identity: the same NVRTC through a shim library
    (tests/fakecuda/fakenvrtc.c, another file) finds nothing in the store."""
    from test_faults_nogpu import build, real_nvrtc
    lib, inc = real_nvrtc()
    home = tmp_path / "nvrtc"
    (home / "lib64").mkdir(parents=True)
    if os.path.isdir(inc):
        os.symlink(inc, home / "include")
    build(str(home / "lib64"), "fakenvrtc.c", "libnvrtc.so.13", "-ldl")
    misses, hits, lines, _ = first_uses(
        tmp_path, fake_driver, store[0], CUDA_HOME=str(home), FAKENVRTC_REAL=lib,
        FAKENVRTC_LIB=str(home / "lib64" / "libnvrtc.so.13"), CUJIT_SYSTEM_CUDA="1",
        CUJIT_PRELOAD_NVRTC="0")
    assert hits == 0 and misses >= 10, lines


def test_bad_entries_are_refused_and_compiled_again(store, fake_driver, tmp_path):
    """Every entry spoilt, by turns: a flipped byte, a truncated file, another
    entry's content under its key.  Each is refused (counted), its kernel
    compiled with NVRTC and stored in the user's cache; nothing crashes."""
    bad = tmp_path / "bad"
    shutil.copytree(store[0], bad)
    files = binaries(bad)
    for n, f in enumerate(files):
        data = bytearray((bad / f).read_bytes())
        if n % 3 == 0:
            data[len(data) // 2] ^= 0xFF
        elif n % 3 == 1:
            data = data[:200]
        else:
            data = (store[0] / files[n - 1]).read_bytes()      # sound, but another key's
        (bad / f).write_bytes(bytes(data))
    misses, hits, lines, cache = first_uses(tmp_path, fake_driver, bad)
    assert hits == 0 and misses == len(lines) >= 10, lines
    assert last_rejected[0] == misses
    assert all(ln.endswith("disk cache miss (stored)") for ln in lines), lines
    assert len(binaries(cache)) == misses


def test_store_of_another_owner_is_read(store, fake_driver, tmp_path):
    """The store is as trusted as the package's code: the disk cache's owner
    checks do not apply (here geteuid() says another user, through fakefs)."""
    fakefs = os.path.join(build_shared_once(tmp_path), "fakefs.so")
    pre = os.environ.get("LD_PRELOAD")          # the sanitizers' (make asan-py) first
    misses, hits, lines, _ = first_uses(tmp_path, fake_driver, store[0], CUJIT_CACHE="0",
                                        LD_PRELOAD=pre + ":" + fakefs if pre else fakefs,
                                        FAKEFS_EUID="54321")
    assert misses == 0 and hits >= 10, lines
    assert all(ln.endswith("disk cache off, prebuilt hit") for ln in lines), lines


def build_shared_once(tmp_path):
    cc = os.environ.get("CC", "cc")
    out = tmp_path / "fakefs"
    out.mkdir()
    r = subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", str(out / "fakefs.so"),
                        os.path.join(FAKE_DIR, "fakefs.c"), "-ldl"], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr[-1500:]
    return str(out)


def test_archs_from_the_gpus_present(fake_driver, tmp_path):
    """No --archs and no variable: the architectures of the GPUs the driver
    reports (the fake one: sm_90 and sm_86), nothing launched."""
    out = tmp_path / "store"
    e = clean_env(LD_LIBRARY_PATH=fake_driver)
    r = run([sys.executable, "-m", "cujit", "prebuild", "--out", str(out), "--dtypes",
             "float32", "--ops", "add"], e)
    assert r.returncode == 0, r.stderr
    assert "sm_90: 1 kernels built" in r.stdout and "sm_86: 1 kernels built" in r.stdout
    assert "(the GPUs present)" in r.stdout and len(binaries(out)) == 2


def test_skipped_without_gpu_or_variable(tmp_path):
    e = clean_env(LD_LIBRARY_PATH="/nonexistent")
    probe = run([sys.executable, "-c", "import cujit, sys; sys.exit(cujit.is_available())"], e)
    if probe.returncode != 0:
        pytest.skip("a CUDA driver is reachable here")
    r = run([sys.executable, "-m", "cujit", "prebuild", "--out", str(tmp_path / "s")], e)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert len(r.stdout.splitlines()) == 1
    assert r.stdout.startswith("cujit prebuild: skipped: no GPU (")
    assert "CUJIT_PREBUILD_ARCHS" in r.stdout
    assert not os.path.exists(tmp_path / "s")


def test_prebuild_usage_errors(tmp_path):
    e = clean_env(LD_LIBRARY_PATH="/nonexistent")
    for args, msg in ((["--archs", "sm90"], "'sm90' is not an architecture"),
                      (["--archs", "sm_90", "--ops", "add,nope"], "unknown operation nope"),
                      (["--archs", "sm_90", "--dtypes", "float33"], "float33"),
                      (["--nope"], "--nope")):
        r = run([sys.executable, "-m", "cujit", "prebuild", "--out", str(tmp_path / "s")] + args,
                e)
        assert r.returncode == 2 and msg in r.stderr, (args, r.stderr)
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    if not os.access(ro, os.W_OK):          # root writes anywhere
        r = run([sys.executable, "-m", "cujit", "prebuild", "--archs", "sm_90", "--out",
                 str(ro / "store")], e)
        assert r.returncode == 1 and "cannot write the prebuilt store" in r.stderr, r.stderr
        assert "--out DIR" in r.stderr and len(r.stderr.splitlines()) == 1
    r = run([sys.executable, "-m", "cujit", "prebuild", "--list"], e)
    assert r.returncode == 0 and "sum_axis_last" in r.stdout.split()
