"""min of one value (no iterables in kernels)."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    out[0] = min(x[0])  # ERROR: two arguments


ARGS = {"bad": (np.zeros(8, np.float32), np.zeros(8, np.float32))}
