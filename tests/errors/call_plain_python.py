"""Calling an undecorated Python function."""
import math

import numpy as np

from cujit import jit


def helper(v):
    return v * 2


@jit.rawkernel()
def bad(x):
    i = jit.grid(1)
    x[i] = helper(x[i])  # ERROR: device=True


ARGS = {"bad": (np.zeros(8, np.float32),)}
KIND = TypeError
