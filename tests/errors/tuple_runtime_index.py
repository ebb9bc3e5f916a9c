"""A tuple indexed by a value known only at run time."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    i = jit.grid(1)
    t = (1, 2, 3)
    out[i] = t[i]  # ERROR: constant


ARGS = {"bad": (np.zeros(8, np.float32),)}
