"""range with a keyword argument."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    for k in range(10, step=2):  # ERROR: keyword
        out[0] = k


ARGS = {"bad": (np.zeros(8, np.float32),)}
KIND = TypeError
