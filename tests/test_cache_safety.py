"""The disk cache under attack (issue 14, part 3): the directory is made
0700 and its files 0600; a directory or an entry owned by another user, or
writable by the group or the world, or a symbolic link, is refused with a
CUJIT_LOG line and never loaded (the kernel is compiled again); a read-only
or full disk falls back to compiling in memory with one warning per
process; 16 processes writing the same and different entries at once never
leave a torn one.

Another owner is made with chown where the tests run as root, and with
tests/fakecuda/fakefs.c (an LD_PRELOAD library: geteuid() returns another
uid, or writes fail with EROFS / ENOSPC under a folder) where they do not,
or where root ignores permissions."""
import os
import stat
import subprocess
import sys

import pytest

import cujit
from cujit import _cujit as C

from test_runtime_nogpu import FAKE_DIR, build_shared, nvrtc_or_skip

ROOT_USER = hasattr(os, "geteuid") and os.geteuid() == 0
OTHER_UID = 54321


@pytest.fixture(scope="module")
def fakefs(tmp_path_factory):
    return os.path.join(build_shared(tmp_path_factory, "fakefs", "fakefs.c", "fakefs.so", "-ldl"),
                        "fakefs.so")


@pytest.fixture(scope="module")
def fake_driver(tmp_path_factory):
    return build_shared(tmp_path_factory, "the fake libcuda", "fakecuda.c", "libcuda.so.1")


def mode(p):
    return stat.S_IMODE(os.stat(p).st_mode)


def store(d, src="src"):
    k = C._cache_key(src, "k")
    return k, C._cache_store(d, k, os.urandom(2000), ".version 9.0\n// " + src + "\n")


def test_directory_and_files_are_private(tmp_path):
    d = tmp_path / "a" / "b" / "c"
    old = os.umask(0)               # what the process's umask would allow: everything
    try:
        _, path = store(str(d))
    finally:
        os.umask(old)
    for p in (tmp_path / "a", tmp_path / "a" / "b", d):
        assert mode(p) == 0o700, (p, oct(mode(p)))
    assert mode(path) == 0o600


# a process that loads an entry written before, printing what it got
LOAD = """import sys, cujit
from cujit import _cujit as C
r = C._cache_load(sys.argv[1], sys.argv[2])
print("loaded" if r else "refused", cujit.cache_info()["rejected"])
"""


def load_in_child(d, key, **env):
    e = dict(os.environ, CUJIT_LOG="1", **env)
    r = subprocess.run([sys.executable, "-c", LOAD, d, key], env=e, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout.split(), r.stderr


@pytest.mark.parametrize("attack", ["entry-group-writable", "entry-world-writable",
                                    "entry-symlink", "dir-group-writable", "dir-world-writable",
                                    "entry-other-owner", "dir-other-owner"])
def test_untrusted_entries_are_refused(tmp_path, fakefs, attack):
    d = str(tmp_path / "cache")
    key, path = store(d)
    assert load_in_child(d, key)[0][0] == "loaded"
    env = {}
    target = path if attack.startswith("entry") else d
    if attack.endswith("group-writable"):
        os.chmod(target, mode(target) | 0o020)
    elif attack.endswith("world-writable"):
        os.chmod(target, mode(target) | 0o002)
    elif attack == "entry-symlink":
        _, other = store(d, "other source")
        os.replace(other, path + ".real")
        os.remove(path)
        os.symlink(path + ".real", path)
    elif ROOT_USER:
        os.chown(target, OTHER_UID, OTHER_UID)
    else:
        # no root: this process looks like another user to cujit, so every
        # file (the directory first) belongs to someone else
        env = {"LD_PRELOAD": fakefs, "FAKEFS_EUID": str(OTHER_UID)}
    out, err = load_in_child(d, key, **env)
    assert out[0] == "refused", (attack, out, err)
    where = "entry" if attack.startswith("entry") and (ROOT_USER or "owner" not in attack) \
        else "directory"
    assert "cujit: disk cache: %s " % where in err and "refused: " in err, err
    why = {"group": "writable by its group", "world": "writable by every user",
           "symlink": "symbolic link", "owner": "owned by uid %d" % OTHER_UID}
    assert any(w in err for k, w in why.items() if k in attack), err


# kernels through the fake driver and the real NVRTC: three compiled, each
# launched twice; prints hits, misses, entries and the warnings seen
KERNELS = """import sys, warnings, cujit
from cujit import _cujit as C
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    hits = []
    for i in range(3):
        src = 'extern "C" __global__ void k%d(float *x) { x[0] = %d; }' % (i, i)
        for _ in range(2):
            hits.append(C._launch_raw(src, "k%d" % i, 1, 1, (cujit.zeros(1),))[0])
info = cujit.cache_info()
print("hits", *hits)
print("entries", info["entries"], "rejected", info["rejected"])
print("warnings", len(w))
for x in w:
    print("warning:", x.category.__name__, x.message)
"""


def run_kernels(fake_driver, d, **env):
    e = dict(os.environ, CUJIT_CACHE_DIR=str(d), CUJIT_LOG="1",
             LD_LIBRARY_PATH=fake_driver + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    e.pop("CUJIT_CACHE", None)
    e.update(env)
    r = subprocess.run([sys.executable, "-c", KERNELS], env=e, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout, r.stderr


def test_refused_entries_are_compiled_again_and_replaced(fake_driver, fakefs, tmp_path):
    nvrtc_or_skip()
    out, err = run_kernels(fake_driver, tmp_path)
    assert "hits 0 2 0 2 0 2" in out and "warnings 0" in out, out
    out, err = run_kernels(fake_driver, tmp_path)
    assert "hits 1 2 1 2 1 2" in out, out                  # from the disk
    entries = sorted(f for f in os.listdir(tmp_path) if f.endswith(".cjc"))
    assert len(entries) == 3
    for f in entries:                                       # attacked
        p = os.path.join(tmp_path, f)
        if ROOT_USER:
            os.chown(p, OTHER_UID, OTHER_UID)
        else:
            os.chmod(p, 0o666)
    out, err = run_kernels(fake_driver, tmp_path)
    assert "hits 0 2 0 2 0 2" in out and "rejected 3" in out, out + err
    assert err.count("refused: ") == 3 and "disk cache miss (stored)" in err, err
    for f in entries:                                       # replaced by our own
        st = os.stat(os.path.join(tmp_path, f))
        assert st.st_uid == os.geteuid() and stat.S_IMODE(st.st_mode) == 0o600
    out, err = run_kernels(fake_driver, tmp_path)
    assert "hits 1 2 1 2 1 2" in out and "refused" not in err, out + err


@pytest.mark.parametrize("fault", ["read-only", "full"])
def test_unwritable_cache_compiles_in_memory_with_one_warning(fake_driver, fakefs, tmp_path,
                                                              fault):
    nvrtc_or_skip()
    d = tmp_path / "cache"
    d.mkdir(mode=0o700)
    env = {}
    if fault == "read-only" and not ROOT_USER:
        os.chmod(d, 0o500)
    else:       # root writes whatever the modes say: a file system that refuses
        env = {"LD_PRELOAD": fakefs,
               "FAKEFS_EROFS" if fault == "read-only" else "FAKEFS_ENOSPC": str(d)}
    try:
        out, err = run_kernels(fake_driver, d, **env)
    finally:
        os.chmod(d, 0o700)
    assert "hits 0 2 0 2 0 2" in out, out + err             # compiled, then in memory
    assert "warnings 1" in out, out
    assert "warning: RuntimeWarning cujit: the kernel cache %s cannot be written" % d in out
    why = "Read-only file system" if ROOT_USER or fault == "full" else "Permission denied"
    why = "No space left on device" if fault == "full" else why
    assert why in out, out
    assert os.listdir(d) == [], os.listdir(d)               # nothing half-written left


WRITER = r"""import hashlib, os, sys, time
from cujit import _cujit as C
d, me, rounds, go = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
shared = C._cache_key("shared source", "k")
own = C._cache_key("source of writer %d" % me, "k")

def payload(writer, n):
    body = hashlib.sha256(b"%d-%d" % (writer, n)).digest() * (40000 + 997 * writer)
    return body, ".version 9.0\n// writer %d round %d sha %s\n" % (
        writer, n, hashlib.sha256(body).hexdigest())

def check(r, what):
    # an entry read back is one writer's whole entry, never a mixture
    assert r is not None, what + ": no valid entry"
    cubin, ptx = r
    sha = ptx.split("sha ")[1].split()[0]
    assert hashlib.sha256(cubin).hexdigest() == sha, what + ": torn"

while time.time() < go:
    time.sleep(0.001)
for n in range(rounds):
    C._cache_store(d, shared, *payload(me, n))
    C._cache_store(d, own, *payload(me, n))
    check(C._cache_load(d, shared), "shared entry")
    check(C._cache_load(d, own), "own entry")
print("writer", me, "ok")
"""


def test_sixteen_concurrent_writers_never_tear_an_entry(tmp_path):
    import time
    d = str(tmp_path / "cache")
    go = time.time() + 2.0
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, d, str(i), "30", str(go)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(16)]
    outs = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0 and "ok" in out, err[-2000:]
    names = os.listdir(d)
    assert len([n for n in names if n.endswith(".cjc")]) == 17, names
    assert not [n for n in names if not n.endswith(".cjc")], names     # no temp file left
