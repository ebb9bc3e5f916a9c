"""A keyword argument to a math function."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    out[0] = math.sqrt(x=2.0)  # ERROR: keyword


ARGS = {"bad": (np.zeros(8, np.float32),)}
