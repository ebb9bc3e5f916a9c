"""A kernel parameter with a default value."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, n=4):  # ERROR: default
    x[0] = n


ARGS = {"bad": (np.zeros(8, np.float32), 3)}
