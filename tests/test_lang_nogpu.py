"""Compile-time arguments of device functions and the front key: a global
constant a kernel passes to a device function as a local array's size is
keyed, so a changed value is a miss in a fresh process and the CUDA has the
new size; the same value is a hit.  (The language features themselves are
in tests/kernels/lang_features.py: CUDA, PTX, the host shim, the GPU.)"""
import os
import subprocess
import sys

MOD = '''import os
from cujit import cuda
from cujit.cuda import float32
N = int(os.environ.get("FKN", "4"))


@cuda.jit(device=True)
def first_max(x, n, dtype, op):
    t = cuda.local.array(n, dtype)
    for k in range(n):
        t[k] = x[k]
    s = t[0]
    for v in t:
        s = op(s, v)
    return s


@cuda.jit
def k(x, out):
    out[0] = first_max(x, N, float32, max)
'''

RUN = '''import numpy as np, fkmod
s = fkmod.k.inspect_cuda(np.zeros(8, np.float32), np.zeros(1, np.float32))
print([l.strip() for l in s.splitlines() if l.strip().startswith("float t[")][0])
'''


def _run(tmp_path, n):
    env = dict(os.environ, FKN=str(n), CUJIT_LOG="1", CUJIT_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=str(tmp_path), PYTHONDONTWRITEBYTECODE="1")
    r = subprocess.run([sys.executable, "-c", RUN], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    state = [ln for ln in r.stderr.splitlines() if ": front key " in ln][0]
    return r.stdout.strip(), state.split(": front key ")[1].split()[0].rstrip(":")


def test_compile_time_size_is_keyed(tmp_path):
    (tmp_path / "fkmod.py").write_text(MOD)
    assert _run(tmp_path, 4) == ("float t[4];", "miss")
    assert _run(tmp_path, 4) == ("float t[4];", "hit")
    assert _run(tmp_path, 6) == ("float t[6];", "miss")
    assert _run(tmp_path, 4) == ("float t[4];", "hit")
