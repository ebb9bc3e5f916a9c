"""range() of a float."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    for k in range(2.5):  # ERROR: range
        out[0] = k


ARGS = {"bad": (np.zeros(8, np.float32),)}
