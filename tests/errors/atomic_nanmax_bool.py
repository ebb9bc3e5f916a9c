"""cuda.atomic.nanmax on a bool array."""
import numpy as np

from cujit import cuda


@cuda.jit
def bad(r, x):
    cuda.atomic.nanmax(r, 0, x[0])  # ERROR: bool


ARGS = {"bad": (np.zeros(2, np.bool_), np.zeros(8, np.bool_))}
