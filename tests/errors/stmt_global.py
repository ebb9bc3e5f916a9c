"""A global statement."""
import math

import numpy as np

from cujit import jit


COUNTER = 0


@jit.rawkernel()
def bad(x):
    global COUNTER  # ERROR: not supported
    x[0] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
