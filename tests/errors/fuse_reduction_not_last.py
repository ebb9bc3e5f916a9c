"""A fused reduction that is not the value of the last statement."""
import numpy as np

import cujit


@cujit.fuse
def f(x):
    s = np.sum(x, axis=0)  # ERROR: last statement
    return x - s


ARGS = {"f": (np.ones((4, 8), np.float32),)}
KIND = TypeError
