"""A function defined inside a kernel."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    def helper(v):  # ERROR: not supported
        return v + 1
    x[0] = helper(x[0])


ARGS = {"bad": (np.zeros(8, np.float32),)}
