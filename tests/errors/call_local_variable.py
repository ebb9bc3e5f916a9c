"""Calling a local variable."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    f = x[0]
    x[1] = f(2)  # ERROR: cannot be called


ARGS = {"bad": (np.zeros(8, np.float32),)}
