"""Whether a scan is inclusive must be known when the kernel compiles."""
import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out, flag):
    i = jit.threadIdx.x
    out[i] = jit.block_scan(x[i], inclusive=flag)  # ERROR: known when the kernel compiles


ARGS = {"bad": (np.zeros(32, np.float32), np.zeros(32, np.float32), True)}
KIND = TypeError
