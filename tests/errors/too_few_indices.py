"""One index into a 2-d array (a row view is a slice)."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(m, out):
    i = jit.grid(1)
    out[i] = m[i]  # ERROR: indices


ARGS = {"bad": (np.zeros((8, 8), np.float32), np.zeros(8, np.float32))}
