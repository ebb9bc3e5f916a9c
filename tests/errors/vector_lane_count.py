"""A vector constructor given too few lanes."""
import numpy as np

from cujit import cuda


@cuda.jit
def bad(out):
    a = cuda.float32x2(1.0, 2.0)
    v = cuda.float32x4(a, 3.0)  # ERROR: float32x4() needs 4 lanes from its arguments
    out[0] = v.x


ARGS = {"bad": (np.zeros(4, np.float32),)}
