"""jit.atomic_cas with three arguments."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(acc):
    jit.atomic_cas(acc, 0, 1)  # ERROR: expects 4 arguments


ARGS = {"bad": (np.zeros(4, np.int32),)}
