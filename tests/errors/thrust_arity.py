"""A jit.thrust algorithm with the wrong number of arguments."""
import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, y):
    y[0] = jit.thrust.count(jit.thrust.device, x.begin(), x.end())  # ERROR: takes 3 arguments


ARGS = {"bad": (np.zeros(8, np.float32), np.zeros(1, np.int64))}
KIND = TypeError
