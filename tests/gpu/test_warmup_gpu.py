"""The stdlib ready before first use, on a real GPU: after `python -m cujit
warmup` a new process's first uses read every kernel from the disk cache and
compute what NumPy does; the kernels of one operation compiled together on
threads (CUJIT_PARALLEL_COMPILE=1, the default) or one at a time give NumPy's
results; a jit.rawkernel(fast_compile=True) kernel runs.  Every check is on
fresh random data.  tests/conftest.py skips this module, with the reason,
without a GPU."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import cujit
from cujit import jit

pytestmark = pytest.mark.gpu

# Runs the operations warmup covers on fresh random data in a new process and
# checks each against NumPy; prints "ok <disk cache misses>".
FIRST_USES = r'''
import numpy as np
import cujit
rng = np.random.default_rng()
n = (1 << 20) + int(rng.integers(0, 1000))
for dt in (np.float32, np.int64):
    if dt == np.int64:
        hx = rng.integers(-1000, 1000, n).astype(dt)
        hy = rng.integers(-1000, 1000, n).astype(dt)
    else:
        hx = (rng.random(n) + 0.5).astype(dt)
        hy = (rng.random(n) + 0.5).astype(dt)
    hm = hx[:512 * 512].reshape(512, 512).copy()
    x, y, m = cujit.to_device(hx), cujit.to_device(hy), cujit.to_device(hm)
    np.testing.assert_array_equal(cujit.asnumpy(x + y), hx + hy)
    np.testing.assert_array_equal(cujit.asnumpy(cujit.where(x > y, x, y)),
                                  np.where(hx > hy, hx, hy))
    np.testing.assert_array_equal(cujit.asnumpy(cujit.argmax(x)), np.argmax(hx))
    np.testing.assert_array_equal(cujit.asnumpy(cujit.argmin(x)), np.argmin(hx))
    wide = hx.astype(np.float64)
    if dt == np.int64:
        np.testing.assert_array_equal(cujit.asnumpy(x.sum()), hx.sum())
        np.testing.assert_array_equal(cujit.asnumpy(m.sum(axis=1)), hm.sum(axis=1))
        np.testing.assert_array_equal(cujit.asnumpy(cujit.cumsum(x)), np.cumsum(hx))
    else:
        np.testing.assert_allclose(cujit.asnumpy(x.sum()), wide.sum(), rtol=1e-4)
        np.testing.assert_allclose(cujit.asnumpy(m.sum(axis=1)),
                                   hm.astype(np.float64).sum(axis=1), rtol=1e-4)
        np.testing.assert_allclose(cujit.asnumpy(cujit.cumsum(x)), np.cumsum(wide),
                                   rtol=1e-3)
cujit.synchronize()
print("ok", cujit.cache_info()["misses"])
'''


def run_py(args, env):
    return subprocess.run([sys.executable] + args, env=env, capture_output=True, text=True,
                          timeout=900)


def clean_env(cache, **extra):
    e = dict(os.environ, CUJIT_CACHE_DIR=str(cache))
    for v in ("CUJIT_CACHE", "CUJIT_LOG", "CUJIT_PARALLEL_COMPILE"):
        e.pop(v, None)
    e.update(extra)
    return e


def test_first_uses_after_warmup_read_the_cache(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    env = clean_env(cache)
    r = run_py(["-m", "cujit", "warmup", "--dtypes", "float32,int64", "--ops",
                "add,greater,where,sum,sum_axis1,argmax,argmin,cumsum"], env)
    assert r.returncode == 0, r.stdout + r.stderr
    script = tmp_path / "first.py"
    script.write_text(FIRST_USES)
    r = run_py([str(script)], dict(env, CUJIT_LOG="1"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.split() == ["ok", "0"], r.stdout + r.stderr
    loads = [ln for ln in r.stderr.splitlines() if ln.startswith("cujit: kernel ")]
    assert loads and all("disk cache hit" in ln for ln in loads), r.stderr


@pytest.mark.parametrize("parallel", ["1", "0"])
def test_first_uses_compiled_together_or_not(tmp_path, parallel):
    """An empty cache: each operation's kernels compile at its first use (on
    threads, or one at a time), and the results are NumPy's."""
    cache = tmp_path / "cache"
    cache.mkdir()
    script = tmp_path / "first.py"
    script.write_text(FIRST_USES)
    r = run_py([str(script)], clean_env(cache, CUJIT_PARALLEL_COMPILE=parallel))
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.split()[0] == "ok" and int(r.stdout.split()[1]) >= 10, r.stdout


def test_cumsum_argmax_on_threads_in_process():
    """In this process, new dtypes: cumsum and argmax along an axis compile
    their kernels together, then run, against NumPy."""
    rng = np.random.default_rng()
    for dt in (np.float64, np.int32):
        h = (rng.random((3, 70001)) * 100).astype(dt)
        d = cujit.to_device(h)
        np.testing.assert_array_equal(cujit.asnumpy(cujit.argmax(d, axis=1)),
                                      np.argmax(h, axis=1))
        ref = np.cumsum(h.astype(np.float64), axis=1)
        got = cujit.asnumpy(cujit.cumsum(d, axis=1))
        if dt == np.int32:
            np.testing.assert_array_equal(got, np.cumsum(h, axis=1))
        else:
            np.testing.assert_allclose(got, ref, rtol=1e-9)


def test_fast_compile_kernel():
    @jit.rawkernel(fast_compile=True)
    def axpb(a, x, b, out):
        i = jit.grid(1)
        if i < out.size:
            out[i] = a * x[i] + b

    rng = np.random.default_rng()
    h = rng.random(100003).astype(np.float32)
    a, b = np.float32(rng.random() + 1), np.float32(rng.random())
    x = cujit.to_device(h)
    out = cujit.empty_like(x)
    axpb[(h.size + 255) // 256, 256](a, x, b, out)
    np.testing.assert_allclose(cujit.asnumpy(out), a * h + b, rtol=1e-6)
