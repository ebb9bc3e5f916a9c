"""jit.popc of a float."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    i = jit.grid(1)
    out[i] = jit.popc(x[i])  # ERROR: float32


ARGS = {"bad": (np.zeros(8, np.float32), np.zeros(8, np.int32))}
