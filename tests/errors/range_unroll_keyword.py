"""Python's range takes no unroll=; jit.range does."""
import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    for i in range(8, unroll=2):  # ERROR: keyword
        out[i] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
KIND = TypeError
