"""A slice bound that is not an integer."""
import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out, a):
    y = x[a:]  # ERROR: float32
    out[0] = y[0]


ARGS = {"bad": (np.zeros(8, np.float32), np.zeros(8, np.float32), np.float32(1))}
KIND = TypeError
