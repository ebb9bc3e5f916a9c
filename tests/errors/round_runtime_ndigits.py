"""round() with ndigits known only at run time."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, n):
    x[0] = round(x[0], n)  # ERROR: ndigits


ARGS = {"bad": (np.zeros(4, np.float64), np.int32(2))}
