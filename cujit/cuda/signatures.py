"""Signatures in Numba's spellings: a string, a signature object or a tuple
of types as cujit's signature text (``_sig``), a kernel's void return
checked; and the launch of a dispatcher compiled for explicit signatures:
the arguments' types (``_arg_type``), the compiled signatures' parameters
(``_parse_params``), Numba's rating of conversions (``_conversion``) and the
arguments converted for the one chosen (``_convert``), with the types as
Numba's messages name them."""

from cujit import _ntypes
from cujit.cuda.memory import _ArgHint


def _arg_type(a):
    """("a", dtype, ndim, layout) for an array argument, ("s", dtype) for a
    number (Python int, float, complex as Numba types them: int64, float64,
    complex128), None for anything else (the launch reports it)."""
    import numpy as np
    if isinstance(a, _ArgHint):
        a = a.value
    if isinstance(a, bool):
        return ("s", np.dtype(np.bool_))
    if isinstance(a, np.generic):
        return ("s", a.dtype)
    if isinstance(a, int):
        return ("s", np.dtype(np.int64))
    if isinstance(a, float):
        return ("s", np.dtype(np.float64))
    if isinstance(a, complex):
        return ("s", np.dtype(np.complex128))
    if isinstance(a, tuple):
        return ("t", [_arg_type(x) for x in a])
    cai = getattr(a, "__cuda_array_interface__", None)
    if cai is not None or isinstance(a, np.ndarray):
        if cai is not None:
            dt, shape, strides = np.dtype(cai["typestr"]), cai["shape"], cai.get("strides")
        else:
            dt, shape, strides = a.dtype, a.shape, a.strides
        return ("a", dt, len(shape), _layout_of(shape, strides, dt.itemsize))
    return None


def _layout_of(shape, strides, itemsize):
    """'C', 'F' or 'A' as the launch keys arrays."""
    if strides is None:
        return "C"

    def contiguous(order):
        step = itemsize
        for n, s in order:
            if n != 1 and s != step:
                return False
            step *= n
        return True
    pairs = list(zip(shape, strides))
    if contiguous(reversed(pairs)):
        return "C"
    return "F" if len(shape) >= 2 and contiguous(pairs) else "A"


def _parse_params(sig):
    """cujit's signature string "(float32[::1], int64)" as parameter types:
    ("a", dtype, ndim, layout), ("s", dtype), ("p", dtype) (a raw pointer)
    or ("t", [its elements'])."""
    import numpy as np
    inner = sig[sig.index("(") + 1:sig.rindex(")")]
    params, depth, cur = [], 0, ""
    for ch in inner + ",":
        if ch == "," and depth == 0:
            if cur.strip():
                params.append(cur.strip())
            cur = ""
            continue
        depth += (ch in "[(") - (ch in "])")
        cur += ch
    out = []
    for p in params:
        if p.startswith("Tuple("):
            out.append(("t", _parse_params(p[5:])))
            continue
        if p.startswith("Record("):
            out.append(_record_param(p))
            continue
        if p.endswith("*"):
            out.append(("p", np.dtype(_ntypes.SCALARS.get(p[:-1].strip(), p[:-1].strip()))))
            continue
        if "[" not in p:
            out.append(("s", np.dtype(_ntypes.SCALARS.get(p, p))))
            continue
        name, dims = p[:p.index("[")], p[p.index("[") + 1:p.rindex("]")].split(",")
        dims = [d.strip() for d in dims]
        lay = "C" if dims[-1] == "::1" else "F" if len(dims) > 1 and dims[0] == "::1" else "A"
        out.append(("a", np.dtype(_ntypes.SCALARS.get(name.strip(), name.strip())), len(dims),
                    lay))
    return out


def _record_param(p):
    """a record parameter of a compiled signature: ("a", dtype, ndim,
    layout), or ("s", dtype) for one record"""
    from cujit import _recsig
    end = p.rindex(")") + 1
    dt = _recsig.dtype_of(p[:end])
    if dt is None:
        return ("?",)           # no argument matches it
    if end == len(p):
        return ("s", dt)        # an np.void argument, as _arg_type sees it
    dims = [d.strip() for d in p[end + 1:p.rindex("]")].split(",")]
    lay = "C" if dims[-1] == "::1" else "F" if len(dims) > 1 and dims[0] == "::1" else "A"
    return ("a", dt, len(dims), lay)


def _conversion(t, p):
    """How an argument of type t reaches parameter p: 0 exactly, 1 by
    promotion (a wider type of the same kind), 2 safely, 3 unsafely (a
    number only), None not at all."""
    import numpy as np
    if p[0] == "p":
        # a raw pointer takes an address: an integer (Numba's CPointer argument)
        return 0 if t is not None and t[0] == "s" and t[1].kind in "iu" else None
    if t is None or t[0] != p[0]:
        return None
    if t[0] == "t":
        if len(t[1]) != len(p[1]):
            return None
        scores = [_conversion(a, b) for a, b in zip(t[1], p[1])]
        return None if None in scores else max(scores, default=0)
    if t[0] == "a":
        if t[1] != p[1] or t[2] != p[2] or p[3] not in ("A", t[3]):
            return None
        return 0 if p[3] == t[3] else 2
    src, dst = t[1], p[1]
    if src == dst:
        return 0
    if src.kind == "c" and dst.kind != "c":
        return None
    if np.can_cast(src, dst, "safe"):
        return 1 if src.kind == dst.kind else 2
    return 3


def _reinterpretable(t, p):
    """An array of t's rank and layout whose dtype differs from p's but has
    its size: a one-signature dispatcher reads its bytes as p's dtype (Numba
    passes the array's pointer as it is)."""
    return (t is not None and t[0] == "a" and p[0] == "a" and t[1] != p[1]
            and t[1].itemsize == p[1].itemsize and t[2] == p[2] and p[3] in ("A", t[3])
            and not t[1].fields and not p[1].fields)


class _Reinterpreted:
    """A device array's memory seen as another dtype of the same size."""

    def __init__(self, obj, dtype):
        self._obj = obj         # keeps the memory alive for the launch
        cai = dict(obj.__cuda_array_interface__)
        cai["typestr"] = dtype.str
        cai.pop("descr", None)
        self.__cuda_array_interface__ = cai


def _convert(a, t, p):
    """argument a (of type t) for parameter p: a number as p's dtype, a
    tuple element by element, an array of another dtype of the same size
    viewed as p's"""
    import numpy as np
    if t is not None and t[0] == "t":
        return tuple(_convert(x, u, q) for x, u, q in zip(a, t[1], p[1]))
    if _reinterpretable(t, p):
        if isinstance(a, _ArgHint):
            a = a.value
        return a.view(p[1]) if isinstance(a, np.ndarray) else _Reinterpreted(a, p[1])
    if p[0] == "a" or t is None or t[0] != "s" or p[1].names is not None:
        return a                # a record is passed by reference, never converted
    if p[0] == "p":
        return int(a) & 0xFFFFFFFFFFFFFFFF    # the address, packed as 64 bits
    return np.asarray(a).astype(p[1])[()]


def _numba_name(t):
    """A type as Numba prints it in its messages: float64,
    Array(float64, 1, 'C', False, aligned=True), UniTuple(int64 x 2)"""
    if t is None:
        return "pyobject"
    if t[0] == "t":
        names = [_numba_name(u) for u in t[1]]
        if names and len(set(names)) == 1:
            return f"UniTuple({names[0]} x {len(names)})"
        return "Tuple(" + ", ".join(names) + ")"
    if t[0] == "p":
        return f"CPointer({t[1]})"
    if t[0] == "s":
        return "bool" if t[1].kind == "b" else str(t[1])
    dt = "bool" if t[1].kind == "b" else str(t[1])
    return f"Array({dt}, {t[2]}, '{t[3]}', False, aligned=True)"


def _type_name(t):
    if t is None:
        return "(not an array or a number)"
    if t[0] == "t":
        return "Tuple(" + ", ".join(_type_name(u) for u in t[1]) + ")"
    if t[0] == "s":
        return str(t[1])
    return f"array({t[1]}, {t[2]}d, {t[3]})"


def _has_enum(args):
    """an Enum member among args or inside their tuples"""
    import enum
    return any(isinstance(a, enum.Enum) or (isinstance(a, tuple) and _has_enum(a))
               for a in args)


def _is_signature_value(s):
    """s is a signature object or a non-empty tuple of Numba types, not an
    example tuple argument"""
    if _ntypes.is_signature(s):
        return True
    return (isinstance(s, (tuple, list)) and len(s) > 0
            and all(_ntypes._is_type(t) and not isinstance(t, str) for t in s))


def _sig(signature):
    """Numba passes signatures as strings, signature objects (void(float32[:],
    int32), cujit.cuda's or numba's) or tuples of argument types.  A kernel
    takes datetime64 / timedelta64 as int64 counts."""
    text = _ntypes.signature_string(signature)
    if "datetime64" in text or "timedelta64" in text:
        import re
        text = re.sub(r"\b(datetime64|timedelta64)(\[\w*\])?", "int64", text)
    return text


def _check_void(signature, what="a kernel"):
    """Numba's rule: a kernel's signature returns void (or gives no return
    type: a tuple of argument types)."""
    ret = _ntypes.return_type_of(signature)
    if ret not in (None, "void", "none"):
        raise TypeError(f"{what} must have void return type, but the signature "
                        f"{_sig(signature)} returns {ret}: a kernel writes its results into "
                        "array arguments; a function that returns a value is a device "
                        "function (cuda.jit(sig, device=True))")
