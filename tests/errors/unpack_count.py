"""Three values unpacked into two names."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    a, b = 1, 2, 3  # ERROR: unpack
    out[0] = a + b


ARGS = {"bad": (np.zeros(8, np.float32),)}
KIND = ValueError
