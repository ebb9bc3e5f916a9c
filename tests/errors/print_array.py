"""Printing a whole array."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    print(x)  # ERROR: print


ARGS = {"bad": (np.zeros(8, np.float32),)}
