"""A group method with the wrong number of arguments."""
import numpy as np

from cujit import jit
from cujit.jit import cg


@jit.rawkernel()
def bad(out):
    t = cg.tiled_partition(cg.this_thread_block(), 8)
    out[0] = t.shfl(out[0])  # ERROR: expects 2 arguments


ARGS = {"bad": (np.zeros(8, np.float32),)}
KIND = TypeError
