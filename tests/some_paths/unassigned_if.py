"""Assigned in the if branch only."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    i = jit.grid(1)
    if x[i] > 0:
        y = 1.0
    out[i] = y  # MAYBE


ARGS = {"bad": (np.zeros(8, np.float32), np.zeros(8, np.float32))}
