"""Storing a complex array into a slice of a real array (a slice takes a
number, or an array it can hold)."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(m, z):
    i = jit.grid(1)
    m[i, :] = z[0]  # ERROR: to a slice


ARGS = {"bad": (np.zeros((4, 4), np.float64), np.zeros((4, 4), np.complex128))}
