"""numba.cuda.libdevicefuncs for cujit's types: ``functions`` (every
libdevice function cuda.libdevice has, ``"__nv_sin": (float64, [arg("x",
float64, False)])``) and ``create_signature(retty, args)``, the signature of
its cuda.libdevice stub (pointer arguments come back in the result tuple).
Numba's own test of libdevice builds its kernels from these; the rows come
from the compiler's table (common/intrin.c), as cuda.libdevice's names do."""
from collections import namedtuple

from cujit import _ntypes
from cujit._cujit import _intrinsics

arg = namedtuple("arg", ("name", "ty", "is_ptr"))

# the intrinsics' signature letters (common/cj.h)
_LETTERS = {"v": "void", "b": "boolean", "i": "int32", "u": "uint32", "l": "int64",
            "L": "uint64", "w": "uint16", "h": "float16", "f": "float32", "d": "float64"}


def _ty(letter):
    return _ntypes.TYPES[_LETTERS[letter]]


def _row(sig):
    """(return type, [arg]) of a signature of letters such as "dd*i"."""
    retty, rest = _ty(sig[0]), sig[1:]
    args, ptr = [], False
    for c in rest:
        if c == "*":
            ptr = True
            continue
        args.append(arg("x%d" % len(args), _ty(c), ptr))
        ptr = False
    return retty, args


functions = {"__nv_" + name[len("libdevice."):]: _row(sig)
             for name, sig in sorted(_intrinsics().items()) if name.startswith("libdevice.")}


def create_signature(retty, args):
    """The stub's signature: the function's non-pointer arguments, returning
    its result followed by what its pointer arguments receive (one value
    alone, several as a Tuple; a void result is left out)."""
    returns = [a.ty for a in args if a.is_ptr]
    if retty != _ntypes.TYPES["void"]:
        returns.insert(0, retty)
    ret = _ntypes.Tuple(returns) if len(returns) > 1 else returns[0]
    return _ntypes.signature(ret, *[a.ty for a in args if not a.is_ptr])
