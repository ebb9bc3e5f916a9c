"""operator.add with one argument."""
import operator

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    x[0] = operator.add(x[1])  # ERROR: takes 2 arguments


ARGS = {"bad": (np.zeros(4, np.float64),)}
KIND = TypeError
