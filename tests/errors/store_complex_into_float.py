"""A complex value stored into a float array."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(z, out):
    i = jit.grid(1)
    out[i] = z[i] * 2  # ERROR: complex


ARGS = {"bad": (np.zeros(8, np.complex64), np.zeros(8, np.float32))}
