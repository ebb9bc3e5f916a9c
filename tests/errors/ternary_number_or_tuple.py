"""A conditional expression of a tuple and a number."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    i = jit.grid(1)
    t = (1, 2) if x[i] > 0 else 3  # ERROR: tuple
    out[i] = 1


ARGS = {"bad": (np.zeros(8, np.float32), np.zeros(8, np.float32))}
