"""Rebinding an array parameter to a number."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    x = 1  # ERROR: parameter


ARGS = {"bad": (np.zeros(8, np.float32),)}
