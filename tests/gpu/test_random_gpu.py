"""cujit.cuda.random (Numba's xoroshiro128p) on the GPU: the states made on
the host, the device's numbers against the host's own generator, and the
distributions' moments on fresh seeds."""
import math

import numpy as np
import pytest

from cujit import cuda

pytestmark = pytest.mark.gpu

rnd = cuda.random
rng = np.random.default_rng()


@cuda.jit
def next_kernel(states, out, count):
    t = cuda.grid(1)
    if t < states.size:
        for i in range(count):
            out[t * count + i] = rnd.xoroshiro128p_next(states, t)


@cuda.jit
def dist_kernel(states, u64, u32, n64, n32, count):
    t = cuda.grid(1)
    if t < states.size:
        for i in range(count):
            k = t * count + i
            u64[k] = rnd.xoroshiro128p_uniform_float64(states, t)
            u32[k] = rnd.xoroshiro128p_uniform_float32(states, t)
            n64[k] = rnd.xoroshiro128p_normal_float64(states, t)
            n32[k] = rnd.xoroshiro128p_normal_float32(states, t)


@cuda.jit
def jump_kernel(states):
    t = cuda.grid(1)
    if t < states.size:
        rnd.xoroshiro128p_jump(states, t)


def test_next_matches_the_host_generator():
    seed = int(rng.integers(1, 2 ** 62))
    states = rnd.create_xoroshiro128p_states(300, seed=seed)
    host = states.copy_to_host()
    assert host.dtype == rnd.xoroshiro128p_dtype and len(np.unique(host)) == 300
    out = cuda.device_array(300 * 4, np.uint64)
    next_kernel[3, 128](states, out, 4)
    exp = []
    for i in range(300):
        s = [int(host[i]["s0"]), int(host[i]["s1"])]
        exp += [rnd._next(s) for _ in range(4)]
    assert out.copy_to_host().tolist() == exp


def test_jump_and_subsequences():
    seed = int(rng.integers(1, 2 ** 62))
    states = rnd.create_xoroshiro128p_states(33, seed=seed)
    later = rnd.create_xoroshiro128p_states(32, seed=seed, subsequence_start=1)
    jump_kernel[1, 64](states)
    np.testing.assert_array_equal(states.copy_to_host()[:32], later.copy_to_host())
    again = cuda.device_array_like(later)
    rnd.init_xoroshiro128p_states(again, seed, subsequence_start=1, stream=cuda.stream())
    cuda.synchronize()
    np.testing.assert_array_equal(again.copy_to_host(), later.copy_to_host())


def test_distributions():
    n, count = 4096, 64
    states = rnd.create_xoroshiro128p_states(n, seed=int(rng.integers(1, 2 ** 62)))
    outs = [cuda.device_array(n * count, dt) for dt in (np.float64, np.float32) * 2]
    dist_kernel[n // 128, 128](states, *outs, count)
    u64, u32, n64, n32 = (o.copy_to_host() for o in outs)
    for u in (u64, u32):
        assert u.min() >= 0.0 and u.max() <= 1.0
        assert abs(u.mean() - 0.5) < 3e-3
        assert abs(u.std() - 1.0 / (2 * math.sqrt(3))) < 2e-3     # 7 sigma
        hist = np.histogram(u, bins=16, range=(0, 1))[0]
        assert (abs(hist - u.size / 16) < 0.04 * u.size / 16).all(), hist  # 5 sigma
    for z in (n64, n32):
        assert np.isfinite(z).all()
        assert abs(z.mean()) < 1e-2 and abs(z.std() - 1.0) < 8e-3     # 5 sigma
        assert abs((np.abs(z) < 1).mean() - 0.6827) < 5e-3
