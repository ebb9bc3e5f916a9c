"""A number unpacked into two names."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    i = jit.grid(1)
    a, b = x[i]  # ERROR: unpack
    x[i] = a + b


ARGS = {"bad": (np.zeros(8, np.float32),)}
KIND = TypeError
