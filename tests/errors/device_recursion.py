"""A device function that calls itself."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel(device=True)
def fact(n):
    if n <= 1:
        return 1
    return n * fact(n - 1)  # ERROR: recursion


@jit.rawkernel()
def bad(out):
    out[0] = fact(5)


ARGS = {"bad": (np.zeros(1, np.int64),)}
KIND = ValueError
