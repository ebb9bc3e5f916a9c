"""range() of a float32 argument."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(n, out):
    for k in range(n):  # ERROR: range
        out[0] = k


ARGS = {"bad": (np.float32(4), np.zeros(8, np.float32))}
