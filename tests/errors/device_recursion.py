"""Device functions that call each other in a cycle (a function calling
itself directly is supported)."""
import numpy as np

from cujit import jit


@jit.rawkernel(device=True)
def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


@jit.rawkernel(device=True)
def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)  # ERROR: calls itself through


@jit.rawkernel()
def bad(out, n):
    out[0] = is_even(n)


ARGS = {"bad": (np.zeros(1, np.int64), 5)}
KIND = ValueError
