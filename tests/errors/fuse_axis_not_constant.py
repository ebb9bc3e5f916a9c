"""A fused reduction's axis read from an argument."""
import numpy as np

import cujit


@cujit.fuse
def f(x, k):
    return np.sum(x * 2, axis=k)  # ERROR: constant


ARGS = {"f": (np.ones((4, 8), np.float32), 1)}
