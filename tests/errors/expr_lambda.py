"""A lambda inside an expression (one assigned to a name is a function defined
in the kernel, lang_features.inner_captures)."""
import numpy as np

from cujit import jit


@jit.rawkernel()
def bad(x):
    x[0] = (lambda v: v + 1)(x[1])  # ERROR: not supported


ARGS = {"bad": (np.zeros(8, np.float32),)}
