"""Golden: the DESIGN.md saxpy; float32 stays float32, 32-bit indexing."""
import numpy as np
from cujit import jit


@jit.rawkernel()
def saxpy(a, x, y, out):
    i = jit.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


SIGS = {"saxpy": (np.float32(2), np.ones(8, np.float32), np.ones(8, np.float32),
                  np.ones(8, np.float32))}
