"""raise."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    i = jit.grid(1)
    if x[i] < 0:
        raise ValueError("negative")  # ERROR: not supported


ARGS = {"bad": (np.zeros(8, np.float32),)}
