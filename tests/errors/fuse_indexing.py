"""A fused function indexes an array."""
import numpy as np

import cujit


@cujit.fuse
def f(x, y):
    return x + y[0]  # ERROR: indexing cannot be fused


ARGS = {"f": (np.ones(8, np.float32), np.ones(8, np.float32))}
KIND = TypeError
