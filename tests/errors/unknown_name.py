"""A name that is nowhere."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    i = jit.grid(1)
    out[i] = undefined_value  # ERROR: unknown name


ARGS = {"bad": (np.zeros(8, np.float32),)}
