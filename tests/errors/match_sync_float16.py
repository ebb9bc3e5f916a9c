"""match_any_sync of a float16 (CUDA matches 32- and 64-bit values)."""
import numpy as np

from cujit import cuda


@cuda.jit
def bad(x, out):
    out[0] = cuda.match_any_sync(0xffffffff, x[0])  # ERROR: float16


ARGS = {"bad": (np.zeros(8, np.float16), np.zeros(8, np.uint32))}
KIND = TypeError
