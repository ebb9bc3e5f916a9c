"""Atomics: jit.atomic_add / sub / max / min / exch / and / or / xor / inc /
dec / cas on every dtype CUDA has them for (int16 to uint64, float16 to
float64; the bitwise ones on integers, inc / dec on unsigned 32 and 64
bits), with an int or a tuple index, on global and shared arrays; the old
value they return.  16-bit ones need sm_70 (a 16-bit compare-and-swap)."""
import numpy as np

from cujit import jit

from ._common import poison, rand

ARITH = [np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.float16, np.float32,
         np.float64]
BITWISE = [np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]
UNSIGNED = [np.uint32, np.uint64]
SLOTS = 4
N = 200


@jit.rawkernel()
def add_slots(vals, acc):
    i = jit.grid(1)
    if i < vals.size:
        jit.atomic_add(acc, i % 4, vals[i])


@jit.rawkernel()
def sub_slots(vals, acc):
    i = jit.grid(1)
    if i < vals.size:
        jit.atomic_sub(acc, i % 4, vals[i])


@jit.rawkernel()
def max_slots(vals, acc):
    i = jit.grid(1)
    if i < vals.size:
        jit.atomic_max(acc, i % 4, vals[i])


@jit.rawkernel()
def min_slots(vals, acc):
    i = jit.grid(1)
    if i < vals.size:
        jit.atomic_min(acc, i % 4, vals[i])


@jit.rawkernel()
def and_slots(vals, acc):
    i = jit.grid(1)
    if i < vals.size:
        jit.atomic_and(acc, i % 4, vals[i])


@jit.rawkernel()
def or_slots(vals, acc):
    i = jit.grid(1)
    if i < vals.size:
        jit.atomic_or(acc, i % 4, vals[i])


@jit.rawkernel()
def xor_slots(vals, acc):
    i = jit.grid(1)
    if i < vals.size:
        jit.atomic_xor(acc, i % 4, vals[i])


def _slots_reduce(fn):
    def ref(vals, acc):
        res = acc.copy()
        for s in range(SLOTS):
            res[s] = fn(res[s], fn.reduce(vals[s::SLOTS]))
        return {1: res}
    return ref


def _sub_ref(vals, acc):
    res = acc.copy()
    for s in range(SLOTS):
        res[s] = res[s] - vals[s::SLOTS].sum(dtype=acc.dtype)
    return {1: res}


def _slot_args(dt, init, lo, hi):
    # float values are whole numbers: their sums do not depend on the order
    return lambda: (np.round(rand(N, dt, lo, hi)).astype(dt), np.array(init).astype(dt))


def _arith_range(dt):
    return (0, 20) if np.dtype(dt).kind == "u" else (-20, 20)


SLOT_OPS = [
    # kernel, dtypes, reference, initial accumulators, check for int32
    (add_slots, ARITH, _slots_reduce(np.add), [5, 6, 7, 8], "atomicAdd"),
    (sub_slots, ARITH, _sub_ref, [10000, 20000, 30000, 40000], None),
    (max_slots, ARITH, _slots_reduce(np.maximum), [3, 25, 0, 9], "atomicMax"),
    (min_slots, ARITH, _slots_reduce(np.minimum), [3, 25, 0, 9], "atomicMin"),
    (and_slots, BITWISE, _slots_reduce(np.bitwise_and), [0xFFFF, 0xF0F0, 0x7777, 0x1234],
     "atomicAnd"),
    (or_slots, BITWISE, _slots_reduce(np.bitwise_or), [0x100, 0x200, 0x400, 0x800], "atomicOr"),
    (xor_slots, BITWISE, _slots_reduce(np.bitwise_xor), [0x100, 0x200, 0x400, 0x800],
     "atomicXor"),
]


def _bitwise_range(dt):
    return (0, 0xFFFF)


@jit.rawkernel()
def inc_dec(lim, acc_inc, acc_dec):
    i = jit.grid(1)
    if i < 100:
        jit.atomic_inc(acc_inc, i % 2, lim)      # old >= lim ? 0 : old + 1
        jit.atomic_dec(acc_dec, i % 2, lim)      # old == 0 or old > lim ? lim : old - 1


def _inc_dec_ref(lim, acc_inc, acc_dec):
    inc, dec = [int(v) for v in acc_inc], [int(v) for v in acc_dec]
    lim = int(lim)
    for i in range(100):
        s = i % 2
        inc[s] = 0 if inc[s] >= lim else inc[s] + 1
        dec[s] = lim if dec[s] == 0 or dec[s] > lim else dec[s] - 1
    return {1: np.array(inc, acc_inc.dtype), 2: np.array(dec, acc_dec.dtype)}


def _inc_dec_args(dt):
    return lambda: (dt(7), np.array([0, 5], dt), np.array([3, 50], dt))


@jit.rawkernel()
def ticket(counter, out):
    i = jit.grid(1)
    if i < out.size:
        out[i] = jit.atomic_add(counter, 0, 1)    # the old value: every ticket once


def _ticket_ref(counter, out):
    start = counter[0]

    def check(actual):
        np.testing.assert_array_equal(np.sort(actual), start + np.arange(out.size))
    return {0: np.array([start + out.size], counter.dtype), 1: check}


@jit.rawkernel()
def exch_each(vals, acc, old):
    i = jit.grid(1)
    if i < vals.size:
        old[i] = jit.atomic_exch(acc, i, vals[i])


@jit.rawkernel()
def cas_each(cmp, vals, acc, old):
    i = jit.grid(1)
    if i < vals.size:
        old[i] = jit.atomic_cas(acc, i, cmp[i], vals[i])


def _cas_args(dt):
    def make():
        acc = rand(64, dt, 0, 50)
        cmp = acc.copy()
        cmp[1::2] += dt(1)                       # odd elements do not match
        return cmp, rand(64, dt, 0, 50), acc, poison(64, dt)
    return make


def _cas_ref(cmp, vals, acc, old):
    return {2: np.where(cmp == acc, vals, acc), 3: acc.copy()}


@jit.rawkernel()
def cas_loop_increment(acc):
    old = acc[0]
    while True:
        assumed = old
        old = jit.atomic_cas(acc, 0, assumed, assumed + 1)
        if old == assumed:
            break


@jit.rawkernel()
def tuple_index(vals, hist):
    i = jit.grid(1)
    if i < vals.size:
        jit.atomic_add(hist, (vals[i] % 3, i % 4), 1)
        jit.atomic_max(hist, (3, 3), vals[i] + 1000)     # a row the adds never touch


def _tuple_ref(vals, hist):
    res = hist.copy()
    for i, v in enumerate(vals.tolist()):
        res[v % 3, i % 4] += 1
    res[3, 3] = max(res[3, 3], vals.max() + 1000)
    return {1: res}


@jit.rawkernel()
def shared_histogram(vals, hist):
    local = jit.shared_memory(np.int32, 8)
    t = jit.threadIdx.x
    if t < 8:
        local[t] = 0
    jit.syncthreads()
    i = jit.grid(1)
    if i < vals.size:
        jit.atomic_add(local, vals[i], 1)
    jit.syncthreads()
    if t < 8:
        jit.atomic_add(hist, t, local[t])


def _histogram_ref(vals, hist):
    return {1: hist + np.bincount(vals, minlength=8).astype(hist.dtype)}


@jit.rawkernel()
def mixed_value_types(vals, acc):
    i = jit.grid(1)
    if i < vals.size:
        jit.atomic_add(acc, 0, vals[i])          # int32 values into an int64 array
        jit.atomic_max(acc, 1, vals[i] * 2)
        jit.atomic_add(acc, 2, 1)                # a weak literal


CASES = []
RUN = []
for _k, _dts, _ref, _init, _check in SLOT_OPS:
    for _dt in _dts:
        _lo, _hi = _bitwise_range(_dt) if _k in (and_slots, or_slots, xor_slots) \
            else _arith_range(_dt)
        _start = _init
        if _k is sub_slots and np.dtype(_dt).itemsize == 2:
            _start = [1000, 1100, 1200, 1300]     # float16 whole numbers stay exact
        _args = _slot_args(_dt, _start, _lo, _hi)
        _checks = [(_check, True)] if _check and _dt == np.int32 else []
        CASES.append((_k, _args(), _checks))
        RUN.append((_k, 2, 128, _args, _ref))

for _dt in UNSIGNED:
    _checks = [("atomicInc", True), ("atomicDec", True)] if _dt == np.uint32 else []
    CASES.append((inc_dec, _inc_dec_args(_dt)(), _checks))
    RUN.append((inc_dec, 1, 128, _inc_dec_args(_dt), _inc_dec_ref))

for _dt in ARITH:
    _exch = (lambda dt: lambda: (rand(64, dt, 0, 50), rand(64, dt, 0, 50), poison(64, dt)))(_dt)
    CASES.append((exch_each, _exch(), [("atomicExch", True)] if _dt == np.int32 else []))
    RUN.append((exch_each, 1, 64, _exch, lambda vals, acc, old: {1: vals.copy(), 2: acc.copy()}))
    CASES.append((cas_each, _cas_args(_dt)(), [("atomicCAS", True)] if _dt == np.int32 else []))
    RUN.append((cas_each, 1, 64, _cas_args(_dt), _cas_ref))
    _loop = (lambda dt: lambda: (np.array([7], dt),))(_dt)
    CASES.append((cas_loop_increment, _loop()))
    RUN.append((cas_loop_increment, 4, 64, _loop,
                lambda acc: {0: np.array([7 + 256], acc.dtype)}))
    _tk = (lambda dt: lambda: (np.array([3], dt), poison(150, dt)))(_dt)
    CASES.append((ticket, _tk()))
    RUN.append((ticket, 2, 128, _tk, _ticket_ref))

CASES += [
    (tuple_index, (rand(90, np.int32, 0, 50), np.full((4, 4), 2, np.int32))),
    (tuple_index, (rand(90, np.uint64, 0, 50), np.full((4, 4), 2, np.uint64))),
    (shared_histogram, (rand(300, np.int64, 0, 7), np.full(8, 1, np.int32))),
    (mixed_value_types, (rand(50, np.int32), np.array([1, -100, 3], np.int64))),
    (add_slots, ("(float32[:], float32[::1])",)),
]
RUN += [
    (tuple_index, 1, 96, lambda: (rand(90, np.int32, 0, 50), np.full((4, 4), 2, np.int32)),
     _tuple_ref),
    (tuple_index, 1, 96, lambda: (rand(90, np.uint64, 0, 50), np.full((4, 4), 2, np.uint64)),
     _tuple_ref),
    (shared_histogram, 3, 128, lambda: (rand(300, np.int64, 0, 7), np.full(8, 1, np.int32)),
     _histogram_ref),
    (mixed_value_types, 1, 64, lambda: (rand(50, np.int32), np.array([1, -100, 3], np.int64)),
     lambda vals, acc: {1: np.array([1 + vals.sum(), max(-100, 2 * vals.max()), 53], np.int64)}),
]
