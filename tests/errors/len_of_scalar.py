"""len() of a number."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(s, out):
    out[0] = len(s)  # ERROR: len


ARGS = {"bad": (np.float32(1), np.zeros(8, np.float32))}
