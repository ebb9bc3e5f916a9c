"""The array stdlib: DeviceArray's operators and methods, and cujit's math,
reduction, scan and creation functions, with NumPy 2's semantics.

The kernels are written in the kernel language in kernels/ inside this
package (elementwise: @vectorize scalar functions; reductions: @reduce
combiners and argmin / argmax raw kernels; scan: cumsum; creation: arange,
linspace) and compiled through the same pipeline and caches as user kernels,
on first use.  This package is their NumPy-facing side: it checks every
signature once against NumPy itself (result dtype, UFuncTypeError, casting
errors of in-place operators), then calls the kernel.  A module per family:
elementwise, reductions, scans, creation, shape, copies (astype, copy, fill,
writes) and protocols (NumPy's __array_ufunc__ / __array_function__), over
_load (the kernels) and _operands (dtypes, operands, casts).  Which function
is public, and which ufunc and DeviceArray slot it serves, is one row of the
table in cujit/_stdlib_table.py; this file installs the rows.

It is imported on first use - by DeviceArray's first operator or method
(the C slots import it, and it registers itself with _set_array_ops) or by
the first cujit.sqrt-like name - so `import cujit` pays nothing for it."""
from cujit import _cujit as _C
from cujit._stdlib_table import OPERATIONS

from . import copies, creation, elementwise, protocols, reductions, scans, shape
from ._load import _ek, _kmod                   # noqa: F401  (_ek, _kmod, _UFUNCS: for the tests)
from .protocols import _UFUNCS                  # noqa: F401

_FAMILIES = {m.__name__.rpartition(".")[2]: m
             for m in (copies, creation, elementwise, protocols, reductions, scans, shape)}


def _install():
    """The table's rows (cujit/_stdlib_table.py) as this package's names, and
    the callables behind DeviceArray's operators and methods; returns
    (__all__, the operator table)."""
    names, ops = [], {}
    for op in OPERATIONS:
        f = getattr(_FAMILIES[op.family], op.name)
        for n in (op.name,) + op.aliases:
            globals()[n] = f
            if not n.startswith("_"):
                names.append(n)
        if op.operator:
            ops[op.operator] = f.operator
        if op.inplace:
            ops[op.inplace] = f.inplace
        if op.method:
            ops[op.method] = f
    return names, ops


__all__, _OPS = _install()
_C._set_array_ops(_OPS)
