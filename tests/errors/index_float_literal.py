"""An array indexed with a float literal."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    out[0] = x[1.5]  # ERROR: integer


ARGS = {"bad": (np.zeros(8, np.float32), np.zeros(8, np.float32))}
