"""The error is inside the device function, at its line."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel(device=True)
def mix(a, b):
    return a & b  # ERROR: float32


@jit.rawkernel()
def bad(x, out):
    i = jit.grid(1)
    out[i] = mix(x[i], x[i])


ARGS = {"bad": (np.zeros(8, np.float32), np.zeros(8, np.float32))}
