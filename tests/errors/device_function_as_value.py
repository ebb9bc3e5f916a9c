"""A device function used as a value."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel(device=True)
def twice(v):
    return 2 * v


@jit.rawkernel()
def bad(x):
    f = twice  # ERROR: call
    x[0] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
