"""An assignment expression."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    i = jit.grid(1)
    if (v := x[i]) > 0:  # ERROR: not supported
        x[i] = v


ARGS = {"bad": (np.zeros(8, np.float32),)}
