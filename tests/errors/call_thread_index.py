"""Calling jit.threadIdx.x, which is a number."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    out[0] = jit.threadIdx.x()  # ERROR: call


ARGS = {"bad": (np.zeros(8, np.float32),)}
