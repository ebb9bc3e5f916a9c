"""argmin over a tuple of axes (NumPy takes one axis or None)."""
import numpy as np

import cujit


@cujit.fuse
def f(x):
    return np.argmin(x, axis=(0, 1))  # ERROR: axis must be None, an int


ARGS = {"f": (np.ones((4, 8), np.float32),)}
