"""A tuple stored into an element."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    x[0] = (1, 2)  # ERROR: cannot store


ARGS = {"bad": (np.zeros(8, np.float32),)}
