"""A device function that makes a local array returning an array, which
could be a view of it."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel(device=True)
def tail(a):
    t = jit.local_memory(np.float32, 4)
    t[0] = a[0]
    return t[1:]  # ERROR: local array ('t')


@jit.rawkernel()
def bad(x):
    y = tail(x)
    x[1] = y[0]


ARGS = {"bad": (np.zeros(8, np.float32),)}
KIND = TypeError
