"""A device function returning an array."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel(device=True)
def same(a):
    return a  # ERROR: return


@jit.rawkernel()
def bad(x):
    y = same(x)


ARGS = {"bad": (np.zeros(8, np.float32),)}
