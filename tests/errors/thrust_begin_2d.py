"""begin() of a 2-d array (jit.thrust iterators walk 1-d arrays)."""
import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    jit.thrust.sort(jit.thrust.device, x.begin(), x.end())  # ERROR: 1-d array


ARGS = {"bad": (np.zeros((4, 4), np.float32),)}
KIND = TypeError
