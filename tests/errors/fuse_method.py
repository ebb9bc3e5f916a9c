"""A fused function calls an array method with no meaning on one element."""
import numpy as np

import cujit


@cujit.fuse
def f(x):
    return x.reshape(2, 4) + 1  # ERROR: method 'reshape' cannot be fused


ARGS = {"f": (np.ones(8, np.float32),)}
KIND = TypeError
