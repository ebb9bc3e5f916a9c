"""A global list is not a constant."""
import math

import numpy as np

from cujit import jit


TABLE = [1, 2, 3]


@jit.rawkernel()
def bad(x):
    x[0] = TABLE[1]  # ERROR: TABLE


ARGS = {"bad": (np.zeros(8, np.float32),)}
