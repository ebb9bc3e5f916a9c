"""A number where a jit.thrust algorithm takes an iterator."""
import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    jit.thrust.fill(jit.thrust.device, x.begin(), 3, 1)  # ERROR: must be an iterator


ARGS = {"bad": (np.zeros(8, np.float32),)}
KIND = TypeError
