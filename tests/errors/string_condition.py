"""A string as a condition."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    if "ready":  # ERROR: condition
        x[0] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
