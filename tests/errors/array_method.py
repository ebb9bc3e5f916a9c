"""An array method kernels do not have (a.sum() and friends they have)."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    out[0] = x.argsort()  # ERROR: not supported


ARGS = {"bad": (np.zeros(8, np.float32), np.zeros(8, np.float32))}
