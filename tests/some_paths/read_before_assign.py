"""Read on the line before the assignment: no path assigns it there (Numba
compiles it, warning "Detected uninitialized variable y"); it reads zero."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    out[0] = y  # MAYBE
    y = 2.0


ARGS = {"bad": (np.zeros(8, np.float32),)}
