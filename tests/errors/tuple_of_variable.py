"""tuple() of something other than items written out."""
import numpy as np

from cujit import cuda


@cuda.jit
def bad(x, out):
    t = tuple(x)  # ERROR: tuple() in a kernel takes one tuple or list written out
    out[0] = t[0]


ARGS = {"bad": (np.zeros(4, np.float32), np.zeros(4, np.float32))}
