"""A Python int literal that does not fit the integer dtype it meets (NumPy 2
raises OverflowError; cujit printed it as a wider C constant, and NVRTC
rejected cj_ipow(int, long long)). Found by the fuzzer (seed 13, unit 35143)."""
import math

import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(out, i):
    out[0] = i ** (i & 4294967295)  # ERROR: int32


ARGS = {"bad": (np.zeros(1, np.float64), np.int32(3))}
