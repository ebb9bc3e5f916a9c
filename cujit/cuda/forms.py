"""Numba's forms: cuda.reduce (``Reduce``, over cujit's @reduce, with Numba's
init and res=), and cuda.vectorize / guvectorize (cujit._numba_forms')."""

import cujit
from cujit._numba_forms import guvectorize, vectorize   # noqa: F401  (target="cuda": Numba's rules)


# ---- cuda.reduce: Numba's reduction over cujit's @reduce ----

class Reduce:
    """``@cuda.reduce`` on a binary function: ``r(arr, size=None, res=None,
    init=0, stream=0)`` gives ``func`` folded over ``arr[:size]`` and then
    with init, as Numba does (so a max over negative numbers with the
    default init=0 is 0); res=: written to res[0] on the device instead."""

    def __init__(self, func):
        self._func = func
        self._red = cujit.reduce(func, identity=None)
        self.__name__ = getattr(func, "__name__", "reduce")
        self.__wrapped__ = func

    def __call__(self, arr, size=None, res=None, init=0, stream=0):
        import numpy as np
        if size is not None:
            arr = arr[:size]
        dt = np.dtype(arr.dtype)
        if arr.size == 0:
            value = dt.type(init)
        else:
            part = self._red(arr)
            part = part.copy_to_host() if hasattr(part, "copy_to_host") else np.asarray(part)
            value = dt.type(self._func(dt.type(part[()]), dt.type(init)))
        if res is not None:
            res[0:1] = np.array([value], dtype=res.dtype)
            return None
        return value


def reduce(func):
    return Reduce(func)
