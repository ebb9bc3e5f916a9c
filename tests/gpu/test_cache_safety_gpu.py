"""The disk cache's safety rules on a real GPU (tests/test_cache_safety.py
checks them without one): an entry another user could have written is
refused, compiled again and replaced, and the kernel's results are right;
a cache folder that cannot be written costs one warning, and kernels still
compile (in memory) and compute the right results.  Each run is a fresh
process on fresh random data compared with NumPy."""
import os
import stat
import subprocess
import sys

import pytest

pytestmark = pytest.mark.gpu

SCRIPT = r'''
import warnings
import numpy as np
import cujit
from cujit import _cujit as C
SRC = """extern "C" __global__ void k%d(float *x, const float *y, long long n)
{ long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) { x[i] = 3.0f * y[i] + %d.0f; } }"""
rng = np.random.default_rng()
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    hits = []
    for i in range(2):
        h = rng.random(5000).astype(np.float32)
        y = cujit.to_device(h)
        x = cujit.empty_like(y)
        hit, rec = C._launch_raw(SRC % (i, i), "k%d" % i, 20, 256, (x, y, 5000))
        assert rec is None
        np.testing.assert_allclose(x.copy_to_host(), np.float32(3) * h + np.float32(i),
                                   rtol=1e-6)
        hits.append(hit)
print("HITS", *hits)
print("WARNINGS", len([x for x in w if issubclass(x.category, RuntimeWarning)]))
for x in w:
    print("WARNING", x.message)
'''


def run(cache_dir, **env):
    e = dict(os.environ, CUJIT_CACHE_DIR=str(cache_dir), CUJIT_LOG="1")
    e.pop("CUJIT_CACHE", None)
    e.update(env)
    r = subprocess.run([sys.executable, "-c", SCRIPT], env=e, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout, r.stderr


def test_an_entry_others_may_write_is_compiled_again(tmp_path):
    out, err = run(tmp_path)
    assert "HITS 0 0" in out and "WARNINGS 0" in out, out + err
    out, err = run(tmp_path)
    assert "HITS 1 1" in out, out + err
    entries = [tmp_path / f for f in os.listdir(tmp_path) if f.endswith(".cjc")]
    assert len(entries) == 2
    for p in entries:
        assert stat.S_IMODE(os.stat(p).st_mode) == 0o600
    k0 = [p for p in entries if b".entry k0(" in p.read_bytes()]
    assert len(k0) == 1, entries
    os.chmod(k0[0], 0o666)                  # anyone could have replaced k0's entry
    out, err = run(tmp_path)
    assert "HITS 0 1" in out, out + err
    assert "cujit: disk cache: entry %s refused: writable by every user" % k0[0] in err, err
    assert stat.S_IMODE(os.stat(k0[0]).st_mode) == 0o600         # replaced by our own
    out, err = run(tmp_path)
    assert "HITS 1 1" in out and "refused" not in err, out + err


def test_an_unwritable_cache_compiles_in_memory_with_one_warning(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root writes into a read-only folder; tests/test_cache_safety.py makes "
                    "the file system refuse instead (fakefs.c)")
    d = tmp_path / "cache"
    d.mkdir(mode=0o500)
    try:
        out, err = run(d)
    finally:
        os.chmod(d, 0o700)
    assert "HITS 0 0" in out and "WARNINGS 1" in out, out + err
    assert "cannot be written" in out and not os.listdir(d), out
