"""A 1-component index into a 2-d array."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(m):
    jit.atomic_add(m, 0, 1)  # ERROR: dimension


ARGS = {"bad": (np.zeros((4, 4), np.int32),)}
