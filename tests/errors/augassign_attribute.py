"""Augmented assignment to an attribute."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    x.size += 1  # ERROR: augmented


ARGS = {"bad": (np.zeros(8, np.float32),)}
