"""numba.cuda.kernels: host functions that launch kernels of cujit.cuda's
own (transpose).  The kernels read cuda's names (``grid``) as this module's
globals."""

import cujit
from cujit.cuda.dispatcher import jit
from cujit.cuda.kernelnames import grid  # noqa: F401  (read by _transpose_bytes)
from cujit.cuda.memory import device_array, to_device


def transpose(a, b=None):
    """numba.cuda.kernels.transpose.transpose: the transpose of the 2-d
    array a written into b (a new C-order device array when not given),
    which is returned; any dtype, records included."""
    import numpy as np
    if not isinstance(a, cujit.DeviceArray):
        a = to_device(a)
    if a.ndim != 2:
        raise ValueError("transpose() takes a 2-d array, got %d dimensions" % a.ndim)
    if b is None:
        b = device_array((a.shape[1], a.shape[0]), a.dtype)
    elif tuple(b.shape) != (a.shape[1], a.shape[0]):
        raise ValueError("transpose(): b has shape %s, the transpose of a has %s"
                         % (tuple(b.shape), (a.shape[1], a.shape[0])))
    if a.dtype.names is None or tuple(b.strides) == tuple(a.strides[::-1]):
        b[...] = a.T        # numbers and bool, or one layout: the stdlib's copy
        return b
    # records: their bytes, element by element (a 28-byte record is no number)
    s = a.dtype.itemsize
    ab = a._view(a.shape + (s,), a.strides + (1,), 0, np.uint8)
    bb = b._view(b.shape + (s,), b.strides + (1,), 0, np.uint8)
    _transpose_bytes[((a.shape[1] + 15) // 16, (a.shape[0] + 15) // 16), (16, 16)](ab, bb)
    return b


@jit
def _transpose_bytes(a, b):
    """b[j, i, :] = a[i, j, :] for arrays of bytes (records' elements)"""
    j, i = grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        for k in range(a.shape[2]):
            b[j, i, k] = a[i, j, k]
