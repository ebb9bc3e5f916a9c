"""An array indexed with a float variable."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, f, out):
    out[0] = x[f]  # ERROR: float64


ARGS = {"bad": (np.zeros(8, np.float32), 1.0, np.zeros(8, np.float32))}
