"""cuda.libdevice.sin of a complex number."""
import numpy as np

from cujit import cuda


@cuda.jit
def bad(x):
    x[0] = cuda.libdevice.sin(x[1])  # ERROR: complex128


ARGS = {"bad": (np.zeros(4, np.complex128),)}
KIND = TypeError
