"""**kwargs in a call."""
import math

import numpy as np

from cujit import jit


OPTS = {"mask": 1}


@jit.rawkernel()
def bad(x):
    jit.syncwarp(**OPTS)  # ERROR: not supported


ARGS = {"bad": (np.zeros(8, np.float32),)}
