"""A function passed through *args (only values are)."""
import numpy as np

from cujit import jit


@jit.rawkernel(device=True)
def first(*args):
    return args[0]


@jit.rawkernel()
def bad(x):
    x[0] = first(abs, x[1])  # ERROR: through *args
ARGS = {"bad": (np.zeros(8, np.float32),)}
