"""Creation kernels: arange and linspace, computing as NumPy does (NumPy's
fill functions: start + i * delta in the result's type, float16 through
float32; linspace: i * step + start in the float type of its arguments).
CT, the type of the arithmetic, is a compile-time name: cujit/_stdlib/creation.py
makes one copy per type (`specialize`).  Loaded by path, not as a package."""
import types

import numpy as np

from cujit import jit

CT = np.float64                 # replaced in each specialised copy


def arange(out, start, second, delta):
    """out[0] = start, out[1] = second (NumPy stores both as given), then
    out[i] = start + i * delta."""
    i = jit.grid(1)
    while i < out.size:
        if i == 0:
            out[0] = start
        elif i == 1:
            out[1] = second
        else:
            out[i] = start + CT(i) * delta
        i += jit.gridsize(1)


def linspace(out, start, step, stop, div, delta, flags):
    """out[i] = i * step + start (flags & 2: i / div * delta + start, NumPy's
    way when step is 0); flags & 1: the last is stop; flags & 4: floored
    (integer results)."""
    n = out.size
    i = jit.grid(1)
    while i < n:
        if (flags & 2) != 0:
            v = CT(i) / div * delta + start
        else:
            v = CT(i) * step + start
        if (flags & 1) != 0 and i == n - 1:
            v = stop
        if (flags & 4) != 0:
            v = v - v % CT(1)
        out[i] = v
        i += jit.gridsize(1)


def specialize(func, **names):
    """A copy of func whose globals bind `names` (CT), made a raw kernel."""
    g = dict(func.__globals__)
    g.update(names)
    return jit.rawkernel()(types.FunctionType(func.__code__, g, func.__name__))
