"""A loop over a tuple whose items do not meet in one type."""
import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    s = 0.0
    for v in (1.5, (2, 3)):  # ERROR: meet in one type
        s += 1.0
    out[0] = s


ARGS = {"bad": (np.zeros(8, np.float32),)}
