"""Numba's struct-model extension declarations, as far as cujit can honour
them: ``typeof_impl``, ``type_callable``, ``register_model`` with
``models.StructModel`` (``core_models``), ``make_attribute_wrapper``,
``lower`` (numba.cuda.cudaimpl's) and ``cgutils.create_struct_proxy``.

    class Pair: ...                                  # a Python class
    class PairType(types.Type): ...                  # its Numba type
    pair_t = PairType()

    @register_model(PairType)
    class PairModel(models.StructModel):             # members of number types
        def __init__(self, dmm, fe_type):
            super().__init__(dmm, fe_type, [("x", int32), ("y", float64)])

    make_attribute_wrapper(PairType, "x", "x")       # p.x in kernels

    @type_callable(Pair)                             # Pair(a, b) in kernels ...
    def type_pair(context):
        def typer(a, b):
            if isinstance(a, types.Integer):
                return pair_t
        return typer

    @lower(Pair, types.Integer, types.Float)         # ... and how it is built
    def lower_pair(context, builder, sig, args):
        p = cgutils.create_struct_proxy(pair_t)(context, builder)
        p.x = args[0]
        p.y = args[1]
        return p._getvalue()

What cujit makes of it: a struct model whose members are numbers (or
booleans, or other struct models) *is* a plain C struct, and cujit has one
already, the record dtype (``common/recdtype.c``): the type's
``__cujit_dtype__`` is ``np.dtype(members, align=True)`` (LLVM's struct
layout is C's), so ``cuda.local.array(n, dtype=pair_t)``,
``cuda.shared.array``, ``a[i].x`` reads and writes and ``a[i] = p`` are the
record code.  An attribute wrapper renames the record's field to its Python
name.

``@lower`` bodies are LLVM builder code, which cujit cannot run.  A
constructor's body is run once per argument types against recording
stand-ins: ``cgutils.create_struct_proxy(t)(context, builder)`` notes which
member is given which argument (or ``context.get_constant(ty, v)``), and
``_getvalue()`` is the result; cujit then compiles a device function that
fills a record so.  Anything else the body does (``builder.add``, a
``context`` method other than ``get_constant``, returning another value)
raises ``NotImplementedError`` naming what was called and this limit, which
the kernel's compile reports at the call's line.

``typeof_impl.register(cls)`` records the type of ``cls``'s instances: a
launch takes such an instance as a struct argument (a 0-d record array whose
fields are read from the instance's attributes of the members' names:
``cls.__array__`` is set for that, where ``cls`` has none of its own)."""
import numpy as np

from cujit import _ntypes

__all__ = ["typeof_impl", "type_callable", "register_model", "models", "core_models",
           "make_attribute_wrapper", "lower", "lower_builtin", "lower_attr", "cgutils",
           "cudaimpl"]


# ---- the registries ----

_MODELS = {}            # type class -> model class
_WRAPPERS = {}          # type class -> {struct member: Python attribute}
_TYPEOF = {}            # Python class -> fn(value, context) -> type
_LOWERINGS = {}         # callee (class or function) -> [(arg type specs, fn)]


class _TypeofImpl:
    """numba's typeof_impl: ``@typeof_impl.register(cls)`` gives the type of
    ``cls``'s instances; ``typeof_impl(value, c)`` asks it."""

    def register(self, cls):
        if not isinstance(cls, type):
            raise TypeError(f"typeof_impl.register takes a class, not {cls!r}")

        def decorate(fn):
            _TYPEOF[cls] = fn
            _argument_hook(cls)
            return fn
        return decorate

    def __call__(self, value, c=None):
        for cls in type(value).__mro__:
            fn = _TYPEOF.get(cls)
            if fn is not None:
                return fn(value, c)
        return _ntypes.typeof(value)


typeof_impl = _TypeofImpl()


def register_model(type_cls):
    """@register_model(MyType): the model class (a models.StructModel
    subclass) that lays out MyType's values."""
    if not (isinstance(type_cls, type) and issubclass(type_cls, _ntypes.Type)):
        raise TypeError(f"register_model takes a type class (a subclass of "
                        f"cujit.cuda.types.Type), not {type_cls!r}")

    def decorate(model_cls):
        if not (isinstance(model_cls, type) and issubclass(model_cls, StructModel)):
            raise TypeError(f"register_model({type_cls.__name__}): cujit lays out struct "
                            f"models only (a models.StructModel subclass), not "
                            f"{model_cls!r}")
        _MODELS[type_cls] = model_cls
        type_cls.__cujit_dtype__ = property(_struct_dtype)
        type_cls.__getitem__ = _struct_array
        return model_cls
    return decorate


def make_attribute_wrapper(type_cls, struct_attr, python_attr):
    """``x.<python_attr>`` in a kernel reads (and writes) the member
    ``struct_attr`` of a value of type ``type_cls``."""
    if not isinstance(type_cls, type):
        raise TypeError(f"make_attribute_wrapper takes a type class, not {type_cls!r}")
    names = _WRAPPERS.setdefault(type_cls, {})
    if names.get(struct_attr, python_attr) != python_attr:
        raise ValueError(f"make_attribute_wrapper({type_cls.__name__}, {struct_attr!r}, "
                         f"{python_attr!r}): cujit gives a struct member one attribute "
                         f"name, and {struct_attr!r} is already {names[struct_attr]!r}")
    names[struct_attr] = python_attr
    for t in [t for t in _DTYPES if isinstance(t, type_cls)]:
        del _DTYPES[t]          # the field's name changes


# ---- models ----

class StructModel:
    """numba's models.StructModel: ``members`` is a list of (name, type)."""

    def __init__(self, dmm, fe_type, members):
        self._fe_type = fe_type
        self._members = [(str(n), t) for n, t in members]

    @property
    def _fields(self):
        return [n for n, _ in self._members]

    def get_member_fe_type(self, name):
        return dict(self._members)[name]


class _Models:
    """numba's models / core_models module: StructModel, and register_model"""
    StructModel = StructModel
    register_model = staticmethod(register_model)

    def __repr__(self):
        return "<cujit struct models (numba.core.datamodel.models)>"


models = core_models = _Models()


_DTYPES = {}            # struct-model type -> its record dtype


def _model_of(t):
    for cls in type(t).__mro__:
        if cls in _MODELS:
            return _MODELS[cls]
    return None


def _members(t):
    model = _model_of(t)
    if model is None:
        raise TypeError(f"{t} has no registered model: declare one with "
                        "@register_model(type class) on a models.StructModel subclass")
    m = model(None, t)
    if not isinstance(m, StructModel) or not hasattr(m, "_members"):
        raise TypeError(f"{model.__name__}.__init__ must call StructModel.__init__(self, "
                        "dmm, fe_type, members)")
    return m._members


def _member_dtype(t, owner, name):
    if isinstance(t, (_ntypes.Boolean, _ntypes.Number)) and not isinstance(t, _ntypes.Literal):
        return t.dtype
    if isinstance(t, _ntypes.Record):
        return t.dtype
    if isinstance(t, _ntypes.Type) and _model_of(t) is not None:
        return _struct_dtype(t)
    if _ntypes._from_numba(t):
        try:
            return np.dtype(str(t))
        except TypeError:
            pass
    raise TypeError(f"struct model of {owner}: member {name!r} has type {t}; cujit's "
                    "struct models hold numbers, booleans and other struct models (laid "
                    "out as a C struct)")


def _struct_dtype(t):
    """A struct-model type's record dtype: its members in order, aligned as
    C (and LLVM) lay a struct out; wrapped members by their Python names."""
    dt = _DTYPES.get(t)
    if dt is not None:
        return dt
    names = {}
    for cls in reversed(type(t).__mro__):
        names.update(_WRAPPERS.get(cls, {}))
    members = _members(t)
    fields = [(names.get(n, n), _member_dtype(mt, t, n)) for n, mt in members]
    if not fields:
        raise TypeError(f"struct model of {t} has no members: cujit's structs hold at "
                        "least one")
    seen = [f for f, _ in fields]
    dup = {f for f in seen if seen.count(f) > 1}
    if dup:
        raise TypeError(f"struct model of {t}: two members are named {sorted(dup)[0]!r}")
    dt = _DTYPES[t] = np.dtype(fields, align=True)
    return dt


def _struct_array(self, key):
    """struct_t[::1]: an array type of the struct's record"""
    return _ntypes.Record(_struct_dtype(self))[key]


# ---- typing and lowering: calls and attributes ----

def type_callable(func):
    """@type_callable(cls_or_function): the decorated function, given the
    typing context, returns a typer: typer(*arg types) -> the result type,
    or None to decline.  A kernel's call of ``func`` is then typed by it and
    built by the ``@lower(func, ...)`` that takes the argument types."""
    def decorate(typer_factory):
        _register_callable(func, typer_factory)
        return typer_factory
    return decorate


def lower(func, *argtys):
    """numba.cuda.cudaimpl.lower: @lower(func, types.Integer, ...) registers
    how a call of func with arguments of these types is built."""
    def decorate(fn):
        _LOWERINGS.setdefault(func, []).append((argtys, fn))
        return fn
    return decorate


lower_builtin = lower


def lower_attr(type_cls, attr):
    """numba.cuda.cudaimpl.lower_attr: @lower_attr(MyType, "name") builds
    ``x.name`` of a value of MyType (its typing, an AttributeTemplate, is
    numba's and not read: the type is what the built expression gives)."""
    def decorate(fn):
        from cujit import extending
        extending.overload_attribute(type_cls, attr, target="cuda", strict=False)(
            _attribute_factory(type_cls, attr, fn))
        return fn
    return decorate


class _Cudaimpl:
    """numba.cuda.cudaimpl's declaration names"""
    lower = staticmethod(lower)
    lower_attr = staticmethod(lower_attr)

    def __repr__(self):
        return "<cujit.cuda.cudaimpl>"


cudaimpl = _Cudaimpl()


def _register_callable(func, typer_factory):
    from cujit import extending
    if isinstance(func, type):
        entry = func.__dict__.get("__cujit_overload__")
        if entry is None:
            entry = extending._Overloads(func)
            func.__cujit_overload__ = entry
        entry.add(_call_factory(func, typer_factory), "cuda", dict(
            jit_options={}, strict=False, inline="never", prefer_literal=False))
    else:       # strict=False: the factory takes *args, the implementation is made
        extending.overload(func, target="cuda", strict=False)(
            _call_factory(func, typer_factory))


def _call_factory(func, typer_factory):
    name = getattr(func, "__name__", repr(func))

    def factory(*args, **kws):
        typer = typer_factory(None)
        result = typer(*args, **kws) if callable(typer) else None
        if result is None:
            return None
        return _lowered(func, name, result, args)
    factory.__name__ = f"type_callable({name})"
    return factory


def _attribute_factory(type_cls, attr, fn):
    def factory(recv):
        sig = _ntypes.Signature(None, (recv,))
        out = fn(_Context(f".{attr}"), _Builder(f".{attr}", [recv]), sig, _Arg(0))
        return _build_function(f"attr_{attr}", None, [recv], out)
    factory.__name__ = f"lower_attr({type_cls.__name__}, {attr!r})"
    return factory


def _takes(specs, args):
    if len(specs) != len(args):
        return False
    for spec, a in zip(specs, args):
        if isinstance(spec, type):
            if not isinstance(a, spec):
                return False
        elif getattr(spec, "name", None) != "any" and spec != a and \
                spec != getattr(a, "literal_type", None):
            return False
    return True


def _lowered(func, name, result, args):
    """The implementation of a call typed `result`, from the @lower body
    that takes the argument types, run once against the recorder."""
    for specs, fn in _LOWERINGS.get(func, ()):
        if _takes(specs, args):
            break
    else:
        shown = ", ".join(str(a) for a in args)
        raise TypeError(f"{name}({shown}) is typed {result} but no @lower({name}, ...) "
                        "takes these argument types")
    sig = _ntypes.Signature(result, tuple(args))
    tokens = tuple(_Arg(i) for i in range(len(args)))
    out = fn(_Context(name), _Builder(name, list(args)), sig, tokens)
    if isinstance(out, _Call) and out.args == tokens:
        return out.func                 # context.compile_internal(builder, f, sig, args)
    return _build_function(name, result, list(args), out)


def _build_function(name, result, argtys, out):
    """The implementation's source from what the lowering returned: a
    struct built member by member (in a one-element local array of its
    record), or an expression of the arguments and constants."""
    params = ", ".join(f"a{i}" for i in range(len(argtys)))
    lines = [f"def {name}({params}):"]
    ns = {}
    if isinstance(out, _Value):
        if out.proxy._type != result:
            raise NotImplementedError(f"the @lower body of {name} returns a "
                                      f"{out.proxy._type} where the typer gave {result}")
        lines += _struct_lines(out.proxy, ns, argtys)
    elif isinstance(out, _Recorded):
        lines.append(f"    return {_cast(result, out.source(ns, argtys), ns)}")
    else:
        _refuse(name, f"a returned {type(out).__name__} ({out!r})")
    import cujit.cuda
    ns["cuda"] = cujit.cuda
    text = "\n".join(lines) + "\n"
    exec(compile(text, f"<cujit lowering {name}>", "exec"), ns)
    return ns[name]


def _cast(result, src, ns):
    if isinstance(result, (_ntypes.Number, _ntypes.Boolean)) and \
            not isinstance(result, _ntypes.Literal):
        ns["RT"] = result
        return f"RT({src})"
    return src


def _struct_lines(proxy, ns, argtys):
    dt = _struct_dtype(proxy._type)
    ns["REC"] = dt
    lines = ["    r = cuda.local.array(1, dtype=REC)"]
    for member, field in zip((n for n, _ in _members(proxy._type)), dt.names):
        src = proxy._given.get(member)
        if src is not None:
            lines.append(f"    r[0].{field} = {src.source(ns, argtys)}")
        elif dt.fields[field][0].names is None:
            lines.append(f"    r[0].{field} = 0")
    lines.append("    return r[0]")
    return lines


# ---- the recording stand-ins a lowering body runs against ----

class _Recorded:
    """a value a lowering computes: its Python source in the implementation"""


class _Arg(_Recorded):
    """args[i] of a lowering"""

    def __init__(self, index):
        self.index = index

    def __eq__(self, other):
        return isinstance(other, _Arg) and other.index == self.index

    def __hash__(self):
        return self.index

    def source(self, ns, argtys):
        return f"a{self.index}"

    def __repr__(self):
        return f"args[{self.index}]"


class _Const(_Recorded):
    def __init__(self, value):
        self.value = value

    def source(self, ns, argtys):
        if isinstance(self.value, (bool, int, float)):
            return repr(self.value)
        _refuse("a lowering", f"a constant of type {type(self.value).__name__}")

    def __repr__(self):
        return f"constant {self.value!r}"


# LLVM builder methods the recorder understands: name -> Python operator
_BINOPS = {"add": "+", "fadd": "+", "sub": "-", "fsub": "-", "mul": "*", "fmul": "*",
           "fdiv": "/"}


class _Op(_Recorded):
    def __init__(self, op, a, b):
        self.op, self.a, self.b = op, a, b

    def source(self, ns, argtys):
        return f"({self.a.source(ns, argtys)} {self.op} {self.b.source(ns, argtys)})"


class _Member(_Recorded):
    """builder.extract_value(struct, k): member k of a struct argument"""

    def __init__(self, value, index):
        self.value, self.index = value, index

    def source(self, ns, argtys):
        if not isinstance(self.value, _Arg):
            _refuse("a lowering", "extract_value of a value that is no argument")
        t = argtys[self.value.index]
        if _model_of(t) is None:
            _refuse("a lowering", f"extract_value of a {t} (no struct model)")
        names = _struct_dtype(t).names
        if not isinstance(self.index, int) or not 0 <= self.index < len(names):
            _refuse("a lowering", f"extract_value index {self.index!r} of {t}")
        return f"{self.value.source(ns, argtys)}.{names[self.index]}"


class _Call(_Recorded):
    """context.compile_internal(builder, f, sig, args): f called"""

    def __init__(self, func, args):
        self.func, self.args = func, tuple(args)

    def source(self, ns, argtys):
        key = f"F{len([k for k in ns if k.startswith('F')])}"
        ns[key] = self.func
        return f"{key}({', '.join(a.source(ns, argtys) for a in self.args)})"


class _Value:
    """proxy._getvalue(): the struct built"""

    def __init__(self, proxy):
        self.proxy = proxy

    def __repr__(self):
        return f"the value of a struct proxy of {self.proxy._type}"


def _recorded(who, v):
    if not isinstance(v, _Recorded):
        _refuse(who, f"a value {v!r} that is no argument, constant or recorded operation")
    return v


def _refuse(who, what):
    raise NotImplementedError(
        f"the @lower body of {who} uses {what}: cujit runs lowerings against a recorder "
        "that notes struct members set from the arguments (cgutils.create_struct_proxy(t)"
        "(context, builder).x = args[0], ._getvalue()), constants (context.get_constant), "
        "builder.extract_value, add / sub / mul (and their f- forms, fdiv) and "
        "context.compile_internal; other LLVM builder code cannot run in cujit: write the "
        "function with @overload instead")


class _Builder:
    def __init__(self, who, argtys):
        object.__setattr__(self, "_who", who)

    def extract_value(self, value, index):
        return _Member(_recorded(self._who, value), index)

    def __getattr__(self, attr):
        op = _BINOPS.get(attr)
        if op is None:
            _refuse(self._who, f"builder.{attr}")

        def binop(a, b, name="", flags=()):
            return _Op(op, _recorded(self._who, a), _recorded(self._who, b))
        return binop


class _Context:
    def __init__(self, who):
        self._who = who

    def get_constant(self, ty, value):
        return _Const(value)

    def compile_internal(self, builder, func, sig, args, locals=None):
        return _Call(func, [_recorded(self._who, a) for a in args])

    def __getattr__(self, attr):
        _refuse(self.__dict__.get("_who", "a lowering"), f"context.{attr}")


class _StructProxy:
    """What create_struct_proxy(t)(context, builder) gives a lowering: member
    assignments are noted, _getvalue() is the struct."""

    def __init__(self, t, context, builder, value=None, ref=None):
        who = getattr(context, "_who", "a struct constructor")
        if value is not None or ref is not None:
            _refuse(who, "a struct proxy over an existing value (value= / ref=)")
        object.__setattr__(self, "_type", t)
        object.__setattr__(self, "_who", who)
        object.__setattr__(self, "_names", [n for n, _ in _members(t)])
        object.__setattr__(self, "_given", {})

    def __setattr__(self, attr, value):
        if attr not in self._names:
            raise AttributeError(f"the struct model of {self._type} has no member {attr!r} "
                                 f"(its members: {', '.join(self._names)})")
        self._given[attr] = _recorded(self._who, value)

    def __getattr__(self, attr):
        _refuse(self.__dict__["_who"], f"a read of the proxy's {attr!r}")

    def _getvalue(self):
        return _Value(self)


class _Cgutils:
    """numba.cuda.cgutils: create_struct_proxy, for constructors' lowerings"""

    @staticmethod
    def create_struct_proxy(t, kind="value"):
        if _model_of(t) is None:
            raise TypeError(f"create_struct_proxy({t}): the type has no registered struct "
                            "model")

        def make(context, builder, value=None, ref=None):
            return _StructProxy(t, context, builder, value, ref)
        return make

    def __getattr__(self, attr):
        _refuse("a lowering", f"cgutils.{attr}")

    def __repr__(self):
        return "<cujit.cuda.cgutils (create_struct_proxy only)>"


cgutils = _Cgutils()


def record_type(fields, itemsize):
    """The type of a record the frontend describes (fields: (name, dtype,
    offset) each): the struct-model type laid out so, else a Record type."""
    dt = np.dtype({"names": [f[0] for f in fields], "formats": [f[1] for f in fields],
                   "offsets": [f[2] for f in fields], "itemsize": itemsize})
    for t, sdt in list(_DTYPES.items()):
        if sdt == dt:
            return t
    return _ntypes.Record(dt)


# ---- instances as kernel arguments ----

def _argument_hook(cls):
    """A launch reads a host object with __array__ through NumPy: an instance
    of a class with a typeof_impl is given as a 0-d array of its type's
    record, fields from the instance's attributes."""
    if "__array__" in cls.__dict__:
        return

    def __array__(self, dtype=None, copy=None):
        t = typeof_impl(self)
        if not isinstance(t, _ntypes.Type) or _model_of(t) is None:
            raise TypeError(f"a {type(self).__name__} is typed {t}, which has no struct "
                            "model: cujit passes instances of struct models only")
        dt = _struct_dtype(t)
        members = [n for n, _ in _members(t)]
        try:
            values = tuple(getattr(self, m) for m in members)
        except AttributeError as e:
            raise TypeError(f"a {type(self).__name__} passed to a kernel as {t}: {e} (cujit "
                            "reads each struct member from the attribute of its name)") from None
        return np.array(values, dtype=dt)
    __array__.__cujit_struct__ = True
    cls.__array__ = __array__
