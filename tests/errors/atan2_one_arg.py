"""math.atan2 with one argument."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    out[0] = math.atan2(1.0)  # ERROR: expects 2 arguments


ARGS = {"bad": (np.zeros(8, np.float32),)}
