"""A tile's method (shfl_down) called on a thread block."""
import numpy as np

from cujit import jit
from cujit.jit import cg


@jit.rawkernel()
def bad(out):
    g = cg.this_thread_block()
    out[0] = g.shfl_down(out[0], 1)  # ERROR: thread_block has no method shfl_down


ARGS = {"bad": (np.zeros(8, np.float32),)}
KIND = TypeError
