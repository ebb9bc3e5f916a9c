"""Two indices into a 1-d array."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    i = jit.grid(1)
    out[i] = x[i, 0]  # ERROR: indices


ARGS = {"bad": (np.zeros(8, np.float32), np.zeros(8, np.float32))}
