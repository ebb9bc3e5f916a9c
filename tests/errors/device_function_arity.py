"""A device function called with too many arguments."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel(device=True)
def add(a, b):
    return a + b


@jit.rawkernel()
def bad(out):
    out[0] = add(1.0, 2.0, 3.0)  # ERROR: takes 2 arguments


ARGS = {"bad": (np.zeros(8, np.float32),)}
