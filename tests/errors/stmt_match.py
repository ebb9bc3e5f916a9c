"""A match statement."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    i = jit.grid(1)
    match i:  # ERROR: not supported
        case 0:
            x[0] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
