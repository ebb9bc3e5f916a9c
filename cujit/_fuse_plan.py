"""The source analysis of @cujit.fuse (cujit/_fuse.py), imported at the first
call: the parameters a fused function writes in place and its final
reduction's op, axis and keepdims, which the C side needs before it
compiles.  Everything else, errors included, comes from the compiler."""
import ast
import builtins
import inspect
import textwrap

from cujit._cujit import CompileError

# the reductions a fused function may end in (common/cj.h's RedOp)
_RED = {"sum": 1, "prod": 2, "min": 3, "amin": 3, "max": 4, "amax": 4, "mean": 5, "any": 6,
        "all": 7, "argmin": 8, "argmax": 9}
_METHOD_RED = {"sum": 1, "prod": 2, "min": 3, "max": 4, "mean": 5, "any": 6, "all": 7,
               "argmin": 8, "argmax": 9}


def _error(func, node, msg):
    """A CompileError at node (a line of func's source)."""
    code = func.__code__
    line = code.co_firstlineno + node.lineno - 1
    try:
        text = inspect.getsourcelines(func)[0][node.lineno - 1]
    except (OSError, IndexError):
        text = None
    return CompileError(msg, (code.co_filename, line, node.col_offset + 1, text))


class _Plan:
    """What the C side needs from the source before compiling: the
    parameters written in place, and the final reduction's op, axis and
    keepdims."""

    def __init__(self, func):
        self.func = func
        try:
            src = textwrap.dedent(inspect.getsource(func))
        except (OSError, TypeError) as e:
            raise TypeError("cujit.fuse needs the function's source: %s" % e) from None
        tree = ast.parse(src)
        fdef = tree.body[0] if tree.body else None
        if not isinstance(fdef, ast.FunctionDef):
            raise TypeError("cujit.fuse decorates a function defined with def")
        a = fdef.args
        self.params = [p.arg for p in a.posonlyargs + a.args]
        self.locals = set(self.params)
        for node in ast.walk(fdef):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                self.locals.add(node.id)
        self.inplace = self._inplace(fdef)
        self.op, self.axis, self.keepdims = 0, None, False
        last = fdef.body[-1]
        if isinstance(last, ast.Return) and isinstance(last.value, ast.Call):
            self._reduction(last.value)
        if self.op and self.inplace:
            raise _error(func, last, "a fused function that ends in a reduction cannot also "
                         "write into its arguments")

    def _inplace(self, fdef):
        """parameters that are the target of x += ... or of out=x; one that is
        also rebound (x = ...) would write a new array's values into the
        argument, which NumPy does not do: an error"""
        found, rebound = {}, {}
        for node in ast.walk(fdef):
            if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                found.setdefault(node.target.id, node)
            elif isinstance(node, ast.Call):
                for kw in node.keywords:
                    if kw.arg == "out" and isinstance(kw.value, ast.Name):
                        found.setdefault(kw.value.id, kw.value)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.For)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            rebound.setdefault(n.id, n)
        for p in self.params:
            if p in found and p in rebound:
                raise _error(self.func, rebound[p], "argument '%s' is written in place and "
                             "also rebound to a new value; NumPy would leave the argument "
                             "alone after the rebinding: use another name" % p)
        return tuple(i for i, p in enumerate(self.params) if p in found)

    def _env(self):
        f = self.func
        env = dict(builtins.__dict__)
        env.update(f.__globals__)
        if f.__closure__:
            for name, cell in zip(f.__code__.co_freevars, f.__closure__):
                try:
                    env[name] = cell.cell_contents
                except ValueError:
                    pass
        return env

    def _value(self, node, what):
        """a constant argument of the reduction (axis, keepdims)"""
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        if names & self.locals:
            raise _error(self.func, node, "the %s of a fused reduction must be known when it "
                         "compiles (a constant, a global or a closure value)" % what)
        try:
            return eval(compile(ast.Expression(node), "<fuse>", "eval"), self._env())
        except Exception as e:
            raise _error(self.func, node, "the %s of this reduction raised %s: %s"
                         % (what, type(e).__name__, e)) from None

    def _callee(self, fn):
        """the reduction a callee names (RedOp), 0 if none"""
        if isinstance(fn, ast.Attribute):
            root = fn.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if not (isinstance(root, ast.Name) and root.id not in self.locals):
                return 0, True      # a method of a value: x.sum()
        if not isinstance(fn, (ast.Name, ast.Attribute)):
            return 0, False
        if isinstance(fn, ast.Name) and fn.id in self.locals:
            return 0, False
        try:
            obj = eval(compile(ast.Expression(fn), "<fuse>", "eval"), self._env())
        except Exception:
            return 0, False     # the compiler says what is wrong, at its line
        name = getattr(obj, "__name__", "")
        mod = getattr(obj, "__module__", None) or ""
        lib = "ufunc" in type(obj).__name__ or mod.split(".")[0] in ("numpy", "cupy", "cujit")
        return (_RED.get(name, 0) if lib else 0), False

    def _reduction(self, call):
        fn = call.func
        op, method = self._callee(fn)
        if method:
            op = _METHOD_RED.get(fn.attr, 0)
            pos = {0: "axis"}           # x.sum(axis, dtype, out, keepdims)
        else:
            pos = {1: "axis"}           # np.sum(a, axis, dtype, out, keepdims)
        if not op:
            return
        self.op = op
        first = 0 if method else 1
        for i, arg in enumerate(call.args[first:], first):
            if pos.get(i) != "axis":
                raise _error(self.func, arg, "a fused reduction takes the array, axis= and "
                             "keepdims=; pass the others by keyword if at all")
            self.axis = self._value(arg, "axis")
        for kw in call.keywords:
            if kw.arg == "axis":
                self.axis = self._value(kw.value, "axis")
            elif kw.arg == "keepdims":
                self.keepdims = bool(self._value(kw.value, "keepdims"))
            else:
                raise _error(self.func, kw.value, "a fused reduction takes axis= and keepdims=, "
                             "not %s=" % kw.arg)
        ax = self.axis
        ok = ax is None or isinstance(ax, int) or (
            self.op < _RED["argmin"] and isinstance(ax, tuple)
            and all(isinstance(v, int) for v in ax))
        if not ok:
            raise _error(self.func, call, "axis must be None, an int%s, not %r"
                         % ("" if self.op >= _RED["argmin"] else " or a tuple of ints", ax))
