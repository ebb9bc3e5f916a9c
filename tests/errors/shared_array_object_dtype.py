"""A shared array of NumPy's object dtype, which has no type in kernels."""
import math

import numpy as np

from cujit import jit

OBJ = np.dtype("O")


@jit.rawkernel()
def bad(x):
    arr = jit.shared_memory(OBJ, 10)  # ERROR: dtype('O')
    x[0] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
KIND = TypeError
