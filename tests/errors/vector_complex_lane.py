"""A complex number as a lane."""
import numpy as np

from cujit import cuda


@cuda.jit
def bad(out):
    v = cuda.double2(1.0, 2j)  # ERROR: float64x2() takes numbers and float64 vectors
    out[0] = v.x


ARGS = {"bad": (np.zeros(4, np.float64),)}
