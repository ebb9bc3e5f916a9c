"""Golden: shared memory, syncthreads, a strided for loop, warp shuffles, atomics."""
import numpy as np
from cujit import jit

THREADS = 128


@jit.rawkernel()
def block_sum(x, total):
    buf = jit.shared_memory(np.float32, THREADS)
    t = jit.threadIdx.x
    acc = 0.0
    for k in range(jit.grid(1), x.size, jit.gridsize(1)):
        acc += x[k]
    buf[t] = acc
    jit.syncthreads()
    s = THREADS // 2
    while s >= 32:
        if t < s:
            buf[t] += buf[t + s]
        jit.syncthreads()
        s //= 2
    if t < 32:
        v = buf[t]
        d = 16
        while d > 0:
            v += jit.shfl_down_sync(0xFFFFFFFF, v, d)
            d //= 2
        if t == 0:
            jit.atomic_add(total, 0, v)


SIGS = {"block_sum": (np.ones(1000, np.float32), np.zeros(1, np.float32))}
