"""Collectives combine one number per thread, not arrays of items."""
import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    out[0] = jit.block_reduce(x)  # ERROR: arrays of items per thread are not supported


ARGS = {"bad": (np.zeros(32, np.float32), np.zeros(32, np.float32))}
KIND = TypeError
