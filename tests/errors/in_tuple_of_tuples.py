"""x in t where x cannot be compared with an item of t by ==."""
import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    out[0] = x[0] in ((1, 2), 3)  # ERROR: compares x with each item of t by ==


ARGS = {"bad": (np.zeros(8, np.int32), np.zeros(8, np.int32))}
