"""cujit.cuda.random: Numba's xoroshiro128+ generator (numba.cuda.random),
written as cujit device functions over an array of states of the record
dtype [('s0', '<u8'), ('s1', '<u8')], one state per thread.

The generator is xoroshiro128+ (Blackman and Vigna): the next number is
s0 + s1; then s1 ^= s0, s0 = rotl(s0, 55) ^ s1 ^ (s1 << 14), s1 = rotl(s1,
36).  Its jump function advances a state by 2**64 numbers, so the states
made for consecutive threads (one jump apart) give sequences that do not
overlap for 2**64 numbers each.  The first state comes from the seed by
splitmix64 (its first output in both words, as Numba seeds it);
subsequence_start jumps that many times
first, so create_xoroshiro128p_states(n, s, subsequence_start=k) gives the
states k.. of create_xoroshiro128p_states(n + k, s).  The jump is linear
over GF(2), so the host applies it as a bit matrix to many states at once
(states m..2m are the first m jumped m times; the matrix for m jumps by
squaring): a million states take seconds, not the minutes of one jump
after another.

A uniform float64 takes the high 53 bits of a number times 2**-53: in
[0, 1); a float32 one is that rounded (as Numba's: 1.0 can come out).
Normal ones are Box-Muller (the cosine half) on two uniform numbers of their
precision, the first at least the smallest non-zero uniform value, so that
its log is finite.  The seeding follows Numba's, so that a seed gives the
states Numba gives."""
import math

import numpy as np

from cujit import cuda

xoroshiro128p_dtype = np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True)

_MASK = (1 << 64) - 1
_JUMP = (0xBEAC0467EBA5FACB, 0xD86B048B86AA9922)
_JUMP0 = np.uint64(_JUMP[0])
_JUMP1 = np.uint64(_JUMP[1])
_ONE = np.uint64(1)
_TWO_PI64 = np.float64(2 * math.pi)
_TWO_PI32 = np.float32(2 * math.pi)
# Box-Muller's log(u1) at u1 = 0 would be -inf: the smallest uniform value instead
_TINY64 = np.float64(2.0 ** -53)
_TINY32 = np.float32(2.0 ** -24)


# ---- device functions (Numba's names) ----

@cuda.jit(device=True)
def xoroshiro128p_next(states, index):
    """the next 64-bit number of state states[index] (advanced in place)"""
    r = states[index]
    s0 = r.s0
    s1 = r.s1
    result = s0 + s1
    s1 ^= s0
    r.s0 = ((s0 << 55) | (s0 >> 9)) ^ s1 ^ (s1 << 14)
    r.s1 = (s1 << 36) | (s1 >> 28)
    return result


@cuda.jit(device=True)
def xoroshiro128p_jump(states, index):
    """advances states[index] by 2**64 numbers"""
    r = states[index]
    s0 = np.uint64(0)
    s1 = np.uint64(0)
    for j in range(2):
        jump = _JUMP0 if j == 0 else _JUMP1
        for b in range(64):
            if (jump >> np.uint64(b)) & _ONE:
                s0 ^= r.s0
                s1 ^= r.s1
            xoroshiro128p_next(states, index)
    r.s0 = s0
    r.s1 = s1


@cuda.jit(device=True)
def xoroshiro128p_uniform_float64(states, index):
    """a float64 in [0, 1)"""
    x = xoroshiro128p_next(states, index)
    return np.float64(x >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@cuda.jit(device=True)
def xoroshiro128p_uniform_float32(states, index):
    """a float32 in [0, 1] (the float64 one rounded, as Numba's)"""
    return np.float32(xoroshiro128p_uniform_float64(states, index))


@cuda.jit(device=True)
def xoroshiro128p_normal_float64(states, index):
    """a float64 of the standard normal distribution"""
    u1 = max(xoroshiro128p_uniform_float64(states, index), _TINY64)
    u2 = xoroshiro128p_uniform_float64(states, index)
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(_TWO_PI64 * u2)


@cuda.jit(device=True)
def xoroshiro128p_normal_float32(states, index):
    """a float32 of the standard normal distribution"""
    u1 = max(xoroshiro128p_uniform_float32(states, index), _TINY32)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(np.float32(-2.0) * math.log(u1)) * math.cos(_TWO_PI32 * u2)


# ---- seeding on the host ----

def _next(s):
    s0, s1 = s
    result = (s0 + s1) & _MASK
    s1 ^= s0
    s0 = (((s0 << 55) | (s0 >> 9)) & _MASK) ^ s1 ^ ((s1 << 14) & _MASK)
    s1 = ((s1 << 36) | (s1 >> 28)) & _MASK
    s[0], s[1] = s0, s1
    return result


def _jump(s):
    t0 = t1 = 0
    for jump in _JUMP:
        for b in range(64):
            if (jump >> b) & 1:
                t0 ^= s[0]
                t1 ^= s[1]
            _next(s)
    s[0], s[1] = t0, t1


def _splitmix64(x):
    """(the next splitmix64 state, its output)"""
    x = (x + 0x9E3779B97F4A7C15) & _MASK
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return x, z ^ (z >> 31)


# The jump is linear over GF(2): a 128x128 bit matrix, kept as its columns
# (the images of the unit states, low word and high word).  Jumping many
# states at once, or by a power of two at once, is that matrix applied.
_columns = None


def _jump_columns():
    global _columns
    if _columns is None:
        c0, c1 = np.zeros(128, np.uint64), np.zeros(128, np.uint64)
        for c in range(128):
            s = [1 << c, 0] if c < 64 else [0, 1 << (c - 64)]
            _jump(s)
            c0[c], c1[c] = s
        _columns = (c0, c1)
    return _columns


def _apply(cols, v0, v1):
    """the matrix `cols` applied to the states (v0, v1) (uint64 arrays)"""
    c0, c1 = cols
    o0, o1 = np.zeros_like(v0), np.zeros_like(v1)
    zero, one = np.uint64(0), np.uint64(1)
    for c in range(128):
        bit = (v0 if c < 64 else v1) >> np.uint64(c % 64) & one
        mask = zero - bit                       # all ones where the bit is set
        o0 ^= mask & c0[c]
        o1 ^= mask & c1[c]
    return o0, o1


def _square(cols):
    return _apply(cols, cols[0], cols[1])


def _host_states(n, seed, subsequence_start):
    _, z = _splitmix64(int(seed) & _MASK)
    # Numba's seeding: one splitmix64 output in both words
    v0, v1 = np.array([z], np.uint64), np.array([z], np.uint64)
    power, k = _jump_columns(), int(subsequence_start)
    while k:                                    # subsequence_start jumps
        if k & 1:
            v0, v1 = _apply(power, v0, v1)
        k >>= 1
        if k:
            power = _square(power)
    power = _jump_columns()
    while v0.size < n:                          # states m..2m: the first m, jumped m times
        m = min(v0.size, n - v0.size)
        w0, w1 = _apply(power, v0[:m], v1[:m])
        v0, v1 = np.concatenate([v0, w0]), np.concatenate([v1, w1])
        if v0.size < n:
            power = _square(power)
    out = np.empty(n, xoroshiro128p_dtype)
    out["s0"], out["s1"] = v0[:n], v1[:n]
    return out


def _host_states_stepwise(n, seed, subsequence_start):
    """the same, one jump at a time (the tests' reference)"""
    _, z = _splitmix64(int(seed) & _MASK)
    s = [z, z]
    for _ in range(int(subsequence_start)):
        _jump(s)
    out = np.empty(n, xoroshiro128p_dtype)
    for i in range(n):
        out[i] = (s[0], s[1])
        if i + 1 < n:
            _jump(s)
    return out


def init_xoroshiro128p_states(states, seed, subsequence_start=0, stream=0):
    """fills the device array `states` (of xoroshiro128p_dtype) with one
    state per element: splitmix64 of the seed, then a jump each"""
    if states.dtype != xoroshiro128p_dtype:
        raise TypeError("init_xoroshiro128p_states: states must be an array of %s, not %s"
                        % (xoroshiro128p_dtype, states.dtype))
    host = _host_states(states.shape[0], seed, subsequence_start)
    cuda.to_device(host, stream=stream, to=states)


def create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0):
    """a new device array of n generator states (xoroshiro128p_dtype),
    seeded as init_xoroshiro128p_states does"""
    if int(n) < 0:
        raise ValueError("create_xoroshiro128p_states: n must not be negative, got %d" % n)
    return cuda.to_device(_host_states(int(n), seed, subsequence_start), stream=stream)


__all__ = ["xoroshiro128p_dtype", "xoroshiro128p_next", "xoroshiro128p_jump",
           "xoroshiro128p_uniform_float32", "xoroshiro128p_uniform_float64",
           "xoroshiro128p_normal_float32", "xoroshiro128p_normal_float64",
           "init_xoroshiro128p_states", "create_xoroshiro128p_states"]
