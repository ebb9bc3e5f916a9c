"""x in range(...) with a float bound: range() takes integers."""
import numpy as np

from cujit import cuda


@cuda.jit
def bad(x, out):
    out[0] = x[0] in range(0, x[1])  # ERROR: range() takes integers, got float64


ARGS = {"bad": (np.zeros(8, np.float64), np.zeros(8, np.int32))}
