"""A dict."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    d = {1: 2.0}  # ERROR: not supported
    x[0] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
