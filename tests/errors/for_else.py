"""for ... else."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    for k in range(4):  # ERROR: not supported
        x[k] = k
    else:
        x[0] = -1


ARGS = {"bad": (np.zeros(8, np.float32),)}
