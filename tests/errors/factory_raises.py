"""A call run at compile time that raises: its error, at its line."""
import numpy as np

from cujit import jit


def make(n):
    if n < 0:
        raise ValueError("n must not be negative")
    return jit.rawkernel(device=True)(lambda v: v + n)


@jit.rawkernel()
def bad(x):
    x[0] = make(-1)(x[0])  # ERROR: n must not be negative


ARGS = {"bad": (np.zeros(8, np.float32),)}
