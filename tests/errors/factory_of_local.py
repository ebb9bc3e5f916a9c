"""A device function made by a call that needs a runtime value."""
import numpy as np

from cujit import jit


def make(n):
    @jit.rawkernel(device=True)
    def f(x):
        return x + n
    return f


@jit.rawkernel()
def bad(x, k):
    x[0] = make(k)(x[0])  # ERROR: compile time


ARGS = {"bad": (np.zeros(8, np.float32), 3)}
KIND = TypeError
