"""Assigned inside a loop that may run zero times."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    for k in range(x.size):
        last = x[k]
    out[0] = last  # MAYBE


ARGS = {"bad": (np.zeros(8, np.float32), np.zeros(8, np.float32))}
