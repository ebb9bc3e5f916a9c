"""Calling a NumPy function (not a dtype)."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    out[0] = np.sum(x)  # ERROR: cannot call


ARGS = {"bad": (np.zeros(8, np.float32), np.zeros(8, np.float32))}
