"""A vector type used as a value, not called."""
import numpy as np

from cujit import cuda


@cuda.jit
def bad(out):
    t = cuda.float4  # ERROR: cuda.float32x4 is a vector type: call it
    out[0] = 1.0


ARGS = {"bad": (np.zeros(4, np.float32),)}
