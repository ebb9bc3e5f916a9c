"""zip() with a keyword (strict=)."""
import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, y):
    for a, b in zip(x, y, strict=True):  # ERROR: no keywords
        x[0] = a + b


ARGS = {"bad": (np.zeros(8, np.float32), np.zeros(8, np.float32))}
