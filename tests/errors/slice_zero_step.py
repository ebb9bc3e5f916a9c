"""A slice whose step is the constant zero (Python raises ValueError)."""
import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    y = x[1:5:0]  # ERROR: slice step cannot be zero
    out[0] = y[0]


ARGS = {"bad": (np.zeros(8, np.float32), np.zeros(8, np.float32))}
KIND = ValueError
