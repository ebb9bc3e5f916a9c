"""Calling a NumPy function kernels do not have (np.sum and friends they have)."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    out[0] = np.argsort(x)  # ERROR: cannot call np.argsort


ARGS = {"bad": (np.zeros(8, np.float32), np.zeros(8, np.float32))}
