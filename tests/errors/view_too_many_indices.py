"""More indices than the array has dimensions, with a slice among them."""
import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    y = x[1, :, 2]  # ERROR: too many indices
    out[0] = y[0]


ARGS = {"bad": (np.zeros((4, 4), np.float32), np.zeros(8, np.float32))}
KIND = IndexError
