"""A shared array with a zero extent."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    buf = jit.shared_memory(np.float32, (0, 4))  # ERROR: positive
    out[0] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
