"""An unknown name two device calls deep."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel(device=True)
def inner(v):
    return v + missing_constant  # ERROR: unknown name


@jit.rawkernel(device=True)
def outer(v):
    return inner(v) * 2


@jit.rawkernel()
def bad(x):
    i = jit.grid(1)
    x[i] = outer(x[i])


ARGS = {"bad": (np.zeros(8, np.float32),)}
