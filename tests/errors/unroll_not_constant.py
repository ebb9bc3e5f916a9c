"""jit.range(..., unroll=n) with n a runtime value."""
import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out, n):
    for i in jit.range(8, unroll=n):  # ERROR: constant
        out[i] = 1


ARGS = {"bad": (np.zeros(8, np.float32), 4)}
KIND = TypeError
