"""jit.cg.tiled_partition with a size known only at run time."""
import numpy as np

from cujit import jit
from cujit.jit import cg


@jit.rawkernel()
def bad(out, n):
    t = cg.tiled_partition(cg.this_thread_block(), n)  # ERROR: constant
    out[0] = t.size()


ARGS = {"bad": (np.zeros(8, np.float32), 8)}
KIND = TypeError
