"""a bare raise (re-raising): there is no exception being handled in a kernel."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    i = jit.grid(1)
    if x[i] < 0:
        raise  # ERROR: bare raise


ARGS = {"bad": (np.zeros(8, np.float32),)}
