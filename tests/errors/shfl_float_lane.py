"""A float lane index."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    x[0] = jit.shfl_sync(0xffffffff, x[0], 1.5)  # ERROR: integer


ARGS = {"bad": (np.zeros(8, np.float32),)}
