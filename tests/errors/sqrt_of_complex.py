"""math.sqrt of a complex number (cmath's job)."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(z, out):
    i = jit.grid(1)
    out[i] = math.sqrt(z[i])  # ERROR: complex


ARGS = {"bad": (np.zeros(8, np.complex128), np.zeros(8, np.float64))}
