"""A math function used as a value."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    f = math.sqrt  # ERROR: call
    x[0] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
