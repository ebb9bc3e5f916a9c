"""A kernel with *args."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(*arrays):  # ERROR: positional
    pass


ARGS = {"bad": (np.zeros(8, np.float32),)}
