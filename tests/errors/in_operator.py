"""The in operator."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    i = jit.grid(1)
    if i in (1, 2, 3):  # ERROR: not supported
        x[i] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
