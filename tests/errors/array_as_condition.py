"""An array used as a condition."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    if x:  # ERROR: condition
        out[0] = 1


ARGS = {"bad": (np.zeros(8, np.float32), np.zeros(8, np.float32))}
