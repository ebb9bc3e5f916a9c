"""An integer literal wider than 64 bits."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    v = 100000000000000000000  # ERROR: too large
    out[0] = v


ARGS = {"bad": (np.zeros(1, np.int64),)}
