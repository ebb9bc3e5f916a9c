"""Storing an array into a slice (a slice takes a number only)."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(m):
    i = jit.grid(1)
    m[i, :] = m[0]  # ERROR: to a slice


ARGS = {"bad": (np.zeros((4, 4), np.float64),)}
