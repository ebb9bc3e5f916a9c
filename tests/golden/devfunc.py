"""Golden: device functions (one called with two signatures), a tuple return,
Python floor division and modulo on ints, an assert with a message."""
import numpy as np
from cujit import jit


@jit.rawkernel(device=True)
def divmod_(a, b):
    return a // b, a % b


@jit.rawkernel(device=True)
def clamp(v, lo, hi):
    return min(max(v, lo), hi)


@jit.rawkernel()
def split(x, q, r, y):
    i = jit.grid(1)
    if i < x.size:
        assert x[i] != 0, "zero divisor"
        q[i], r[i] = divmod_(100, x[i])
        y[i] = clamp(x[i], -3, 3) + clamp(0.5 * x[i], -1.0, 1.0)


SIGS = {"split": (np.ones(8, np.int32), np.ones(8, np.int32), np.ones(8, np.int32),
                  np.ones(8, np.float64))}
