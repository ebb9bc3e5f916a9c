"""A keyword syncwarp does not have."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    jit.syncwarp(maks=0xffffffff)  # ERROR: maks


ARGS = {"bad": (np.zeros(8, np.float32),)}
