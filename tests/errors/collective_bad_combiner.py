"""A combiner that is neither 'sum' / 'max' / 'min' nor a function."""
import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x, out):
    i = jit.threadIdx.x
    out[i] = jit.block_reduce(x[i], "mul")  # ERROR: unknown combiner 'mul'


ARGS = {"bad": (np.zeros(32, np.float32), np.zeros(32, np.float32))}
KIND = ValueError
