"""math.nextafter of float16 (cujit computes float16 math in float32)."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    x[0] = math.nextafter(x[1], x[2])  # ERROR: float16


ARGS = {"bad": (np.zeros(4, np.float16),)}
KIND = TypeError
