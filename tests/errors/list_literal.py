"""A list."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    t = [1.0, 2.0]  # ERROR: not supported
    x[0] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
