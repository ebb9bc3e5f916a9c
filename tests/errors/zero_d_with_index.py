"""A 0-d array indexed with [0] instead of [()]."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(z):
    z[0] = 1.0  # ERROR: indices


ARGS = {"bad": (np.zeros((), np.float64),)}
