"""Comparing two arrays."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, y, out):
    if x < y:  # ERROR: compare
        out[0] = 1


ARGS = {"bad": (np.zeros(8, np.float32), np.zeros(8, np.float32), np.zeros(8, np.float32))}
