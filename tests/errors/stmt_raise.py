"""raise of an exception whose argument is known only when the kernel runs
(a raise takes constants: the host builds the exception from them)."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    i = jit.grid(1)
    if x[i] < 0:
        raise ValueError(x[i])  # ERROR: must be constants


ARGS = {"bad": (np.zeros(8, np.float32),)}
