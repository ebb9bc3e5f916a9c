"""jit.atomic_add with two arguments."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(acc):
    jit.atomic_add(acc, 0)  # ERROR: expects 3 arguments


ARGS = {"bad": (np.zeros(4, np.int32),)}
