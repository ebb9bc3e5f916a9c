"""A tuple target over range(): its items are ints, not tuples."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    for a, b in range(3):  # ERROR: not a tuple
        x[a] = b


ARGS = {"bad": (np.zeros(8, np.float32),)}
