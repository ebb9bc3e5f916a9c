"""A namespace of Numba's API (cuda.fp16) used as a value."""
import numpy as np

from cujit import cuda


@cuda.jit
def bad(x):
    h = cuda.fp16  # ERROR: namespace
    x[0] = h.hadd(x[1], x[2])


ARGS = {"bad": (np.zeros(4, np.float16),)}
