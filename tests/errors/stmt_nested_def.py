"""A function defined inside a kernel that reads the kernel's variable may be
called only by the kernel (the variable's value is passed at the call): handed
to a device function it escapes, which Numba refuses in these words too."""
import numpy as np

from cujit import jit


@jit.rawkernel(device=True)
def apply(f, v):
    return f(v)


@jit.rawkernel()
def bad(x):
    y = x[1]

    def helper(v):
        return v + y
    x[0] = apply(helper, x[0])  # ERROR: Cannot capture the non-constant value associated with variable 'y'


ARGS = {"bad": (np.zeros(8, np.float32),)}
