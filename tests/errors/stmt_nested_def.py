"""A function defined inside a kernel that reads the kernel's variable may be
called only by the kernel (the variable's value is passed at the call), not
by a device function it is handed to."""
import numpy as np

from cujit import jit


@jit.rawkernel(device=True)
def apply(f, v):
    return f(v)  # ERROR: reads the variable 'y' of the function that defines it


@jit.rawkernel()
def bad(x):
    y = x[1]

    def helper(v):
        return v + y
    x[0] = apply(helper, x[0])


ARGS = {"bad": (np.zeros(8, np.float32),)}
