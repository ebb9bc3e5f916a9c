"""% on complex numbers."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(z):
    i = jit.grid(1)
    z[i] = z[i] % 2  # ERROR: complex


ARGS = {"bad": (np.zeros(8, np.complex64),)}
