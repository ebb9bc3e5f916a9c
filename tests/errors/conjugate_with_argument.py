"""conjugate() takes no arguments."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(z):
    z[0] = z[0].conjugate(1)  # ERROR: no arguments


ARGS = {"bad": (np.zeros(4, np.complex64),)}
