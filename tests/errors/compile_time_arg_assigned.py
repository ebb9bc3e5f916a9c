"""A function passed to a device function that assigns to its parameter."""
import numpy as np

from cujit import jit


@jit.rawkernel(device=True)
def apply(f, x):
    f = 2
    return x * f


@jit.rawkernel()
def bad(x):
    x[0] = apply(abs, x[1])  # ERROR: assigns to its parameter 'f'


ARGS = {"bad": (np.zeros(8, np.float32),)}
