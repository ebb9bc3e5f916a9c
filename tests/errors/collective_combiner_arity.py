"""A combiner takes two values."""
import numpy as np

from cujit import jit


@jit.rawkernel(device=True)
def three(a, b, c):
    return a + b + c


@jit.rawkernel()
def bad(x, out):
    i = jit.threadIdx.x
    out[i] = jit.block_scan(x[i], three)  # ERROR: must take two values


ARGS = {"bad": (np.zeros(32, np.float32), np.zeros(32, np.float32))}
KIND = TypeError
