"""An annotation without a value."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    y: float  # ERROR: annotation
    x[0] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
