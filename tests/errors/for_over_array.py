"""for over an array, not range()."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    s = 0.0
    for v in x:  # ERROR: range
        s += v
    out[0] = s


ARGS = {"bad": (np.zeros(8, np.float32), np.zeros(8, np.float32))}
