"""Indexing a scalar argument."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(s, out):
    out[0] = s[0]  # ERROR: float32


ARGS = {"bad": (np.float32(1), np.zeros(8, np.float32))}
