"""local_memory cannot be sized at launch."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    buf = jit.local_memory(np.int32, None)  # ERROR: constant
    out[0] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
