"""Storing a whole vector into an array of numbers."""
import numpy as np

from cujit import cuda


@cuda.jit
def bad(out):
    v = cuda.double2(1.0, 2.0)
    out[0] = v  # ERROR: cannot store float64x2 into an element of float64


ARGS = {"bad": (np.zeros(4, np.float64),)}
