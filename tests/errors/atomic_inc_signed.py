"""atomic_inc on a signed array."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(acc):
    jit.atomic_inc(acc, 0, 10)  # ERROR: int32


ARGS = {"bad": (np.zeros(4, np.int32),)}
