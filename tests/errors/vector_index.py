"""Indexing a vector: Numba's vectors have named lanes only."""
import numpy as np

from cujit import cuda


@cuda.jit
def bad(out):
    v = cuda.int4(1, 2, 3, 4)
    out[0] = v[0]  # ERROR: indexing ([]) is not supported on CUDA vector types (int32x4)


ARGS = {"bad": (np.zeros(4, np.int32),)}
