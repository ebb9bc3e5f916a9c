"""The count of valid items of a reduction must be an integer."""
import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    i = jit.threadIdx.x
    out[i] = jit.warp_reduce(x[i], valid=2.5)  # ERROR: valid must be an integer


ARGS = {"bad": (np.zeros(32, np.float32), np.zeros(32, np.float32))}
KIND = TypeError
