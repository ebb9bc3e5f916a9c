"""math.frexp of a complex number."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, e):
    x[0], e[0] = math.frexp(x[1])  # ERROR: complex64


ARGS = {"bad": (np.zeros(4, np.complex64), np.zeros(4, np.int32))}
KIND = TypeError
