"""Pickling what Numba's spelling makes (cuda.jit dispatchers, cuda.vectorize
and cuda.guvectorize functions) when pickle cannot find it by name: a
function defined inside another one, or in a test's method.

Numba pickles such a function by value, and so does this module, with its
own reducer: the function's code object (marshal's bytes), the globals its
code reads (modules by name, anything else by pickle, a nested local
function by value again), its closure cells' contents, its defaults, names
and module.  The other side builds the function again over a fresh globals
dict and compiles it again (or reads cujit's disk cache: the front key is
the same, since it hashes the code and the values read).  The kernel's
source is not pickled: cujit reads it from the file the code object names,
which the other side must have (as it has the module for a function pickled
by name)."""
import builtins
import importlib
import marshal
import sys
import types


def findable(obj, f=None):
    """obj can be pickled by reference: module.qualname of function f (obj
    itself by default) is obj"""
    f = obj if f is None else f
    here = sys.modules.get(getattr(f, "__module__", None) or "")
    for part in getattr(f, "__qualname__", "<locals>").split("."):
        here = getattr(here, part, None)
    return here is obj


def function_arg(f):
    """What stands for Python function f in a reducer's arguments: f itself
    where pickle finds it by name, else f by value."""
    if findable(f) or not isinstance(f, types.FunctionType):
        return f
    return ByValue(f)


class ByValue:
    """Pickles as its function by value; unpickled, it is the function."""

    __slots__ = ("f",)

    def __init__(self, f):
        self.f = f

    def __reduce__(self):
        f = self.f
        code = f.__code__
        cells = None
        if f.__closure__:
            cells = tuple(_cell_value(c) for c in f.__closure__)
        return (_rebuild_function,
                (marshal.dumps(code), _globals_of(f), f.__name__, f.__qualname__,
                 f.__module__, f.__defaults__, f.__kwdefaults__, cells,
                 getattr(f, "__doc__", None)))


class _Module:
    """A module among the globals: imported again by name."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __reduce__(self):
        return (importlib.import_module, (self.name,))


def _cell_value(c):
    try:
        return _value(c.cell_contents)
    except ValueError:
        return _EMPTY_MARK


def _value(v):
    """a global's or a cell's value as the reducer passes it"""
    if isinstance(v, types.ModuleType):
        return _Module(v.__name__)
    if isinstance(v, types.FunctionType):
        return function_arg(v)
    return v


def _names(code, seen=None):
    """the global names code (and the code objects nested in it) can read"""
    seen = set() if seen is None else seen
    out = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType) and id(c) not in seen:
            seen.add(id(c))
            out |= _names(c, seen)
    return out


def _globals_of(f):
    g = f.__globals__
    return {n: _value(g[n]) for n in sorted(_names(f.__code__)) if n in g}


def device_array_reads(f):
    """the names of the device arrays (objects with a
    __cuda_array_interface__) f's code reads as globals or closure
    variables: their addresses are compiled into the kernel"""
    def is_dev(v):
        return not isinstance(v, type) and hasattr(v, "__cuda_array_interface__")
    code = f.__code__
    out = [n for n in sorted(_names(code)) if n in f.__globals__ and is_dev(f.__globals__[n])]
    for n, c in zip(code.co_freevars, f.__closure__ or ()):
        try:
            if is_dev(c.cell_contents):
                out.append(n)
        except ValueError:
            pass
    return out


def check_cacheable(f):
    """cuda.jit(cache=True): Numba's PicklingError for a kernel that reads
    device arrays as globals"""
    names = device_array_reads(f)
    if names:
        import pickle
        raise pickle.PicklingError(
            f"cuda.jit(cache=True): kernel {f.__name__!r} reads {', '.join(names)}, device "
            "array(s) captured as globals, whose addresses are compiled into it: Cannot "
            "pickle kernels that capture global device arrays into a cache, as in Numba; "
            "pass them as arguments, or leave out cache=True")


def _rebuild_function(code, globs, name, qualname, module, defaults, kwdefaults, cells, doc):
    g = {"__builtins__": builtins, "__name__": module}
    g.update(globs)
    closure = None
    if cells is not None:
        closure = tuple(types.CellType() if v is _EMPTY_MARK else types.CellType(v)
                        for v in cells)
    f = types.FunctionType(marshal.loads(code), g, name, defaults, closure)
    f.__qualname__ = qualname
    f.__module__ = module
    f.__kwdefaults__ = kwdefaults
    f.__doc__ = doc
    return f


class _EmptyCell:
    """Marks an empty closure cell in a pickle (one by reference: the same
    object after unpickling)."""

    def __reduce__(self):
        return "_EMPTY_MARK"


_EMPTY_MARK = _EmptyCell()


def rebuild_ufunc(func, sigs, kind, layout):
    """A cuda.vectorize (kind "u") or cuda.guvectorize ("g") function again"""
    from cujit import _forms
    if kind == "u":
        return (_forms.vectorize(sigs, target="cuda") if sigs
                else _forms.vectorize(target="cuda"))(func)
    args = ([sigs] if sigs else []) + [layout]
    return _forms.guvectorize(*args, target="cuda")(func)
