"""Whole-array arithmetic inside a kernel."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    y = x + 1  # ERROR: unsupported operand
    out[0] = 1


ARGS = {"bad": (np.zeros(8, np.float32), np.zeros(8, np.float32))}
