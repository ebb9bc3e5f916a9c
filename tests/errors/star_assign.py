"""A starred assignment target."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    a, *rest = 1, 2, 3  # ERROR: not supported
    x[0] = a


ARGS = {"bad": (np.zeros(8, np.float32),)}
