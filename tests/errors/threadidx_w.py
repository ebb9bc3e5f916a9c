"""jit.threadIdx.w."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    out[0] = jit.threadIdx.w  # ERROR: attribute


ARGS = {"bad": (np.zeros(8, np.float32),)}
