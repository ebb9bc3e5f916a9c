"""A shared memory shape known only at run time."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(n, out):
    buf = jit.shared_memory(np.float32, n)  # ERROR: constant
    out[0] = 1


ARGS = {"bad": (np.int32(16), np.zeros(8, np.float32))}
