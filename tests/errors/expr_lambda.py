"""lambda."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    f = lambda v: v + 1  # ERROR: not supported
    x[0] = 2


ARGS = {"bad": (np.zeros(8, np.float32),)}
