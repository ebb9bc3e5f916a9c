"""A fused function calls an operation whose result's shape depends on the data."""
import numpy as np

import cujit


@cujit.fuse
def f(x):
    u = np.unique(x)  # ERROR: numpy.unique cannot be fused
    return u


ARGS = {"f": (np.ones(8, np.float32),)}
KIND = TypeError
