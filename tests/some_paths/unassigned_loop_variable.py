"""The loop variable read after a loop that may not run."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(n, out):
    for k in range(n):
        out[k] = 0
    out[0] = k  # MAYBE


ARGS = {"bad": (np.int32(4), np.zeros(8, np.float32))}
