"""A shared array bound to a second name."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    buf = jit.shared_memory(np.float32, 32)
    other = buf  # ERROR: shared
    out[0] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
