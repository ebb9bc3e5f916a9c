"""An argument written in place after it was rebound to a new value."""
import numpy as np

import cujit


@cujit.fuse
def f(x, y):
    x = x * 2  # ERROR: written in place and also rebound
    x += y


ARGS = {"f": (np.ones(8, np.float32), np.ones(8, np.float32))}
