"""Numba's host-side rules for CUDA ufuncs and gufuncs, over cujit's forms:
what ``cujit.cuda.vectorize`` / ``guvectorize`` and ``cujit.vectorize`` /
``guvectorize`` with ``target='cuda'`` (Numba's spelling) return.

cujit's own ``@vectorize`` / ``@guvectorize`` (no target) give a DeviceArray
for any inputs, as CuPy does.  Numba's give a NumPy array when no operand is
on the device (the result is copied back), and a device array otherwise; they
read tuples and lists as arrays, and a gufunc follows Numba's schedule and
messages.  The wrappers here apply those rules around the cujit form, which
does the work (ARCHITECTURE.md, "Numba's ufunc results")."""
import warnings


def _np():
    import numpy
    return numpy


def _on_device(a):
    """Numba's is_device_array: anything with the CUDA array interface"""
    return hasattr(a, "__cuda_array_interface__")


def _sync_producers(arrays):
    """Numba's consumer rule for the operands of its ufuncs and gufuncs (its
    as_device_array, inputs and outputs): a foreign device array whose
    __cuda_array_interface__ names a stream has that stream synchronized
    first, unless CUDA_ARRAY_INTERFACE_SYNC is off (cujit.cuda.interop._launch_sync,
    which cuda.jit launches call too); cujit's own arrays are not"""
    import cujit
    for a in arrays:
        if not isinstance(a, cujit.DeviceArray) and _on_device(a):
            h = a.__cuda_array_interface__.get("stream")
            if isinstance(h, int):
                from cujit.cuda.interop import _launch_sync
                _launch_sync(h)


def _as_operand(a):
    """a tuple or list is read as the NumPy array it spells (Numba's
    np.asarray of host arguments)"""
    if isinstance(a, (tuple, list)):
        return _np().asarray(a)
    return a


_SCALARS = (int, float, complex)


def _to_host(r):
    """the form's result copied back: a device array becomes a NumPy array,
    each of a tuple of outputs"""
    if isinstance(r, tuple):
        return tuple(_to_host(x) for x in r)
    if hasattr(r, "copy_to_host"):
        return r.copy_to_host()
    return r


def _numba_result(r):
    """a new device result (or each of a tuple) takes Numba's host rules
    (an element read gives a NumPy scalar, np.asarray copies)"""
    if isinstance(r, tuple):
        return tuple(_numba_result(x) for x in r)
    return r._numba_rules() if hasattr(r, "_numba_rules") else r


def _device_view(o):
    """an output given as another library's device array is returned as a
    cujit.DeviceArray over it (Numba returns its own device array over it);
    host arrays and cujit's as they are"""
    import cujit
    if isinstance(o, cujit.DeviceArray) or not _on_device(o):
        return o
    return cujit._cujit._as_device_array(o)


class _NumbaForm:
    """What the two wrappers share: the cujit form's attributes, repr and
    docstring."""

    __slots__ = ("_form", "_sigs")

    def __init__(self, form, sigs=None):
        self._form = form
        self._sigs = sigs

    def __getattr__(self, name):
        return getattr(self._form, name)

    def __setattr__(self, name, value):
        if name in ("_form", "_sigs", "_red"):
            object.__setattr__(self, name, value)
        else:
            setattr(self._form, name, value)     # gufunc.stage = 'off'

    @property
    def __doc__(self):
        return getattr(self._form.py_func, "__doc__", None)

    @property
    def __wrapped__(self):
        return self._form.py_func

    @property
    def form(self):
        """the cujit form called (cujit.Vectorize or cujit.GUFunc), which
        returns device arrays for any inputs"""
        return self._form

    def __repr__(self):
        return "<Numba-style %r>" % (self._form,)

    def __reduce__(self):
        """its Python function (by value where pickle cannot find it by
        name) and signatures: made again on the other side (cujit/_pickle.py)"""
        from cujit import _pickle
        f = self._form.py_func
        layout = None if isinstance(self, NumbaUFunc) else self._form.signature
        return (_pickle.rebuild_ufunc, (_pickle.function_arg(f), self._sigs,
                                        "u" if isinstance(self, NumbaUFunc) else "g", layout))

    @property
    def __cujit_unsupported__(self):
        """what a kernel calling it is told (the frontend's unsupported_call)"""
        what = "ufunc (@cuda.vectorize)" if isinstance(self, NumbaUFunc) \
            else "gufunc (@cuda.guvectorize)"
        return (f"Untyped global name '{self._form.__name__}': it is a {what}, called from "
                "the host on whole arrays, and cannot be called in a kernel; make its "
                "function a @cuda.jit(device=True) function and call that")


class NumbaUFunc(_NumbaForm):
    """``@cuda.vectorize``: a cujit.Vectorize called as Numba's CUDA ufuncs
    are.  ``f(*inputs, out=None, stream=0)``: with no input on the device and
    no out=, the result is copied back and returned as a NumPy array; else a
    device array (or out=, filled)."""

    __slots__ = ("_red",)

    def __call__(self, *args, **kwargs):
        args = [_as_operand(a) for a in args]
        if self._sigs and any(isinstance(a, _SCALARS) for a in args):
            args = self._typed_scalars(args)
        out = kwargs.get("out")
        _sync_producers(args + ([] if out is None else list(out) if isinstance(out, tuple)
                                else [out]))
        r = self._form(*args, **kwargs)
        if out is None and not any(_on_device(a) for a in args):
            return _to_host(r)
        return _device_view(out) if out is not None else _numba_result(r)

    def _typed_scalars(self, args):
        """Numba's first choice for scalar operands: the signature whose types
        are exactly the scalars' NumPy types (a Python float is float64) and
        the arrays' dtypes; where one matches, the scalars are given as those
        NumPy scalars, else cujit's rule picks (the first signature that
        takes them safely, Python numbers being weak)"""
        np = _np()
        have = [np.asarray(a).dtype if isinstance(a, _SCALARS) else getattr(a, "dtype", None)
                for a in args]
        for sig in self._sigs:
            want = _sig_dtypes(sig)
            if want is not None and len(want) == len(have) and want == have:
                return [np.asarray(a)[()] if isinstance(a, _SCALARS) else a for a in args]
        return args

    def reduce(self, arg, stream=0):
        """Numba's ``ufunc.reduce``: a binary ufunc folded over a 1-d array,
        on the device; a NumPy scalar of the array's dtype"""
        np = _np()
        nin = self._form.py_func.__code__.co_argcount
        if nin != 2:
            raise TypeError(f"{self.__name__}.reduce: only a ufunc of 2 inputs reduces "
                            f"(it takes {nin})")
        x = arg if _on_device(arg) else np.asarray(_as_operand(arg))
        if len(x.shape) != 1:
            raise TypeError(f"{self.__name__}.reduce: only 1-d arrays reduce "
                            f"(got {len(x.shape)} dimensions)")
        if x.shape[0] == 0:
            raise TypeError(f"{self.__name__}.reduce: reduction of an empty array has no "
                            "identity")
        if getattr(self, "_red", None) is None:
            from cujit._forms import Reduce
            self._red = Reduce(self._form.py_func, None)
        r = self._red(x, stream=stream)
        host = _to_host(r)
        return np.asarray(host).astype(x.dtype)[()]


def _sig_dtypes(sig):
    """the argument dtypes of a signature string ("void(int32, int32[:])"),
    None where one is not a plain NumPy dtype name"""
    np = _np()
    inner = sig[sig.index("(") + 1:sig.rindex(")")]
    parts, depth, cur = [], 0, ""
    for ch in inner:
        depth += (ch == "[") - (ch == "]")
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    out = []
    for p in parts:
        name = p.split("[")[0].strip()
        name = {"boolean": "bool", "b1": "bool"}.get(name, name)
        try:
            out.append(np.dtype(name))
        except TypeError:
            return None
    return out


def _arg_count(n):
    return f"{n} positional argument{'s' * (n != 1)}"


class NumbaGUFunc(_NumbaForm):
    """``@cuda.guvectorize``: a cujit.GUFunc called as Numba's CUDA gufuncs
    are.  ``f(*inputs, out=None, stream=0)`` or ``f(*inputs, *outputs)``:
    with no operand on the device the outputs are copied back (into the host
    arrays given, else new NumPy arrays); Numba's schedule (an input whose
    loop dimensions are (1,) is pinned when the loop has none) and casts (a
    host input is cast to the first signature whose types cast to the
    inputs', as Numba picks it)."""

    __slots__ = ()

    def __call__(self, *args, out=None, stream=None):
        f = self._form
        nin, nout = f.nin, f.nout
        if out is None and len(args) not in (nin, nin + nout):
            raise TypeError(
                f"{f.__name__}() takes {nin} inputs (and optionally its {nout} output"
                f"{'s' * (nout != 1)}), got {len(args)}: this gufunc accepts "
                f"{_arg_count(nin)} (when providing input only) or {_arg_count(nin + nout)} "
                f"(when providing input and output). Got {_arg_count(len(args))}.")
        if out is not None and len(args) > nin:
            raise ValueError("cannot specify argument 'out' as both positional and keyword")
        outs = list(args[nin:]) if len(args) > nin else \
            list(out) if isinstance(out, tuple) else [out] * (out is not None)
        inputs = self._pinned([_as_operand(a) for a in args[:nin]])
        copy_back = not any(_on_device(a) for a in inputs) \
            and not any(_on_device(o) for o in outs)
        _sync_producers(inputs + outs)
        try:
            r = self._run(inputs, outs, stream)
        except TypeError as e:
            cast = self._numba_cast(inputs, e)
            if cast is None:
                raise
            r = self._run(cast, outs, stream)
        from cujit import _warnings
        _warnings.gufunc_occupancy(f, inputs)
        if outs:
            outs = [_device_view(o) for o in outs]
            return outs[0] if len(outs) == 1 else tuple(outs)
        return _to_host(r) if copy_back else _numba_result(r)

    def _run(self, inputs, outs, stream):
        if not outs:
            return self._form(*inputs, stream=stream)
        return self._form(*inputs, out=outs[0] if len(outs) == 1 else tuple(outs),
                          stream=stream)

    def _pinned(self, inputs):
        """Numba's schedule: the loop dimensions are the largest input's; an
        input whose loop dimensions are (1,) where those are () is read
        without its leading 1 (NumPy would make the loop (1,), and refuse an
        output without it)"""
        cores = self._form.core_dims[0]
        outer = []
        for a, core in zip(inputs, cores):
            shape = tuple(getattr(a, "shape", ()))
            outer.append(shape[:len(shape) - len(core)] if len(shape) >= len(core) else None)
        if any(o is None for o in outer) or not outer:
            return inputs
        sizes = [_prod(o) for o in outer]
        loop = outer[sizes.index(max(sizes))]
        if loop != ():
            return inputs
        return [a.reshape(a.shape[1:]) if o == (1,) else a for a, o in zip(inputs, outer)]

    def _numba_cast(self, inputs, err):
        """Numba's signature search when no signature takes the inputs as they
        are: the first whose types cast safely *to* the inputs' types, the
        host inputs cast to it (Numba's order, which may narrow: an int64
        given to an int32 signature); a device input is not cast.  None where
        no signature fits or the error was not about signatures."""
        if not self._sigs or "no signature" not in str(err):
            return None
        np = _np()
        have = [a.dtype if hasattr(a, "dtype") else np.asarray(a).dtype for a in inputs]
        for sig in self._sigs:
            want = _sig_dtypes(sig)
            if want is None or len(want) < len(have):
                continue
            want = want[:len(have)]
            if not all(np.can_cast(w, h) for w, h in zip(want, have)):
                continue
            out = []
            for i, (a, w, h) in enumerate(zip(inputs, want, have)):
                if w == h:
                    out.append(a)
                elif _on_device(a):
                    raise TypeError(
                        f"{self._form.__name__}(): input {i + 1} is a device array of {h} "
                        f"and the signature {sig} takes {w}: compatible signature is "
                        f"possible by casting but {type(a).__name__} does not support "
                        ".astype() here (a device input is not cast implicitly); cast it "
                        "with .astype() first") from err
                else:
                    out.append(np.asarray(a).astype(w))
            return out
        return None


def _prod(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def nopython_warning(options):
    """Numba warns that nopython= is redundant for the CUDA target"""
    if "nopython" in options:
        warnings.warn("nopython kwarg for cuda target is redundant", RuntimeWarning,
                      stacklevel=3)


def vectorize(*args, target="cuda", **kwargs):
    """numba.cuda.vectorize: cujit.vectorize with Numba's rule for results
    (NumbaUFunc)"""
    from cujit._forms import vectorize as _vectorize
    return _vectorize(*args, target=target, **kwargs)


def guvectorize(*args, target="cuda", **kwargs):
    """numba.cuda.guvectorize: cujit.guvectorize with Numba's rules
    (NumbaGUFunc)"""
    from cujit._forms import guvectorize as _guvectorize
    return _guvectorize(*args, target=target, **kwargs)
