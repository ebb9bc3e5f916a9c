"""More shared memory than a block can have."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    buf = jit.shared_memory(np.float64, 1 << 20)  # ERROR: bytes
    out[0] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
