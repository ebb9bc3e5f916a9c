"""Rebinding an array parameter to a number on one path, read after the paths meet."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    if x[0] > 0:
        x = 1  # ERROR: parameter
    x[0] = 2


ARGS = {"bad": (np.zeros(8, np.float32),)}
