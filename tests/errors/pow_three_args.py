"""pow(x, y, mod): the three-argument form."""
import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    x[0] = pow(x[1], 2, 7)  # ERROR: pow(x, y, mod) is not supported


ARGS = {"bad": (np.zeros(4, np.int64),)}
KIND = TypeError
