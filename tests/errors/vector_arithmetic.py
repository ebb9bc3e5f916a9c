"""Arithmetic on CUDA vector types: Numba's have none either."""
import numpy as np

from cujit import cuda


@cuda.jit
def bad(out):
    a = cuda.float32x2(1.0, 2.0)
    b = a + a  # ERROR: operator + is not supported on CUDA vector types (float32x2)
    out[0] = b.x


ARGS = {"bad": (np.zeros(4, np.float32),)}
