"""Read on the line before the assignment."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    out[0] = y  # ERROR: not assigned
    y = 2.0


ARGS = {"bad": (np.zeros(8, np.float32),)}
