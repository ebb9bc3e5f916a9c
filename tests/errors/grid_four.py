"""jit.grid(4)."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    i = jit.grid(4)  # ERROR: 1, 2 or 3
    out[0] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
KIND = ValueError
