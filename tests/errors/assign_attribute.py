"""Assignment to an attribute."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    x.shape = (4,)  # ERROR: attribute


ARGS = {"bad": (np.zeros(8, np.float32),)}
