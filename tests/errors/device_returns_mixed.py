"""A device function returning a number and a tuple."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel(device=True)
def pick(v):
    if v > 0:
        return v
    return v, v  # ERROR: return


@jit.rawkernel()
def bad(x):
    i = jit.grid(1)
    x[i] = pick(x[i])


ARGS = {"bad": (np.zeros(8, np.float32),)}
