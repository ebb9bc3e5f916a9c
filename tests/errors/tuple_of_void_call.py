"""A tuple holding the result of a call that returns nothing (NVRTC rejected
the struct with a void field, at a line of the generated file). Found by the
fuzzer (seed 13, unit 73796)."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out):
    v = (1, jit.threadfence_block())  # ERROR: returns nothing
    out[0] = v[0]


ARGS = {"bad": (np.zeros(1, np.int64),)}
