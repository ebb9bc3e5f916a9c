"""@vectorize, @guvectorize and @reduce: the decorators over
cujit._cujit.Vectorize / GUFunc / Reduce."""
from cujit._cujit import GUFunc, Reduce, Vectorize


# Numba's @vectorize options taken for source compatibility (cujit's
# compilation does not change with them)
_NUMBA_OPTIONS = ("identity", "nopython", "cache", "fastmath")


def vectorize(func=None, signatures=None, target=None, **options):
    """Elementwise function with NumPy broadcasting.

    ``@vectorize`` types lazily per tuple of input dtypes (like cupy.vectorize);
    ``@vectorize(['float32(float32, float32)', ...])`` compiles for Numba-style
    signatures, casting inputs to the first that takes them safely.
    ``target="cuda"`` (Numba's spelling) is the one target.
    Call as ``f(*inputs, out=None, stream=None)``.
    """
    if target not in (None, "cuda", "gpu"):
        raise ValueError(f"vectorize(target={target!r}): cujit compiles for CUDA only "
                         "(target='cuda')")
    for k in options:
        if k not in _NUMBA_OPTIONS:
            raise TypeError(f"vectorize() got an unexpected keyword argument '{k}'")
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


def guvectorize(*args, target="cuda", **kwargs):
    """Generalized ufunc: a function over core dimensions that writes its outputs.

    ``@guvectorize(["void(float32[:], float32[:], float32[:])"], "(n),(n)->()")``
    (Numba's form: eager signatures, then the layout) or ``@guvectorize("(n),(n)->()")``
    (typed lazily per call; outputs take NumPy's result dtype of the inputs unless
    out= gives them).  The outputs are the trailing parameters, written in place;
    a "()" output is a 1-element array (``out[0] = v``), a "()" input a number.
    Call as ``f(*inputs, out=None, stream=None)`` or ``f(*inputs, *outputs)``.
    """
    if target != "cuda":
        raise ValueError("cujit.guvectorize compiles for target='cuda' only, not %r" % (target,))
    sigs = kwargs.pop("signatures", None)
    layout = kwargs.pop("signature", None) or kwargs.pop("layout", None)
    if kwargs:
        raise TypeError("guvectorize() got unexpected keyword arguments %s" % sorted(kwargs))
    args = list(args)
    if args and isinstance(args[0], (list, tuple)):
        sigs = args.pop(0)
    elif len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
        sigs = [args.pop(0)]
    if args and isinstance(args[0], str):
        layout = args.pop(0)
    if args or layout is None:
        raise TypeError("use @guvectorize([signatures,] '(n),(n)->()')")
    return lambda f: GUFunc(f, layout, sigs)
