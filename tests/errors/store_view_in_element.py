"""A row of a 2-d array (a view) stored into an element."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(m, out):
    i = jit.grid(1)
    out[i] = m[i]  # ERROR: cannot store float32[


ARGS = {"bad": (np.zeros((8, 8), np.float32), np.zeros(8, np.float32))}
