"""A shuffle without its mask."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    i = jit.grid(1)
    x[i] = jit.shfl_down_sync(x[i], 1)  # ERROR: expects 3 to 4 arguments


ARGS = {"bad": (np.zeros(8, np.float32),)}
