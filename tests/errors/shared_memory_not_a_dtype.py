"""A number where shared_memory needs a dtype."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(n, out):
    buf = jit.shared_memory(n, 16)  # ERROR: dtype
    out[0] = 1


ARGS = {"bad": (np.int32(16), np.zeros(8, np.float32))}
