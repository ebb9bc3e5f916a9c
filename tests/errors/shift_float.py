"""<< on a float."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    i = jit.grid(1)
    out[i] = x[i] << 2  # ERROR: float64


ARGS = {"bad": (np.zeros(8, np.float64), np.zeros(8, np.float64))}
