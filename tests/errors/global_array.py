"""A global NumPy array is a constant table in the kernel (as Numba freezes
it), and constant memory holds 64 KiB."""
import math

import numpy as np

from cujit import jit


LOOKUP = np.arange(20000.0)


@jit.rawkernel()
def bad(x):
    i = jit.grid(1)
    x[i] = LOOKUP[i]  # ERROR: 64 KiB


ARGS = {"bad": (np.zeros(8, np.float32),)}
