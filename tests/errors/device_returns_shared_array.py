"""A device function returning a shared array itself, not a view of it."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel(device=True)
def tile():
    s = jit.shared_memory(np.float32, 32)
    return s  # ERROR: return x[:]


@jit.rawkernel()
def bad(x):
    y = tile()
    x[1] = y[0]


ARGS = {"bad": (np.zeros(8, np.float32),)}
KIND = TypeError
