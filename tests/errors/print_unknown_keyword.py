"""print(..., file=...)."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    print(out[0], file=None)  # ERROR: keyword


ARGS = {"bad": (np.zeros(8, np.float32),)}
