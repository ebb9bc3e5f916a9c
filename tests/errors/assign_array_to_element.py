"""An array stored into an element."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    i = jit.grid(1)
    out[i] = x  # ERROR: cannot store


ARGS = {"bad": (np.zeros(8, np.float32), np.zeros(8, np.float32))}
