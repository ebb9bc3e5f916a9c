"""A fused function calls plain Python."""
import numpy as np

import cujit


def helper(v):
    return v * 2


@cujit.fuse
def f(x):
    return helper(x) + 1  # ERROR: plain Python function


ARGS = {"f": (np.ones(8, np.float32),)}
KIND = TypeError
