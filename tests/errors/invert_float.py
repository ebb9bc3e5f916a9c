"""~ on a float."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    i = jit.grid(1)
    x[i] = ~x[i]  # ERROR: float32


ARGS = {"bad": (np.zeros(8, np.float32),)}
