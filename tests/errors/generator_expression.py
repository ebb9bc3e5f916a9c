"""A generator expression."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    g = (k for k in range(3))  # ERROR: not supported
    x[0] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
