"""jit.range(..., unroll=0): a count of at least 1 (False is `#pragma unroll 1`)."""
import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    for i in jit.range(8, unroll=0):  # ERROR: unroll=0 is out of range
        out[i] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
KIND = ValueError
