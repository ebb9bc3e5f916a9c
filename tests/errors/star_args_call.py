"""*args in a call."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel(device=True)
def add(a, b):
    return a + b


@jit.rawkernel()
def bad(x):
    t = (1.0, 2.0)
    x[0] = add(*t)  # ERROR: not supported


ARGS = {"bad": (np.zeros(8, np.float32),)}
