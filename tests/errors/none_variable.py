"""None held in a variable."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    v = None  # ERROR: none
    out[0] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
