"""A name cuda.libdevice does not have."""
import numpy as np

from cujit import cuda


@cuda.jit
def bad(x):
    x[0] = cuda.libdevice.no_such_function(x[1])  # ERROR: attribute


ARGS = {"bad": (np.zeros(4, np.float64),)}
