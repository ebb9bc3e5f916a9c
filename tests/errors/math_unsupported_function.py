"""A math function the kernel language lacks."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    out[0] = math.factorial(5)  # ERROR: not supported


ARGS = {"bad": (np.zeros(8, np.float32),)}
