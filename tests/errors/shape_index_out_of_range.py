""".shape[2] of a 1-d array."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    out[0] = x.shape[2]  # ERROR: out of range


ARGS = {"bad": (np.zeros(8, np.float32), np.zeros(8, np.float32))}
