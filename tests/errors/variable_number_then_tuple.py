"""A variable that holds a number, then a tuple."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    v = 1
    v = (1, 2)  # ERROR: tuple
    out[0] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
