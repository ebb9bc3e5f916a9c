"""jit.cg.tiled_partition with a size that is not a power of 2."""
import numpy as np

from cujit import jit
from cujit.jit import cg


@jit.rawkernel()
def bad(out):
    t = cg.tiled_partition(cg.this_thread_block(), 6)  # ERROR: power of 2
    out[0] = t.size()


ARGS = {"bad": (np.zeros(8, np.float32),)}
KIND = ValueError
