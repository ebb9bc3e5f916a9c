"""A tuple indexed by a value known only at run time whose items do not meet in
one type (a tuple of numbers that do is read by comparisons)."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    i = jit.grid(1)
    t = (1, (2, 3))
    out[i] = t[i]  # ERROR: meet in one type


ARGS = {"bad": (np.zeros(8, np.float32),)}
