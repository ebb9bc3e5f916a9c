"""round() with an ndigits that is not an integer."""
import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, n):
    x[0] = round(x[0], n)  # ERROR: float64


ARGS = {"bad": (np.zeros(4, np.float64), np.float64(2))}
KIND = TypeError
