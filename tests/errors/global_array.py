"""A global NumPy array is not a constant."""
import math

import numpy as np

from cujit import jit


LOOKUP = np.arange(4.0)


@jit.rawkernel()
def bad(x):
    i = jit.grid(1)
    x[i] = LOOKUP[i]  # ERROR: LOOKUP


ARGS = {"bad": (np.zeros(8, np.float32),)}
