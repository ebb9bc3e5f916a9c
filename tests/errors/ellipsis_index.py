"""Indexing with an Ellipsis."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(m, out):
    out[0] = m[..., 0]  # ERROR: not supported


ARGS = {"bad": (np.zeros((4, 4), np.float32), np.zeros(8, np.float32))}
