"""Assigned inside a while loop."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    k = 0
    while k < x.size:
        v = x[k]
        k += 1
    out[0] = v  # MAYBE


ARGS = {"bad": (np.zeros(8, np.float32), np.zeros(8, np.float32))}
