"""A with statement."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    with open("log.txt") as f:  # ERROR: not supported
        x[0] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
