"""@vectorize and @reduce: the decorators over cujit._cujit.Vectorize / Reduce."""
from cujit._cujit import Reduce, Vectorize


def vectorize(func=None, signatures=None):
    """Elementwise function with NumPy broadcasting.

    ``@vectorize`` types lazily per tuple of input dtypes (like cupy.vectorize);
    ``@vectorize(['float32(float32, float32)', ...])`` compiles for Numba-style
    signatures, casting inputs to the first that takes them safely.
    Call as ``f(*inputs, out=None, stream=None)``.
    """
    if isinstance(func, (list, tuple, str)):
        func, signatures = None, func
    if isinstance(signatures, str):
        signatures = [signatures]
    if func is None:
        return lambda f: Vectorize(f, signatures)
    return Vectorize(func, signatures)


def reduce(func=None, identity=None):
    """Reduction by a binary combiner: ``@reduce(identity=0)``.

    Call as ``r(x, axis=None, keepdims=False, out=None, dtype=None, map=None)``.
    """
    if func is None:
        return lambda f: Reduce(f, identity)
    return Reduce(func, identity)
