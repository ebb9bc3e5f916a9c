"""An atomic on 8-bit integers: CUDA has no 8-bit compare-and-swap."""
import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(acc):
    jit.atomic_add(acc, 0, 1)  # ERROR: int8


ARGS = {"bad": (np.zeros(8, np.int8),)}
KIND = TypeError
