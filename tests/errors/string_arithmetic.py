"""Adding a string and a number."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    i = jit.grid(1)
    out[i] = "a" + 1  # ERROR: str


ARGS = {"bad": (np.zeros(8, np.float32),)}
