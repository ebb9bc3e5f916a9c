"""Printing a tuple."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    print(jit.grid(2))  # ERROR: print


ARGS = {"bad": (np.zeros(8, np.float32),)}
