"""@vectorize, @guvectorize and @reduce: the decorators over
cujit._cujit.Vectorize / GUFunc / Reduce."""
from cujit._cujit import GUFunc, Reduce, Vectorize


def _nt():
    """cujit/_ntypes.py (Numba's type objects), imported at the first
    decorator that takes signatures: it loads NumPy, which `import cujit`
    does not"""
    from cujit import _ntypes
    return _ntypes


def _dt():
    from cujit import _dtforms
    return _dtforms


def _is_sig_object(s):
    """a signature object (not a string, list or function), without
    importing _ntypes for the common spellings"""
    return not isinstance(s, (str, list, tuple, type(None))) and not callable(s) \
        and _nt().is_signature(s)


def _sig_strings(sigs):
    """Signatures as cujit's strings: a string, a signature object
    (float32(float32, float32), cujit.cuda's or numba's) or a tuple of
    argument types, alone or in a list"""
    if sigs is None:
        return None
    if isinstance(sigs, str) or _is_sig_object(sigs):
        sigs = [sigs]
    if all(isinstance(s, str) for s in sigs):
        return list(sigs)
    return [_nt().signature_string(s) for s in sigs]


# Numba's @vectorize options taken for source compatibility (cujit's
# compilation does not change with them)
_NUMBA_OPTIONS = ("identity", "nopython", "cache", "fastmath")
# and @guvectorize's (writable_args: cujit's outputs are the written ones)
_GU_NUMBA_OPTIONS = ("identity", "cache", "fastmath", "writable_args", "is_dynamic")


class UnrecognizedOptions(TypeError, KeyError):
    """An option vectorize does not know: Python's TypeError for an
    unexpected keyword, and the KeyError Numba raises"""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


def vectorize(func=None, signatures=None, target=None, **options):
    """Elementwise function with NumPy broadcasting.

    ``@vectorize`` types lazily per tuple of input dtypes (like cupy.vectorize);
    ``@vectorize(['float32(float32, float32)', ...])`` compiles for Numba-style
    signatures, casting inputs to the first that takes them safely.
    ``target="cuda"`` (Numba's spelling) is the one target; given, the
    function follows Numba's rules for results (a NumPy array for host
    inputs: cujit/_numba_forms.py), else cujit's (a DeviceArray).
    Call as ``f(*inputs, out=None, stream=None)``.
    """
    if target not in (None, "cuda", "gpu"):
        raise ValueError(f"vectorize(target={target!r}): cujit compiles for CUDA only "
                         "(target='cuda')")
    unknown = [k for k in options if k not in _NUMBA_OPTIONS]
    if unknown:
        raise UnrecognizedOptions(f"vectorize() got an unexpected keyword argument "
                                  f"'{unknown[0]}' (Unrecognized options: {unknown})")
    if isinstance(func, (list, tuple, str)) or _is_sig_object(func):
        func, signatures = None, func
    signatures = _sig_strings(signatures)
    make = Vectorize
    if target is not None:
        from cujit import _numba_forms
        _numba_forms.nopython_warning(options)
        make = lambda f, s: _numba_forms.NumbaUFunc(Vectorize(f, s, numba=True), s)  # noqa: E731
    if signatures and _dt().has_datetime(signatures):
        made = _dt().vectorize_maker(make, signatures)    # over int64, results viewed
    else:
        made = lambda f: make(f, signatures)      # noqa: E731
    return made if func is None else made(func)


def _gu_sig_strings(sigs):
    """guvectorize's signatures as strings "void(...)": a string, a signature
    object, or a tuple of the argument types (Numba's form without a return
    type); one that returns a value is a TypeError, as in Numba"""
    if isinstance(sigs, str) or _is_sig_object(sigs):
        sigs = [sigs]
    _ntypes = _nt()
    out = []
    for i, sig in enumerate(sigs):
        ret = _ntypes.return_type_of(sig)
        if ret not in (None, "void", "none"):
            raise TypeError(f"guvectorize signature {i + 1}: guvectorized functions cannot "
                            f"return values: {_ntypes.signature_string(sig)} specifies {ret} "
                            "return type; "
                            "write the results into the output arguments (void(...))")
        text = _ntypes.signature_string(sig)
        out.append("void" + text if text.lstrip().startswith("(") else text)
    return out


def reduce(func=None, identity=None):
    """Reduction by a binary combiner: ``@reduce(identity=0)``.

    Call as ``r(x, axis=None, keepdims=False, out=None, dtype=None, map=None)``.
    """
    if func is None:
        return lambda f: Reduce(f, identity)
    return Reduce(func, identity)


def guvectorize(*args, target=None, **kwargs):
    """Generalized ufunc: a function over core dimensions that writes its outputs.

    ``@guvectorize(["void(float32[:], float32[:], float32[:])"], "(n),(n)->()")``
    (Numba's form: eager signatures, then the layout) or ``@guvectorize("(n),(n)->()")``
    (typed lazily per call; outputs take NumPy's result dtype of the inputs unless
    out= gives them).  The outputs are the trailing parameters, written in place;
    a "()" output is a 1-element array (``out[0] = v``), a "()" input a number.
    Call as ``f(*inputs, out=None, stream=None)`` or ``f(*inputs, *outputs)``.
    ``target="cuda"`` (Numba's spelling) gives Numba's rules for results,
    arguments and casts (cujit/_numba_forms.py).
    """
    if target not in (None, "cuda"):
        raise ValueError("cujit.guvectorize compiles for target='cuda' only, not %r" % (target,))
    sigs = kwargs.pop("signatures", None)
    layout = kwargs.pop("signature", None) or kwargs.pop("layout", None)
    if kwargs.pop("nopython", True) is not True:
        raise TypeError("nopython flag must be True")
    for k in _GU_NUMBA_OPTIONS:
        kwargs.pop(k, None)
    if kwargs:
        raise TypeError("The following target options are not supported: "
                        + ", ".join(repr(k) for k in kwargs))
    args = list(args)
    if args and isinstance(args[0], (list, tuple)):
        sigs = args.pop(0)
    elif len(args) >= 2 and (isinstance(args[0], str) or _is_sig_object(args[0])) \
            and isinstance(args[1], str):
        sigs = [args.pop(0)]
    if args and isinstance(args[0], str):
        layout = args.pop(0)
    if args or layout is None:
        raise TypeError("use @guvectorize([signatures,] '(n),(n)->()')")
    if sigs is not None:
        sigs = _gu_sig_strings(sigs)
    make = lambda f, s: GUFunc(f, layout, s)      # noqa: E731
    if target is not None:
        from cujit import _numba_forms
        make = lambda f, s: _numba_forms.NumbaGUFunc(GUFunc(f, layout, s, numba=True),  # noqa: E731
                                                     s)
    if sigs and _dt().has_datetime(sigs):         # over int64, outputs viewed
        ps = _dt().plans(sigs)
        nout = _dt().gufunc_nout(layout)
        return lambda f: _dt().DatetimeForm(make(f, [p.text for p in ps]), ps, nout)
    return lambda f: make(f, sigs)
