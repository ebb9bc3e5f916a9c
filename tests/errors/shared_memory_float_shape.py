"""A float shape."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    buf = jit.shared_memory(np.float32, 16.0)  # ERROR: integer
    out[0] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
