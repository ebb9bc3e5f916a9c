"""A fused function reads an array's shape."""
import numpy as np

import cujit


@cujit.fuse
def f(x):
    return x * x.shape[0]  # ERROR: cannot be fused


ARGS = {"f": (np.ones(8, np.float32),)}
KIND = TypeError
