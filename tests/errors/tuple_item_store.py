"""Storing into a tuple."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    t = (1, 2, 3)
    t[0] = 5  # ERROR: tuple
    out[0] = t[0]


ARGS = {"bad": (np.zeros(8, np.float32),)}
