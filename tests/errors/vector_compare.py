"""Comparing vectors."""
import numpy as np

from cujit import cuda


@cuda.jit
def bad(out):
    a = cuda.uint2(1, 2)
    if a == a:  # ERROR: comparison == is not supported on CUDA vector types (uint32x2)
        out[0] = 1


ARGS = {"bad": (np.zeros(4, np.uint32),)}
