"""*args in a call of a tuple whose length is not known at compile time (a local)."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel(device=True)
def add(a, b):
    return a + b


@jit.rawkernel()
def bad(x):
    t = (1.0, 2.0)
    x[0] = add(*t)  # ERROR: known when the kernel compiles


ARGS = {"bad": (np.zeros(8, np.float32),)}
