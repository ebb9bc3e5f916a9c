"""cuda.fp16.hadd with one argument."""
import numpy as np

from cujit import cuda


@cuda.jit
def bad(x):
    x[0] = cuda.fp16.hadd(x[0])  # ERROR: expects 2 arguments


ARGS = {"bad": (np.zeros(4, np.float16),)}
KIND = TypeError
