"""A misspelt width keyword."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    i = jit.grid(1)
    x[i] = jit.shfl_sync(0xffffffff, x[i], 0, widht=16)  # ERROR: widht


ARGS = {"bad": (np.zeros(8, np.float32),)}
