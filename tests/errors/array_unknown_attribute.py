"""x.foo on an array."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    out[0] = x.foo  # ERROR: attribute


ARGS = {"bad": (np.zeros(8, np.float32), np.zeros(8, np.float32))}
