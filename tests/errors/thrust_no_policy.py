"""A jit.thrust algorithm called without its execution policy."""
import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    jit.thrust.sort(x.begin(), x.end())  # ERROR: execution policy


ARGS = {"bad": (np.zeros(8, np.float32),)}
KIND = TypeError
