"""A lane the vector does not have."""
import numpy as np

from cujit import cuda


@cuda.jit
def bad(out):
    v = cuda.float2(1.0, 2.0)
    out[0] = v.z  # ERROR: float32x2 has no attribute 'z' (its lanes: .x, .y)


ARGS = {"bad": (np.zeros(4, np.float32),)}
