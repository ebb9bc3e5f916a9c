"""Calling a function that does not exist."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    i = jit.grid(1)
    out[i] = no_such_function(i)  # ERROR: unknown name


ARGS = {"bad": (np.zeros(8, np.float32),)}
