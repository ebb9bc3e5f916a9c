"""Calling a kernel (not a device function) from a kernel."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def other(x):
    x[0] = 1


@jit.rawkernel()
def bad(x):
    other(x)  # ERROR: device=True


ARGS = {"bad": (np.zeros(8, np.float32),)}
