"""The @ operator on numbers."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, y):
    i = jit.grid(1)
    x[i] = x[i] @ y[i]  # ERROR: not supported


ARGS = {"bad": (np.zeros(8, np.float32), np.zeros(8, np.float32))}
