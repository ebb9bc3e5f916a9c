"""An async function as a kernel."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
async def bad(x):  # ERROR: not supported
    x[0] = 1


ARGS = {"bad": (np.zeros(8, np.float32),)}
