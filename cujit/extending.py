"""Numba's high-level extension API for device code: ``@overload``.

    from cujit.extending import overload       # numba.cuda.extending's / numba.extending's

    def clamp(x, lo, hi):                      # the function kernels call
        pass

    @overload(clamp, target="cuda")
    def ol_clamp(x, lo, hi):                   # runs while a kernel compiles, with
        if isinstance(x, types.Float):         # the Numba types of the call's arguments
            def impl(x, lo, hi):
                return min(max(x, lo), hi)
            return impl                        # compiled as a device function
        # returning None declines: the next overload is tried

A kernel's call of ``clamp(...)`` is typed by cujit's typeinfer; for each set
of argument types it asks the overloads of ``clamp`` in turn (``cuda`` ones
before ``generic`` ones, each in the order registered) for an
implementation, and compiles the first one returned as a device function
(``frontend/overload.c``).  The factory's answer is kept per argument types,
so each runs once per types in a process, as Numba's does.

A ``generic`` or ``cpu`` overload is also registered with numba's own
``overload`` when the program has loaded numba, so that ``numba.njit``
functions see it as they would under Numba.

``register_jitable(f)`` makes a plain function callable from kernels (an
overload whose implementation is ``f`` itself).  ``overload_method(typ,
"name")`` gives ``x.name(...)`` of a receiver whose type is of class ``typ``
and ``overload_attribute(typ, "name")`` gives ``x.name`` (the registries are
``_METHODS`` and ``_ATTRS``, by name, which the frontend and the front key
read where this module is loaded).

The overloaded function carries its registry entry as the attribute
``__cujit_overload__`` (what the frontend reads): only Python functions
(``def``, lambda) can be overloaded.

Numba's struct-model declarations (``typeof_impl``, ``type_callable``,
``register_model`` / ``models.StructModel``, ``make_attribute_wrapper``,
``lower``) are here too, from ``cujit/_structs.py``, which says what of them
cujit honours."""
import re
import sys

import numpy as np

from cujit import _ntypes

__all__ = ["overload", "register_jitable", "overload_method", "overload_attribute",
           "typeof_impl", "type_callable", "register_model", "models", "core_models",
           "make_attribute_wrapper", "lower", "lower_builtin", "lower_attr", "intrinsic"]

# target names -> rank on the CUDA target (lower: tried first); Numba's "cpu"
# overloads never apply to device code
_TARGETS = {"cuda": 0, "gpu": 0, "generic": 1, "cpu": None}


class _Overloads:
    """The overloads of one function: [(rank, order, factory, options)] and
    the implementations chosen so far, by argument types."""

    def __init__(self, func, name=None):
        self.func = func
        self.name = name or func.__name__      # a method: "method 'foo'"
        self.entries = []
        self.cache = {}

    def add(self, factory, target, options):
        self.entries.append((_TARGETS[target], len(self.entries), factory, options))
        self.entries.sort(key=lambda e: (e[0], e[1]))
        self.cache.clear()

    def __repr__(self):
        return f"<cujit overloads of {self.name}: {len(self.entries)}>"

    # ---- called by the frontend (frontend/overload.c) ----

    def _cujit_resolve(self, pos, kw):
        """The implementation for a call: pos a tuple of arguments, kw a dict
        name -> argument, each argument (desc,) or (desc, value) where value
        is the compile-time object the call gives (a constant); desc is
        cujit's type (_type).  Returns a Python function or raises (a
        TypeError when every overload declines)."""
        try:
            key = (pos, tuple(sorted(kw.items())))
            hash(key)
        except TypeError:
            key = None
        impl = self.cache.get(key) if key is not None else None
        if impl is None:
            impl = self._choose(pos, kw)
            if key is not None:
                self.cache[key] = impl
        return impl

    def _choose(self, pos, kw):
        tried = []
        for rank, _, factory, options in self.entries:
            if rank is None or not _receives(options, pos):
                continue
            literal = options.get("prefer_literal", False)
            for use_literal in ((True, False) if literal else (False, True)):
                args = tuple(_arg_type(a, use_literal) for a in pos)
                kws = {k: _arg_type(a, use_literal) for k, a in kw.items()}
                try:
                    impl = _call_factory(self.name, factory, args, kws)
                except TypeError:
                    # a typing error for the literal types: Numba tries the
                    # plain types next (prefer_literal=True)
                    if not (use_literal and _has_literal(pos, kw)):
                        raise
                    impl = None
                if impl is not None:
                    _check_impl(self.name, factory, impl, options)
                    return impl
                tried.append(factory)
                if not _has_literal(pos, kw):
                    break
        given = ", ".join([str(_arg_type(a, False)) for a in pos]
                          + [f"{k}={_arg_type(a, False)}" for k, a in kw.items()])
        if all(rank is None for rank, _, _, _ in self.entries):
            raise TypeError(f"{self._what()} has no overload for the CUDA target (only "
                            "target='cpu' ones): register one with target='cuda' or 'generic'")
        why = ""
        if tried:
            why = ": " + ", ".join(sorted({f.__name__ for f in tried})) + \
                " returned None for these types"
        raise TypeError(f"no overload of {self._what()} takes ({given}){why}")

    def _what(self):
        return self.name if self.func is None else f"'{self.name}'"


def _receives(options, pos):
    """Does a method overload (options' receiver: a type class) take the
    receiver, the call's first argument?"""
    cls = options.get("receiver")
    return cls is None or (pos and isinstance(_type(pos[0][0]), cls))


def _has_literal(pos, kw):
    return any(len(a) == 2 for a in pos) or any(len(a) == 2 for a in kw.values())


def _call_factory(name, factory, args, kws):
    try:
        return factory(*args, **kws)
    except TypeError as e:
        # a call the factory's signature does not take is Numba's typing error
        raise TypeError(f"@overload {factory.__name__} of '{name}' raised "
                        f"{type(e).__name__}: {e}") from e
    except Exception as e:
        kind = TypeError if _numba_typing_error(e) else RuntimeError
        raise kind(f"@overload {factory.__name__} of '{name}' raised "
                   f"{type(e).__name__}: {_ANSI.sub('', str(e))}") from e


_ANSI = re.compile(r"\x1b\[[0-9;]*m")       # numba's highlighting of its messages


def _numba_typing_error(e):
    """numba's TypingError / NumbaTypeError, raised by a factory that
    declines the types with a message: cujit's CompileTypeError at the call"""
    return any(c.__name__ == "TypingError" and c.__module__.split(".")[0] == "numba"
               for c in type(e).__mro__)


def _check_impl(name, factory, impl, options):
    if not callable(impl) or not hasattr(impl, "__code__"):
        raise TypeError(f"@overload {factory.__name__} of '{name}' returned "
                        f"{type(impl).__name__} {impl!r}: it must return a Python function "
                        "(the implementation) or None")
    if options.get("strict", True):
        _check_signatures(name, factory, impl)


def _check_signatures(name, factory, impl):
    """strict=True (Numba's default): the implementation's parameters are the
    factory's: the same positional names, the same keyword parameters with
    the same defaults, no **kwargs; *args only where the factory has them.
    A difference is a TypeError (cujit's CompileTypeError at the call)."""
    import inspect
    try:
        typing = list(inspect.signature(factory).parameters.values())
        implementing = list(inspect.signature(impl).parameters.values())
    except (TypeError, ValueError):
        return
    head = f"@overload {factory.__name__} of '{name}': "
    for p in typing + implementing:
        if p.kind is p.VAR_KEYWORD:
            raise TypeError(f"{head}use of VAR_KEYWORD (e.g. **kwargs) is unsupported. "
                            f"offending argument name is '**{p.name}'")
    star_t = [p for p in typing if p.kind is p.VAR_POSITIONAL]
    star_i = [p for p in implementing if p.kind is p.VAR_POSITIONAL]
    if star_t and not star_i:
        raise TypeError(f"{head}VAR_POSITIONAL (e.g. *args) argument kind (offending argument "
                        f"name is '*{star_t[0].name}') found in the typing function signature "
                        "but not in the implementing function signature")

    def positional(ps):
        return [p for p in ps if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                and p.default is p.empty]

    def keywords(ps):
        return [p for p in ps if p.default is not p.empty]

    pt, pi = positional(typing), positional(implementing)
    if star_i and not star_t:
        pt = pt[:len(pi)]           # the implementation's *args take the rest
    if [p.name for p in pt] != [p.name for p in pi]:
        diff = [b.name for a, b in zip(pt, pi) if a.name != b.name]
        first = diff[0] if diff else (pi[len(pt)] if len(pi) > len(pt) else pt[len(pi)]).name
        raise TypeError(f"{head}Typing and implementation arguments differ in argument "
                        f"names.\nTyping: {pt}\nImplementation: {pi}\n"
                        f"First difference: '{first}'")
    kt, ki = keywords(typing), keywords(implementing)
    if [p.name for p in kt] != [p.name for p in ki]:
        raise TypeError(f"{head}Typing and implementation arguments differ in keyword "
                        f"argument names.\nTyping: {kt}\nImplementation: {ki}")
    if [p.default for p in kt] != [p.default for p in ki]:
        raise TypeError(f"{head}Typing and implementation arguments differ in keyword "
                        f"argument default values.\nTyping: {kt}\nImplementation: {ki}")


# ---- cujit's types as Numba's ----

def _type(desc):
    """cujit's type, as the frontend describes it, as a Numba type object"""
    kind = desc[0]
    if kind == "scalar":
        return _ntypes.from_dtype(np.dtype(desc[1]))
    if kind == "weak":                  # a Python number: Numba types it as 64 bits
        return _ntypes.TYPES[{"int": "int64", "float": "float64",
                              "complex": "complex128"}[desc[1]]]
    if kind == "array":
        _, dtype, ndim, layout, readonly = desc
        return _ntypes.Array(_ntypes.from_dtype(np.dtype(dtype)), ndim, layout,
                             readonly=bool(readonly))
    if kind == "tuple":
        return _ntypes.Tuple([_type(d) for d in desc[1]])
    if kind == "none":
        return _ntypes.TYPES["none"]
    if kind == "record":                # a struct model's type, else a Record type
        from cujit import _structs
        return _structs.record_type(desc[1], desc[2])
    if kind == "object":                # a function or a dtype given at compile time
        return _CompileTimeObject(desc[1])
    return _ntypes.Opaque(desc[1])


def _arg_type(arg, literal):
    t = _type(arg[0])
    if literal and len(arg) == 2:
        v = arg[1]
        if isinstance(v, bool):
            return _ntypes.BooleanLiteral(v)
        if isinstance(v, int):
            return _ntypes.IntegerLiteral(v)
        if isinstance(v, (float, complex, str)):
            return _ntypes.Literal(v)
    return t


class _CompileTimeObject(_ntypes.Opaque):
    """An argument known only while the kernel compiles (a function, a dtype):
    ``.value`` is the object (Numba would give a Function or Dispatcher type)."""

    def __init__(self, value):
        self.value = value
        super().__init__(f"object({getattr(value, '__name__', type(value).__name__)})")

    @property
    def key(self):
        return id(self.value)


# ---- the decorators ----

def overload(func, jit_options={}, strict=True, inline="never", prefer_literal=False,
             target="generic", **kwargs):
    """@overload(func): the decorated factory gives ``func``'s implementation
    for the types of a call's arguments (Numba's numba.extending.overload).
    ``target`` is 'generic' (any target), 'cuda' (preferred on the GPU) or
    'cpu' (never device code); ``prefer_literal`` offers constants as literal
    types first.  ``jit_options``, ``strict`` and ``inline`` are accepted:
    NVRTC inlines as it sees fit, and cujit has no other options to pass."""
    if target not in _TARGETS:
        raise ValueError(f"overload: unknown target {target!r}; give 'cuda', 'generic' or "
                         "'cpu'")
    if inline not in ("never", "always") and not callable(inline):
        raise ValueError(f"overload: inline must be 'never', 'always' or a function, not "
                         f"{inline!r}")
    if not hasattr(func, "__code__") or not hasattr(func, "__dict__"):
        raise TypeError(f"cujit can overload Python functions (def, lambda) only, not "
                        f"{type(func).__name__} {func!r}")
    options = dict(jit_options=dict(jit_options), strict=strict, inline=inline,
                   prefer_literal=prefer_literal)

    def decorate(factory):
        if not callable(factory):
            raise TypeError(f"@overload({func.__name__}) decorates the function that "
                            f"returns the implementation, not {type(factory).__name__}")
        entry = func.__dict__.get("__cujit_overload__")
        if entry is None:
            entry = func.__cujit_overload__ = _Overloads(func)
        entry.add(factory, target, options)
        _numba_too(func, factory, target, options)
        return factory
    return decorate


def _numba_too(func, factory, target, options):
    """A 'generic' or 'cpu' overload applies to numba's CPU jit (numba.njit)
    too, where the user's program has loaded numba (never imported here)."""
    ext = sys.modules.get("numba.core.extending")
    if ext is None or target not in ("generic", "cpu"):
        return
    try:
        ext.overload(func, target=target, **options)(factory)
    except Exception:           # numba's own rules: its njit then lacks this overload
        pass


def register_jitable(*args, **kwargs):
    """@register_jitable: a plain function that kernels may call (its own
    body is the implementation, for every argument types)."""
    def wrap(fn):
        overload(fn, target="generic", strict=False)(lambda *a, **k: fn)
        return fn
    if len(args) == 1 and not kwargs and callable(args[0]):
        return wrap(args[0])
    return wrap


_NO_INTRINSIC = (
    "@intrinsic is not supported by cujit: an intrinsic's codegen builds LLVM IR with "
    "llvmlite, and cujit generates CUDA C++, where there is no IR builder to give it; write "
    "the operation as a device function (@cuda.jit(device=True)), as an @overload "
    "implementation, or in CUDA C++ linked with cuda.declare_device(name, signature, "
    "link=...)")


def intrinsic(*args, **kwargs):
    """Numba's @intrinsic (also @intrinsic(prefer_literal=True)): refused
    where it decorates, with what to write instead."""
    raise NotImplementedError(_NO_INTRINSIC)


# numba's struct-model declarations (cujit/_structs.py): a struct model is a
# record dtype; type_callable + @lower construct one in kernels
from cujit._structs import (typeof_impl, type_callable, register_model, models,  # noqa: E402
                            core_models, make_attribute_wrapper, lower, lower_builtin,
                            lower_attr)

# method name -> its overloads (a kernel's x.name(...) of a receiver they take);
# attribute name -> its overloads (x.name)
_METHODS = {}
_ATTRS = {}


def _member(table, what, typ, attr, jit_options, strict, inline, prefer_literal, target):
    if not (isinstance(typ, type) and issubclass(typ, _ntypes.Type)):
        raise TypeError(f"overload_{what}: the receiver must be a type class of cujit.cuda."
                        f"types (types.Array, types.Integer, ...), not {typ!r}")
    if target not in _TARGETS:
        raise ValueError(f"overload_{what}: unknown target {target!r}; give 'cuda', "
                         "'generic' or 'cpu'")
    options = dict(jit_options=dict(jit_options), strict=strict, inline=inline,
                   prefer_literal=prefer_literal, receiver=typ)

    def decorate(factory):
        entry = table.get(attr)
        if entry is None:
            entry = table[attr] = _Overloads(None, f"{what} '{attr}'")
        entry.add(factory, target, options)
        return factory
    return decorate


def overload_method(typ, attr, jit_options={}, strict=True, inline="never",
                    prefer_literal=False, target="generic", **kwargs):
    """@overload_method(types.Array, "name"): ``x.name(args)`` in a kernel,
    with x of a type of class ``typ``, calls the implementation the factory
    gives for (x's type, the arguments' types); its first parameter is x."""
    return _member(_METHODS, "method", typ, attr, jit_options, strict, inline,
                   prefer_literal, target)


def overload_attribute(typ, attr, jit_options={}, strict=True, inline="never",
                       prefer_literal=False, target="generic", **kwargs):
    """@overload_attribute(types.Array, "name"): ``x.name`` in a kernel, with
    x of a type of class ``typ``, is the value of the implementation the
    factory gives for x's type, called with x."""
    return _member(_ATTRS, "attribute", typ, attr, jit_options, strict, inline,
                   prefer_literal, target)
