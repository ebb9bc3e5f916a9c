"""jit.shared_memory without a shape."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    buf = jit.shared_memory(np.float32)  # ERROR: expects 2 to 3 arguments
    out[0] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
