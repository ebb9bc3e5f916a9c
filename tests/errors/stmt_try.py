"""try / except."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    i = jit.grid(1)
    try:  # ERROR: not supported
        x[i] = 1
    except IndexError:
        pass


ARGS = {"bad": (np.zeros(8, np.float32),)}
