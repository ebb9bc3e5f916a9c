"""for over a tuple, not range()."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    s = 0
    for v in (1, 2, 3):  # ERROR: range
        s += v
    out[0] = s


ARGS = {"bad": (np.zeros(8, np.float32),)}
