"""Augmented assignment to a variable never assigned."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    total += 1  # ERROR: not assigned
    out[0] = total


ARGS = {"bad": (np.zeros(8, np.float32),)}
