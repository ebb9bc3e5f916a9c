"""A kernel returning a value."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    i = jit.grid(1)
    return x[i]  # ERROR: return


ARGS = {"bad": (np.zeros(8, np.float32),)}
