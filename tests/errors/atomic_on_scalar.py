"""An atomic on a scalar argument."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(s):
    jit.atomic_add(s, 0, 1)  # ERROR: array


ARGS = {"bad": (np.int32(0),)}
