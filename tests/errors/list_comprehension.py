"""A list comprehension."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    y = [k * 2 for k in range(3)]  # ERROR: not supported
    x[0] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
