"""A complex value given to an atomic."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(acc):
    jit.atomic_add(acc, 0, 1j)  # ERROR: complex


ARGS = {"bad": (np.zeros(8, np.float32),)}
