"""Assigning a lane: a vector is a value, made whole by its constructor."""
import numpy as np

from cujit import cuda


@cuda.jit
def bad(out):
    v = cuda.double2(1.0, 2.0)
    v.x = 3.0  # ERROR: assigning a lane (v.x = ...) is not supported on CUDA vector types
    out[0] = v.x


ARGS = {"bad": (np.zeros(4, np.float64),)}
