"""The is operator of two numbers (x is None of a number is known False, as in
Numba: typeinfer's typed_truth)."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    i = jit.grid(1)
    if x[i] is x[0]:  # ERROR: not supported
        x[i] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
