"""datetime64 / timedelta64 in vectorize and guvectorize signatures
(``vectorize([(datetime_t, datetime_t)])``, ``"void(datetime64[D],
datetime64[D], timedelta64[D][:])"``).

On the device these are int64 counts (the runtime reads NumPy's datetime
arrays and scalars as their int64 views: ARCHITECTURE.md), so a form is
compiled for the signature with int64 in their place, and its results are
viewed back as the datetime dtypes NumPy's rules give:
- a guvectorize output, or a vectorize return type, the signature names;
- a vectorize signature without a return type (Numba's ``(datetime_t,
  datetime_t)``): the type of the function's result on the host for sample
  values of the inputs (``end - start`` of two datetime64[D] is a
  timedelta64[D], NumPy's rule; a number's dtype where it is a number).
The signature whose datetime inputs have the arguments' dtypes gives the
results' dtypes; a result on the device (a DeviceArray, which has no
datetime dtype) stays int64 counts."""
import re

import numpy as np

_DT = re.compile(r"\b(datetime64|timedelta64)\[(\w*)\]")


def has_datetime(sigs):
    return any(_DT.search(s) for s in sigs)


def _split(params):
    """"a, b[:, :], c" -> ["a", "b[:, :]", "c"] (commas inside brackets kept)"""
    out, depth, cur = [], 0, ""
    for ch in params + ",":
        if ch == "," and depth == 0:
            if cur.strip():
                out.append(cur.strip())
            cur = ""
            continue
        depth += (ch in "[(") - (ch in "])")
        cur += ch
    return out


def _dtype(text):
    """the datetime dtype a parameter's text names (an array's element), or None"""
    m = _DT.match(text.strip())
    if not m:
        return None
    return np.dtype(f"{'M8' if m.group(1) == 'datetime64' else 'm8'}"
                    + (f"[{m.group(2)}]" if m.group(2) else ""))


class _Plan:
    """one signature: its int64 text, its parameters' and return's datetime dtypes"""

    def __init__(self, sig):
        self.text = _DT.sub("int64", sig)
        k = sig.index("(")
        ret = sig[:k].strip()
        self.params = [_dtype(p) for p in _split(sig[k + 1:sig.rindex(")")])]
        self.ret = _dtype(ret) if ret else None
        self.ret_given = bool(ret)

    def infer_return(self, func):
        """Numba's (datetime_t, datetime_t): NumPy's result type of the
        function on the host for sample inputs (1 of each unit)"""
        if self.ret_given or not any(self.params):
            return
        args = [np.datetime64(1, np.datetime_data(d)[0]) if d is not None and d.kind == "M"
                else np.timedelta64(1, np.datetime_data(d)[0]) if d is not None
                else np.int64(1) for d in self.params]
        try:
            r = func(*args)
        except Exception:       # noqa: BLE001  (vectorize then asks for a return type)
            return
        if isinstance(r, (np.datetime64, np.timedelta64)):
            self.ret = r.dtype
            self.text = "int64" + self.text
        elif isinstance(r, (bool, int, float, complex, np.number, np.bool_)):
            self.text = np.asarray(r).dtype.name + self.text

    def matches(self, args):
        n = 0
        for d, a in zip(self.params, args):
            if d is not None:
                n += 1
                if getattr(a, "dtype", None) != d:
                    return False
        return n > 0


def plans(sigs):
    return [_Plan(s) for s in sigs]


def _view(r, dt):
    if dt is None or not isinstance(r, np.ndarray):
        return r
    return r.view(dt)


class DatetimeForm:
    """a vectorize / guvectorize form over int64 whose results are viewed as
    datetime64 / timedelta64 (the module's docstring); every other
    attribute is the form's"""

    def __init__(self, form, plans, nout=None):
        self._form, self._plans, self._nout = form, plans, nout

    def __getattr__(self, name):
        return getattr(self._form, name)

    def __call__(self, *args, **kwargs):
        r = self._form(*args, **kwargs)
        plan = next((p for p in self._plans if p.matches(args)), None)
        if plan is None:
            return r
        if self._nout is None:          # vectorize: one result
            return _view(r, plan.ret)
        outs = plan.params[len(plan.params) - self._nout:]
        if isinstance(r, tuple):
            return tuple(_view(x, d) for x, d in zip(r, outs))
        return _view(r, outs[0] if outs else None)

    def __repr__(self):
        return repr(self._form)


def vectorize_maker(make, sigs):
    """make(f, sigs) for signatures naming datetime types: the form over
    int64, wrapped"""
    ps = plans(sigs)

    def made(f):
        for p in ps:
            p.infer_return(f)
        return DatetimeForm(make(f, [p.text for p in ps]), ps)
    return made


def gufunc_nout(layout):
    return len(_split(layout.split("->", 1)[1])) if "->" in layout else 0
