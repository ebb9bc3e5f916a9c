"""An f-string."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    i = jit.grid(1)
    print(f"value {x[i]}")  # ERROR: not supported


ARGS = {"bad": (np.zeros(8, np.float32),)}
