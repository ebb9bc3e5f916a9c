"""A function defined inside a kernel that reads the kernel's local variable
(it may read globals and what the kernel knows at compile time)."""
import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    y = x[1]

    def helper(v):
        return v + y  # ERROR: unknown name 'y'
    x[0] = helper(x[0])


ARGS = {"bad": (np.zeros(8, np.float32),)}
