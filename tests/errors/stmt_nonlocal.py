"""A nonlocal statement in a kernel built by a factory."""
import math

import numpy as np

from cujit import jit


def make():
    total = 0

    @jit.rawkernel()
    def bad(x):
        nonlocal total  # ERROR: not supported
        x[0] = 1
    return bad


bad = make()


ARGS = {"bad": (np.zeros(8, np.float32),)}
