"""Storing into a slice of a 2-d array."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(m):
    i = jit.grid(1)
    m[i, :] = 0  # ERROR: slicing


ARGS = {"bad": (np.zeros((4, 4), np.float64),)}
