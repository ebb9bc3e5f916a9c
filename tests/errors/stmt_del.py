"""del."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    y = x[0]
    del y  # ERROR: not supported
    x[0] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
