"""cuda.const.array_like of a kernel argument (it takes a global NumPy array)."""
import numpy as np

from cujit import cuda


@cuda.jit
def bad(out):
    c = cuda.const.array_like(out)  # ERROR: global or closure variable
    out[0] = c[0]


ARGS = {"bad": (np.zeros(8, np.float32),)}
KIND = TypeError
