"""range() with a zero step."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    for k in range(0, 10, 0):  # ERROR: zero
        out[0] = k


ARGS = {"bad": (np.zeros(8, np.float32),)}
KIND = ValueError
