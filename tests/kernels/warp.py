"""Warp functions: shfl_sync / shfl_up_sync / shfl_down_sync / shfl_xor_sync
(width positional and as a keyword), all_sync / any_sync / ballot_sync,
activemask, and the bit functions popc / clz / ffs / brev."""
import numpy as np

from cujit import jit

from ._common import poison, rand

FULL = 0xffffffff


@jit.rawkernel()
def broadcast(x, out):
    i = jit.grid(1)
    out[i, 0] = jit.shfl_sync(FULL, x[i], 0)
    out[i, 1] = jit.shfl_sync(FULL, x[i], 3, width=8)      # lane 3 of each group of 8
    out[i, 2] = jit.shfl_sync(0xffffffff, x[i], 31 - jit.laneid())


def _broadcast_ref(x, out):
    w = x.reshape(-1, 32)
    lane = np.arange(32)
    c0 = np.repeat(w[:, :1], 32, axis=1)
    c1 = w[:, (lane // 8) * 8 + 3]
    c2 = w[:, 31 - lane]
    return {1: np.stack([c.reshape(-1) for c in (c0, c1, c2)], axis=1).astype(out.dtype)}


@jit.rawkernel()
def inclusive_scan(x, out):
    i = jit.grid(1)
    v = x[i]
    lane = jit.laneid()
    d = 1
    while d < 32:
        n = jit.shfl_up_sync(FULL, v, d)
        if lane >= d:
            v += n
        d *= 2
    out[i] = v


def _scan_ref(x, out):
    return {1: np.cumsum(x.reshape(-1, 32), axis=1, dtype=out.dtype).reshape(-1)}


@jit.rawkernel()
def warp_sum(x, out):
    i = jit.grid(1)
    v = x[i]
    off = 16
    while off > 0:
        v += jit.shfl_down_sync(FULL, v, off)
        off //= 2
    if jit.laneid() == 0:
        out[i // 32] = v


def _warp_sum_ref(x, out):
    return {1: x.reshape(-1, 32).sum(axis=1, dtype=np.float64).astype(out.dtype)}


@jit.rawkernel()
def butterfly_max(x, out):
    i = jit.grid(1)
    v = x[i]
    mask = 1
    while mask < 32:
        v = max(v, jit.shfl_xor_sync(FULL, v, mask))
        mask <<= 1
    out[i] = v                                   # every lane holds the warp's max


def _butterfly_ref(x, out):
    w = x.reshape(-1, 32)
    return {1: np.repeat(w.max(axis=1), 32)}


@jit.rawkernel()
def segmented_down(x, out):
    i = jit.grid(1)
    out[i, 0] = jit.shfl_down_sync(FULL, x[i], 1, 16)      # width positional
    out[i, 1] = jit.shfl_up_sync(FULL, x[i], 2, width=8)


def _segmented_ref(x, out):
    lane = np.arange(x.size) % 32
    i = np.arange(x.size)
    down = np.where(lane % 16 + 1 < 16, x[np.minimum(i + 1, x.size - 1)], x)
    up = np.where(lane % 8 >= 2, x[np.maximum(i - 2, 0)], x)
    return {1: np.stack([down, up], axis=1)}


@jit.rawkernel()
def votes(x, out, masks):
    i = jit.grid(1)
    p = x[i] > 0
    out[i, 0] = jit.all_sync(FULL, p)
    out[i, 1] = jit.any_sync(FULL, p)
    out[i, 2] = jit.all_sync(FULL, x[i] > -100)
    out[i, 3] = jit.any_sync(FULL, x[i] > 100)
    b = jit.ballot_sync(FULL, p)
    active = jit.activemask()                    # the whole warp is converged here
    if jit.laneid() == 0:
        masks[i // 32, 0] = b
        masks[i // 32, 1] = active
        masks[i // 32, 2] = jit.popc(b)


def _votes_args():
    x = rand(96, np.int32, -5, 50)
    x[32:64] = np.abs(x[32:64]) + 1        # the second warp: all positive
    x[64:96] = -np.abs(x[64:96]) - 1       # the third: none
    return x, poison((96, 4), np.bool_), poison((3, 3), np.int64)


def _votes_ref(x, out, masks):
    w = x.reshape(3, 32) > 0
    out_ = np.stack([np.repeat(w.all(1), 32), np.repeat(w.any(1), 32), np.ones(96, bool),
                     np.zeros(96, bool)], axis=1)
    bal = [sum(1 << k for k in range(32) if w[r, k]) for r in range(3)]
    m = np.array([[b, 0xffffffff, bin(b).count("1")] for b in bal], np.int64)
    return {1: out_, 2: m}


@jit.rawkernel()
def bit_functions(x, out):
    i = jit.grid(1)
    if i < x.size:
        out[i, 0] = jit.popc(x[i])
        out[i, 1] = jit.clz(x[i])
        out[i, 2] = jit.ffs(x[i])


@jit.rawkernel()
def bit_reverse(x, out):
    i = jit.grid(1)
    if i < x.size:
        out[i] = jit.brev(x[i])


def _bits(dt):
    return np.dtype(dt).itemsize * 8


def _bit_ref(x, out):
    w = _bits(x.dtype)
    rows = []
    for v in x.tolist():
        u = v & ((1 << w) - 1)
        ffs = (u & -u).bit_length()                 # 1-based, 0 when no bit is set
        rows.append([bin(u).count("1"), w - u.bit_length(), ffs])
    return {1: np.array(rows, out.dtype)}


def _brev_ref(x, out):
    w = _bits(x.dtype)
    res = [int(format(v, "0%db" % w)[::-1], 2) for v in x.tolist()]
    return {1: np.array(res, out.dtype)}


def _bit_args(dt):
    def make():
        info = np.iinfo(dt)
        x = rand(40, dt, int(info.min), int(info.max))
        x[:6] = np.array([0, 1, 2, 3, 0x80, 0x7f], dt)
        if info.min < 0:
            x[6] = -1
            x[7] = info.min
        x[8] = info.max
        return x, poison((40, 3), np.int64)
    return make


CASES = [
    (broadcast, (rand(64, np.float32), poison((64, 3), np.float32)), [("__shfl_sync", True)]),
    (broadcast, (rand(64, np.int64), poison((64, 3), np.int64))),
    (broadcast, (rand(64, np.float64), poison((64, 3), np.float64))),
    (inclusive_scan, (rand(64, np.int32), poison(64, np.int32)), [("__shfl_up_sync", True)]),
    (inclusive_scan, (rand(64, np.uint32, 0, 100), poison(64, np.uint32))),
    (warp_sum, (rand(64, np.float32), poison(2, np.float32)), [("__shfl_down_sync", True)]),
    (warp_sum, (rand(64, np.float64), poison(2, np.float64))),
    (warp_sum, (rand(64, np.int64), poison(2, np.int64))),
    (butterfly_max, (rand(64, np.float64), poison(64, np.float64)), [("__shfl_xor_sync", True)]),
    (butterfly_max, (rand(64, np.uint64, 0, 1000), poison(64, np.uint64))),
    (segmented_down, (rand(64, np.int32), poison((64, 2), np.int32))),
    (votes, _votes_args(), [("__ballot_sync", True), ("__all_sync", True), ("__any_sync", True),
                            ("__activemask", True)]),
] + [(bit_functions, _bit_args(dt)()) for dt in (np.int32, np.uint32, np.int64, np.uint64)] \
  + [(bit_reverse, (rand(16, dt, 0, 1000), poison(16, dt))) for dt in (np.uint32, np.uint64)] \
  + [(bit_reverse, (rand(16, np.int32), poison(16, np.uint32)))]

RUN = [
    (broadcast, 2, 32, lambda: (rand(64, np.float32), poison((64, 3), np.float32)),
     _broadcast_ref),
    (broadcast, 1, 64, lambda: (rand(64, np.int64), poison((64, 3), np.int64)), _broadcast_ref),
    (inclusive_scan, 1, 64, lambda: (rand(64, np.int32), poison(64, np.int32)), _scan_ref),
    (warp_sum, 1, 64, lambda: (rand(64, np.float32), poison(2, np.float32)), _warp_sum_ref,
     {"rtol": 1e-5, "atol": 1e-4}),
    (warp_sum, 1, 64, lambda: (rand(64, np.float64), poison(2, np.float64)), _warp_sum_ref),
    (warp_sum, 1, 64, lambda: (rand(64, np.int64), poison(2, np.int64)), _warp_sum_ref),
    (butterfly_max, 1, 64, lambda: (rand(64, np.float64), poison(64, np.float64)),
     _butterfly_ref),
    (segmented_down, 1, 64, lambda: (rand(64, np.int32), poison((64, 2), np.int32)),
     _segmented_ref),
    (votes, 1, 96, _votes_args, _votes_ref),
] + [(bit_functions, 1, 64, _bit_args(dt), _bit_ref)
     for dt in (np.int32, np.uint32, np.int64, np.uint64)] \
  + [(bit_reverse, 1, 16, (lambda dt: lambda: (rand(16, dt, 0, 1 << 20), poison(16, dt)))(dt),
      _brev_ref) for dt in (np.uint32, np.uint64)]
