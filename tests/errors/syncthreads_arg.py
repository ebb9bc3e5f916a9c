"""jit.syncthreads with an argument."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    jit.syncthreads(1)  # ERROR: expects 0 arguments


ARGS = {"bad": (np.zeros(8, np.float32),)}
