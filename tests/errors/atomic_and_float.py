"""A bitwise atomic on floats."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(acc):
    jit.atomic_and(acc, 0, 1)  # ERROR: float32


ARGS = {"bad": (np.zeros(8, np.float32),)}
KIND = TypeError
