"""A variable that holds a number on one path and a tuple on another, read after both."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    v = 1
    if out[0] > 0:
        v = (1, 2)  # ERROR: tuple
    out[0] = v[0]


ARGS = {"bad": (np.zeros(8, np.float32),)}
