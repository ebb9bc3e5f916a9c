"""jit.threadIdx without .x, .y or .z."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    i = jit.threadIdx  # ERROR: threadIdx
    out[0] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
