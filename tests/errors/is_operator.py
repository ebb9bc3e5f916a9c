"""The is operator."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    i = jit.grid(1)
    if x[i] is None:  # ERROR: not supported
        x[i] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
