"""'in' inside a chain of comparisons."""
import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    out[0] = 0 < x[0] in (1, 2)  # ERROR: 'in' and 'not in' in a chain of comparisons


ARGS = {"bad": (np.zeros(8, np.int32), np.zeros(8, np.int32))}
