"""A local array of vectors: arrays hold numbers."""
import numpy as np

from cujit import cuda


@cuda.jit
def bad(out):
    a = cuda.local.array(4, cuda.float4)  # ERROR: arrays of vectors are not supported
    out[0] = 1.0


ARGS = {"bad": (np.zeros(4, np.float32),)}
