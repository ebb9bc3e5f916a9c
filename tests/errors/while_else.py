"""while ... else."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    k = 0
    while k < 4:  # ERROR: not supported
        k += 1
    else:
        x[0] = k


ARGS = {"bad": (np.zeros(8, np.float32),)}
