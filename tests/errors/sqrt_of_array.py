"""math.sqrt of a whole array."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    out[0] = math.sqrt(x)  # ERROR: real number


ARGS = {"bad": (np.zeros(8, np.float32), np.zeros(8, np.float32))}
