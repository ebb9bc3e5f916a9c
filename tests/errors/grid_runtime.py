"""jit.grid(n) with n known only at run time."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(n, out):
    i = jit.grid(n)  # ERROR: constant
    out[0] = 1


ARGS = {"bad": (np.int32(1), np.zeros(8, np.float32))}
