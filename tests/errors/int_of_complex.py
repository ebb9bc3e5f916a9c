"""int() of a complex number."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(z, out):
    i = jit.grid(1)
    out[i] = int(z[i])  # ERROR: complex


ARGS = {"bad": (np.zeros(8, np.complex64), np.zeros(8, np.int64))}
