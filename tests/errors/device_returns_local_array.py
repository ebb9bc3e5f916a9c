"""A device function returning its local array, which ends when it returns."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel(device=True)
def scratch(a):
    t = jit.local_memory(np.float32, 4)
    t[0] = a[0]
    return t  # ERROR: local array


@jit.rawkernel()
def bad(x):
    y = scratch(x)
    x[1] = y[0]


ARGS = {"bad": (np.zeros(8, np.float32),)}
KIND = TypeError
