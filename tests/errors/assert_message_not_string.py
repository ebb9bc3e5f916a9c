"""An assert message that is not a string literal."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    i = jit.grid(1)
    assert x[i] > 0, x[i]  # ERROR: string literal


ARGS = {"bad": (np.zeros(8, np.float32),)}
