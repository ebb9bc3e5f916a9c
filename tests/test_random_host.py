"""cujit.cuda.random (Numba's xoroshiro128p) without a GPU: the device
functions' generated CUDA, run on the CPU through the host shim
(test_records_host.host_run), against the host's own xoroshiro128+ and its
jump; the seeding; the distributions' moments, as numba-cuda's test_random
checks them (seed 1, 64 states, 32 numbers each)."""
import math
import os
import shutil
import sys
import tempfile

import numpy as np
import pytest

from cujit import cuda

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_records_host import CXX, host_run  # noqa: E402

rnd = cuda.random

pytestmark = pytest.mark.skipif(CXX is None, reason="no host C++ compiler")


@cuda.jit
def next_kernel(states, out, count):
    t = cuda.grid(1)
    for i in range(count):
        out[t * count + i] = rnd.xoroshiro128p_next(states, t)


@cuda.jit
def jump_kernel(states):
    rnd.xoroshiro128p_jump(states, cuda.grid(1))


@cuda.jit
def dist64(states, out, count, normal):
    t = cuda.grid(1)
    for i in range(count):
        if normal:
            out[t * count + i] = rnd.xoroshiro128p_normal_float64(states, t)
        else:
            out[t * count + i] = rnd.xoroshiro128p_uniform_float64(states, t)


@cuda.jit
def dist32(states, out, count, normal):
    t = cuda.grid(1)
    for i in range(count):
        if normal:
            out[t * count + i] = rnd.xoroshiro128p_normal_float32(states, t)
        else:
            out[t * count + i] = rnd.xoroshiro128p_uniform_float32(states, t)


@pytest.fixture
def tmp():
    d = tempfile.mkdtemp(prefix="cujit-rnd-")
    yield d
    shutil.rmtree(d, ignore_errors=True)


def seed():
    return int(np.random.default_rng().integers(1, 2 ** 62))


def test_next_matches_the_host_generator(tmp):
    st = rnd._host_states(8, seed(), 0)
    out = np.zeros(8 * 5, np.uint64)
    s = st.copy()
    host_run(next_kernel, (s, out, 5), 8, tmp)
    exp = []
    for i in range(8):
        h = [int(st[i]["s0"]), int(st[i]["s1"])]
        exp += [rnd._next(h) for _ in range(5)]
        assert [int(s[i]["s0"]), int(s[i]["s1"])] == h     # the state advanced in place
    assert out.tolist() == exp


def test_jump_gives_the_next_threads_state(tmp):
    st = rnd._host_states(8, seed(), 0)
    s = st.copy()
    host_run(jump_kernel, (s,), 7, tmp)
    assert s[:7].tolist() == st[1:].tolist()


def test_states_and_subsequences():
    sd = seed()
    st = rnd._host_states(10, sd, 0)
    assert len(np.unique(st)) == 10
    assert rnd._host_states(7, sd, 3).tolist() == st[3:].tolist()
    for n, k in ((1, 0), (2, 5), (13, 0), (40, 3)):     # the jump as a bit matrix
        assert rnd._host_states(n, sd, k).tolist() == rnd._host_states_stepwise(n, sd, k).tolist()
    assert rnd._host_states(0, sd, 0).size == 0
    assert st.dtype == rnd.xoroshiro128p_dtype


@pytest.mark.parametrize("kernel,dtype", [(dist64, np.float64), (dist32, np.float32)])
def test_distributions(kernel, dtype, tmp):
    st = rnd._host_states(64, 1, 0)
    u = np.zeros(64 * 32, dtype)
    host_run(kernel, (st.copy(), u, 32, 0), 64, tmp)
    assert 0.0 <= u.min() < 1e-3 and 1.0 - 1e-3 < u.max() <= 1.0
    assert abs(u.mean() - 0.5) < 1.5e-2
    assert abs(u.std() - 1.0 / (2 * math.sqrt(3))) < 6e-3
    z = np.zeros(64 * 32, dtype)
    host_run(kernel, (st.copy(), z, 32, 1), 64, tmp)
    assert abs(z.mean()) < 4e-3 and abs(z.std() - 1.0) < 2e-3
    assert np.isfinite(z).all()


def test_other_seeds_are_uniform_too(tmp):
    st = rnd._host_states(128, seed(), 0)
    u = np.zeros(128 * 64)
    host_run(dist64, (st, u, 64, 0), 128, tmp)
    hist = np.histogram(u, bins=8, range=(0, 1))[0]
    assert ((hist > 0.8 * u.size / 8) & (hist < 1.2 * u.size / 8)).all(), hist
