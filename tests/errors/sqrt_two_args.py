"""math.sqrt with two arguments."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    out[0] = math.sqrt(1.0, 2.0)  # ERROR: expects 1 argument


ARGS = {"bad": (np.zeros(8, np.float32),)}
