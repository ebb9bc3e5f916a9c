"""Storing into a read-only array."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    i = jit.grid(1)
    x[i] = 1  # ERROR: read-only


ARGS = {"bad": (np.broadcast_to(np.float32(0), (8,)),)}
