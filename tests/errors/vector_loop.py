"""A for loop over a vector's lanes."""
import numpy as np

from cujit import cuda


@cuda.jit
def bad(out):
    v = cuda.float2(1.0, 2.0)
    for x in v:  # ERROR: len() or a for loop over the lanes is not supported on CUDA vector types
        out[0] = x


ARGS = {"bad": (np.zeros(4, np.float32),)}
