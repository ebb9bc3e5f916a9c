"""Negating a boolean (NumPy refuses it too)."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(b, out):
    i = jit.grid(1)
    out[i] = -b[i]  # ERROR: boolean


ARGS = {"bad": (np.zeros(8, np.bool_), np.zeros(8, np.bool_))}
