"""An operator function kept in a variable."""
import operator

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    f = operator.add  # ERROR: operator.add is a function
    x[0] = f(x[1], x[2])


ARGS = {"bad": (np.zeros(4, np.float64),)}
