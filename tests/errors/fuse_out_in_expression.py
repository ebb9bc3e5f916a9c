"""out= in a call that is not a statement of its own."""
import numpy as np

import cujit


@cujit.fuse
def f(x, y):
    w = np.add(x, y, out=x)  # ERROR: out=
    return w


ARGS = {"f": (np.ones(8, np.float32), np.ones(8, np.float32))}
KIND = TypeError
