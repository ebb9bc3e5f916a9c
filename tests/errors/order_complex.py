"""< on complex numbers."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(z, out):
    i = jit.grid(1)
    out[i] = z[i] < z[0]  # ERROR: complex


ARGS = {"bad": (np.zeros(8, np.complex64), np.zeros(8, np.bool_))}
