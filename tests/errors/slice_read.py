"""Slicing an array."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    y = x[1:3]  # ERROR: slicing
    out[0] = y[0]


ARGS = {"bad": (np.zeros(8, np.float32), np.zeros(8, np.float32))}
