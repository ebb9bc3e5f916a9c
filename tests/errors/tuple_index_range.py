"""A constant tuple index past the end."""
import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    t = (1, 2, 3)
    out[0] = t[3]  # ERROR: out of range


ARGS = {"bad": (np.zeros(8, np.float32),)}
KIND = IndexError
