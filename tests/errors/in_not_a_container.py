"""x in y of a number y: 'in' needs a tuple, a list written out, range()
or an array."""
import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    out[0] = x[0] in x[1]  # ERROR: needs a tuple, a list written out ([a, b]), range(...) or an array


ARGS = {"bad": (np.zeros(8, np.float32), np.zeros(8, np.int32))}
