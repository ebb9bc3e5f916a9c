"""None held in a variable, used as a value (only ever None: no value to store)."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    v = None
    out[0] = v  # ERROR: none


ARGS = {"bad": (np.zeros(8, np.float32),)}
