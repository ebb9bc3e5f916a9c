"""range with four arguments."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    for k in range(0, 10, 2, 1):  # ERROR: expects 1 to 3 arguments
        out[0] = k


ARGS = {"bad": (np.zeros(8, np.float32),)}
