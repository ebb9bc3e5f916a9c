"""A vector constructor given a vector of another element type."""
import numpy as np

from cujit import cuda


@cuda.jit
def bad(out):
    a = cuda.int32x2(1, 2)
    v = cuda.float32x3(a, 3.0)  # ERROR: float32x3() takes numbers and float32 vectors
    out[0] = v.x


ARGS = {"bad": (np.zeros(4, np.float32),)}
