"""The prebuilt store on a real GPU: `python -m cujit prebuild` builds the
stdlib's binaries for the GPU present (read through the driver, nothing
launched) into a store of the test's own; a new process whose disk cache is
empty then reads every kernel of its first uses from that store (CUJIT_LOG:
`prebuilt hit`, no NVRTC) and computes what NumPy does on fresh random data;
with CUJIT_NO_PREBUILT=1 the same operations compile and give the same
answers.  tests/conftest.py skips this module, with the reason, without a
GPU (and turns the installed store off, which this test turns on for its own)."""
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.gpu

OPS = ("add,scale,where,sum,sum_axis_last,sum_axis0,max,min,mean,argmax,argmin,"
       "argmax_axis_last,cumsum")

# the prebuild's shapes (2^20 and 1024 x 1024), fresh random data; prints
# "bad <what>" for each result that is not NumPy's, then "ok <misses> <hits>"
FIRST = r'''
import numpy as np
import cujit
rng = np.random.default_rng()
n = 1 << 20
bad = []
def same(what, got, ref, rtol=0):
    got = cujit.asnumpy(got)
    ok = got.shape == np.shape(ref) and (np.array_equal(got, ref) if rtol == 0 else
                                         np.allclose(got, ref, rtol=rtol, atol=1e-3))
    if not ok:
        bad.append(what)
for dt in (np.float32, np.int64):
    if dt == np.int64:
        hx = (rng.permutation(n) - n // 2).astype(dt)      # distinct: one argmax
        hy = rng.integers(-1000, 1000, n).astype(dt)
        tol = 0
    else:
        hx = (rng.random(n) + 0.5).astype(dt)
        hy = (rng.random(n) + 0.5).astype(dt)
        tol = 1e-4
    hm = hx.reshape(1024, 1024).copy()
    x, y, m = cujit.to_device(hx), cujit.to_device(hy), cujit.to_device(hm)
    w = hx.astype(np.float64) if dt == np.float32 else hx
    wm = w.reshape(1024, 1024)
    name = np.dtype(dt).name
    same(name + " x + y", x + y, hx + hy)
    same(name + " x * 2.0", x * 2.0, hx * 2.0)
    same(name + " where", cujit.where(x > y, x, y), np.where(hx > hy, hx, hy))
    same(name + " sum", x.sum(), w.sum(), tol)
    same(name + " sum(axis=-1)", m.sum(axis=-1), wm.sum(axis=-1), tol)
    same(name + " sum(axis=0)", m.sum(axis=0), wm.sum(axis=0), tol)
    same(name + " max", x.max(), hx.max())
    same(name + " min", x.min(), hx.min())
    same(name + " mean", cujit.mean(x), w.mean(), 1e-4 if tol else 1e-9)
    same(name + " argmax", cujit.argmax(x), np.argmax(hx))
    same(name + " argmin", cujit.argmin(x), np.argmin(hx))
    same(name + " argmax(axis=-1)", cujit.argmax(m, axis=-1), np.argmax(hm, axis=-1))
    same(name + " cumsum", cujit.cumsum(x), np.cumsum(w), 1e-3 if tol else 0)
cujit.synchronize()
for b in bad:
    print("bad", b.replace(" ", "_"))
i = cujit.cache_info()
print("ok", i["misses"], i["prebuilt_hits"])
'''


def run_py(args, env):
    return subprocess.run([sys.executable] + args, env=env, capture_output=True, text=True,
                          timeout=900)


def env_for(tmp_path, name, **extra):
    e = dict(os.environ, CUJIT_CACHE_DIR=str(tmp_path / name))
    for v in ("CUJIT_CACHE", "CUJIT_LOG", "CUJIT_NO_PREBUILT", "CUJIT_PREBUILD_ARCHS",
              "CUJIT_PREBUILT_DIR", "CUJIT_NVRTC_OPTIONS", "CUJIT_FAST_COMPILE"):
        e.pop(v, None)
    e.update(extra)
    return e


def test_first_uses_read_the_prebuilt_store(tmp_path):
    store = tmp_path / "store"
    r = run_py(["-m", "cujit", "prebuild", "--out", str(store), "--dtypes", "float32,int64",
                "--ops", OPS], env_for(tmp_path, "build"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "(the GPUs present)" in r.stdout and "kernels built" in r.stdout, r.stdout
    assert len([f for f in os.listdir(store) if f.endswith(".cjc")]) >= 30, r.stdout
    script = tmp_path / "first.py"
    script.write_text(FIRST)

    r = run_py([str(script)], env_for(tmp_path, "cache1", CUJIT_PREBUILT_DIR=str(store),
                                      CUJIT_LOG="1"))
    assert r.returncode == 0, r.stdout + r.stderr
    words = r.stdout.split()
    assert "bad" not in words, r.stdout                 # NumPy's answers
    misses, hits = int(words[-2]), int(words[-1])
    loads = [ln for ln in r.stderr.splitlines() if ln.startswith("cujit: kernel ")]
    assert misses == 0 and hits >= 20 and len(loads) == hits, r.stderr
    assert all(ln.endswith("prebuilt hit") and " nvrtc 0.00 ms" in ln for ln in loads), r.stderr
    assert not [f for f in os.listdir(tmp_path / "cache1") if f.endswith(".cjc")] \
        if os.path.isdir(tmp_path / "cache1") else True

    # the store off: the same operations compile, with the same answers
    r = run_py([str(script)], env_for(tmp_path, "cache2", CUJIT_PREBUILT_DIR=str(store),
                                      CUJIT_NO_PREBUILT="1"))
    assert r.returncode == 0, r.stdout + r.stderr
    words = r.stdout.split()
    assert "bad" not in words, r.stdout
    assert int(words[-2]) >= 20 and words[-1] == "0", r.stdout
