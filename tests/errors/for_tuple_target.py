"""A for loop with a tuple target."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    for a, b in range(3):  # ERROR: single variable
        x[a] = b


ARGS = {"bad": (np.zeros(8, np.float32),)}
