"""A factory whose products call the next product, with nothing to stop it."""
import numpy as np

from cujit import jit


def step(n):
    @jit.rawkernel(device=True)
    def f(x):
        x[0] += n
        step(n + 1)(x)  # ERROR: nested more than 64 deep
    return f


@jit.rawkernel()
def bad(x):
    step(1)(x)


ARGS = {"bad": (np.zeros(8, np.float32),)}
KIND = ValueError
