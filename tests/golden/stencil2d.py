"""Golden: 2-d grid, a strided input, an F-ordered output, weak literals."""
import numpy as np
from cujit import jit


@jit.rawkernel()
def stencil(src, dst):
    i, j = jit.grid(2)
    n, m = src.shape
    if 0 < i < n - 1 and 0 < j < m - 1:
        dst[i, j] = 0.25 * (src[i - 1, j] + src[i + 1, j] + src[i, j - 1] + src[i, j + 1])


_a = np.ones((8, 12), np.float64)
SIGS = {"stencil": (_a[:, ::2], np.asfortranarray(np.ones((8, 6), np.float32)))}
