"""cujit.extending.overload (Numba's @overload for device code) without a GPU:
which implementation a call gets for its argument types (the CUDA C++ of
kernels calling overloaded functions), the Numba types the factories are
given, declining overloads, 'cuda' before 'generic', the cache of
implementations, register_jitable, numba-style dispatchers (njit) called as
device functions, and the errors, each at the call's line.  The kernels of
tests/kernels/overloads.py run on the CPU host shim (test_kernels_host.py)
and on the GPU (tests/gpu/test_kernels_gpu.py) against NumPy."""
import re
import sys
import types as pytypes

import numpy as np
import pytest

import cujit
from cujit import cuda
from cujit.cuda import types
from cujit.extending import overload, overload_attribute, overload_method, register_jitable


def body(src, name):
    """The C++ function whose comment names `name` (a kernel or device function)."""
    i = src.index("/* %s " % name)
    return re.sub(r"#line \d+.*\n", "", src[i:src.index("\n}\n", i)])


def line_of(func, text):
    """The file line of the first line of func's source holding text."""
    import inspect
    lines, first = inspect.getsourcelines(func)
    return first + next(i for i, s in enumerate(lines) if text in s)


# ---- choosing the implementation ----

def describe(x):
    raise NotImplementedError


SEEN = []


@overload(describe)
def ol_describe(x):
    SEEN.append(x)
    if isinstance(x, types.Array):
        def impl(x):
            return x[0] + 1000
        return impl
    if isinstance(x, types.Float):
        def impl(x):
            return x * 4.0
        return impl
    if isinstance(x, types.Integer):
        def impl(x):
            return x - 9
        return impl


def test_implementation_follows_argument_types():
    @cuda.jit
    def k(f, i, a, out):
        out[0] = describe(f) + describe(i) + describe(a)

    src = k.inspect_cuda("void(float32, int16, float64[::1], float64[::1])")
    # Numba's typing in cuda.jit: float32 * 4.0 is float64, int16 - 9 is int64
    assert "(double)x * 4.0" in src and "(long long)x - 9LL" in src and "+ 1000.0" in src
    kern = body(src, "k")
    assert kern.count("cj_dev_describe") == 3      # three implementations, one each


def test_factories_get_numba_types():
    seen = []

    def what(x):
        pass

    @overload(what)
    def ol_what(x):
        seen.append(x)
        return lambda x: 1

    @cuda.jit
    def k(f, i, a, out):
        out[0] = what(f) + what(i) + what(a) + what(3) + what(2.5) + what((f, i))

    k.inspect_cuda("void(float32, uint8, int32[:, ::1], float64[::1])")
    assert seen[:5] == [types.float32, types.uint8, types.Array(types.int32, 2, "C"),
                        types.int64, types.float64]    # Python numbers, as Numba types them
    assert seen[5] == types.Tuple((types.float32, types.uint8))
    assert all(isinstance(t, types.Type) for t in seen)


def test_factory_runs_once_per_types():
    calls = []

    def f(x):
        pass

    @overload(f)
    def ol(x):
        calls.append(x)
        return lambda x: x + 1

    @cuda.jit
    def k(a, out):
        out[0] = f(a[0]) + f(a[1])

    k.inspect_cuda("void(int32[::1], int32[::1])")
    k.inspect_cuda("void(int32[::1], int32[::1])")
    k.inspect_cuda("void(float32[::1], float32[::1])")
    assert calls == [types.int32, types.float32]


def g_ol(x):
    pass


@overload(g_ol, target="generic")
def ol_g_generic(x):
    return lambda x: x + 100


@overload(g_ol, target="cuda")
def ol_g_cuda(x):
    return lambda x: x + 7


def test_cuda_overload_wins_over_generic():
    @cuda.jit
    def k(x):
        x[0] = g_ol(x[0])
    src = k.inspect_cuda("void(int32[::1])")
    assert "x + 7" in src and "x + 100" not in src


def test_declined_overload_falls_to_next():
    def h(x):
        pass

    @overload(h, target="cuda")
    def first(x):
        if isinstance(x, types.Integer):
            return lambda x: x * 11

    @overload(h, target="generic")
    def second(x):
        return lambda x: x * 13

    @cuda.jit
    def k(a, b):
        a[0] = h(a[0])
        b[0] = h(b[0])
    src = k.inspect_cuda("void(int64[::1], float64[::1])")
    assert "x * 11" in src and "x * 13.0" in src


def test_defaults_and_keywords():
    def dv(out, x, y=5, z=6):
        pass

    @overload(dv)
    def ol_dv(out, x, y=5, z=6):
        def impl(out, x, y=5, z=6):
            out[0], out[1] = x + y, z
        return impl

    @cuda.jit
    def k(a, b, out):
        dv(out, a, z=b)
    src = k.inspect_cuda("void(int64, int64, int64[::1])")
    assert "x + 5" in src                       # y's default, bound at compile time
    assert re.search(r"cj_dev_dv\w*\(out, a, b\)", body(src, "k"))


def test_prefer_literal_gets_the_constant():
    def rep(x, n):
        pass

    seen = []

    @overload(rep, prefer_literal=True)
    def ol_rep(x, n):
        seen.append(n)
        if isinstance(n, types.IntegerLiteral):
            k = n.literal_value
            return lambda x, n: x * k

    @cuda.jit
    def kern(x):
        x[0] = rep(x[0], 17)
    assert "x * 17" in kern.inspect_cuda("void(int32[::1])")
    assert seen[0] == types.IntegerLiteral(17)


def test_literal_tried_after_declined_non_literal():
    def rep(x, n):
        pass

    @overload(rep)
    def ol_rep(x, n):
        if isinstance(n, types.IntegerLiteral):
            k = n.literal_value + 1
            return lambda x, n: x * k

    @cuda.jit
    def kern(x):
        x[0] = rep(x[0], 4)
    assert "x * 5" in kern.inspect_cuda("void(int32[::1])")


def test_overload_calling_overload_and_itself_as_impl():
    def inner(x):
        return x * 3 + 1          # compiled: the factory returns this function

    @overload(inner)
    def ol_inner(x):
        return inner

    def outer(x):
        pass

    @overload(outer)
    def ol_outer(x):
        def impl(x):
            return inner(x) + 2
        return impl

    @cuda.jit
    def k(x):
        x[0] = outer(x[0])
    src = k.inspect_cuda("void(int32[::1])")
    assert "(long long)x * 3LL + 1LL" in src and "+ 2LL" in src


def test_device_function_typed_twice_gets_two_implementations():
    @cuda.jit(device=True)
    def via(v):
        return describe(v)

    @cuda.jit
    def k(f, i, out):
        out[0] = via(f) + via(i)
    src = k.inspect_cuda("void(float64, int64, float64[::1])")
    assert "x * 4.0" in src and "x - 9" in src


def only_float(x):
    pass


@overload(only_float)
def ol_only_float(x):
    if isinstance(x, types.Float):
        return lambda x: x * 2.0


def test_types_that_widen_are_resolved_at_their_final_type():
    """s is an int at the call in typeinfer's first pass and float64 in the
    end: only the final type's resolution counts (Numba unifies first)."""
    @cuda.jit
    def k(x, out):
        s = 0
        for i in range(3):
            out[i] = only_float(s)
            s = s + x[i]
    src = k.inspect_cuda("void(float64[::1], float64[::1])")
    assert "cj_dev_only_float_f8(s)" in src


def test_overloaded_function_passed_to_device_function():
    def op(x):
        pass

    @overload(op)
    def ol_op(x):
        return lambda x: x - 42

    @cuda.jit(device=True)
    def apply(f, v):
        return f(v)

    @cuda.jit
    def k(x):
        x[0] = apply(op, x[0])
    assert "x - 42" in k.inspect_cuda("void(int32[::1])")


def test_register_jitable():
    @register_jitable
    def sq(v):
        return v * v + 3

    @cuda.jit
    def k(x):
        x[0] = sq(x[0])
    assert "v * v + 3" in k.inspect_cuda("void(float64[::1])")


def test_numba_dispatcher_called_as_device_function():
    """numba.njit's dispatcher (CPUDispatcher, in numba.core.registry), as
    cujit sees it: an object of a numba type with py_func; numba itself is
    never imported."""
    cls = type("CPUDispatcher", (), {"__module__": "numba.core.registry"})
    inner = cls()

    def _inner(v):
        return v * 5 - 1
    inner.py_func = _inner

    @cuda.jit
    def k(x):
        x[0] = inner(x[0])
    assert "(long long)v * 5LL - 1LL" in k.inspect_cuda("void(int32[::1])")


def test_object_with_py_func_outside_numba_is_not_read():
    cls = type("Thing", (), {"__module__": "mylib"})
    thing = cls()
    thing.py_func = lambda v: v

    @cuda.jit
    def k(x):
        x[0] = thing(x[0])
    with pytest.raises(cujit.CompileError, match="cannot call an object of type 'Thing'"):
        k.inspect_cuda("void(int32[::1])")


def test_numba_sees_generic_overloads_where_loaded(monkeypatch):
    registered = []
    fake = pytypes.ModuleType("numba.core.extending")
    fake.overload = lambda func, **kw: (lambda fac: registered.append((func, kw["target"])))
    monkeypatch.setitem(sys.modules, "numba.core.extending", fake)

    def f(x):
        pass
    overload(f, target="generic")(lambda x: None)
    overload(f, target="cuda")(lambda x: None)
    assert registered == [(f, "generic")]


# ---- methods: @overload_method ----

@overload_method(types.Array, "weighted")
def ol_weighted(arr, i, w=2.0):
    if arr.ndim == 1:
        def impl(arr, i, w=2.0):
            return arr[i] * w
        return impl


@overload_method(types.Float, "twice")
def ol_twice_float(x):
    return lambda x: x + x


@overload_method(types.Integer, "twice")
def ol_twice_int(x):
    return lambda x: x * 2 + 1000


def test_overload_method_by_receiver_type():
    @cuda.jit
    def k(a, n, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = a.weighted(i) + a.weighted(i, w=3.0) + a[i].twice() + n.twice()
    src = k.inspect_cuda("void(float64[::1], int32, float64[::1])")
    # the implementation's parameter i may be negative: counted from the end, as Numba
    assert "arr.data[cj_wrap(i, arr.shape[0])] * 2.0" in src
    assert "arr.data[cj_wrap(i, arr.shape[0])] * 3.0" in src
    assert "x + x" in src and "(long long)x * 2LL + 1000LL" in src
    assert re.search(r"cj_dev_weighted\w*\(a, i\)", body(src, "k"))


def test_overload_method_receiver_not_taken():
    def k(a, out):
        out[0] = out.twice()
    with pytest.raises(cujit.CompileTypeError) as e:
        cuda.jit(k).inspect_cuda("void(float64[::1], float64[::1])")
    assert "no overload of method 'twice' takes (float64[::1])" in str(e.value)
    assert e.value.lineno == line_of(k, "twice(")


def test_overload_method_declined_by_factory():
    @cuda.jit
    def k(a, out):
        out[0] = a.weighted(0)
    with pytest.raises(cujit.CompileTypeError, match="ol_weighted returned None"):
        k.inspect_cuda("void(float64[:, ::1], float64[::1])")


@overload_attribute(types.Array, "last")
def ol_last(arr):
    if arr.ndim == 1:
        return lambda arr: arr[arr.shape[0] - 1]


@overload_attribute(types.Complex, "phase_sq")
def ol_phase_sq(z):
    return lambda z: z.real * z.real - z.imag * z.imag


def test_overload_attribute():
    @cuda.jit
    def k(a, z, out):
        out[0] = a.last + z.phase_sq
    src = k.inspect_cuda("void(float32[::1], complex64, float32[::1])")
    # arr.shape[0] - 1 may be -1: counted from the end, as Numba does
    assert "arr.data[cj_wrap(arr.shape[0] - 1LL, arr.shape[0])]" in src
    assert re.search(r"cj_dev_last\w*\(a\) \+ cj_dev_phase_sq\w*\(z\)", body(src, "k"))


def test_overload_attribute_receiver_not_taken():
    def k(a, out):
        out[0] = out[0].last
    with pytest.raises(cujit.CompileTypeError) as e:
        cuda.jit(k).inspect_cuda("void(float32[::1], float32[::1])")
    assert "no overload of attribute 'last' takes (float32)" in str(e.value)
    assert e.value.lineno == line_of(k, ".last")


# ---- errors, at the call's line ----

def nothing_fits(x):
    pass


@overload(nothing_fits)
def ol_nothing_fits(x):
    if isinstance(x, types.Integer):
        return lambda x: x


def test_no_overload_takes_the_types():
    def k(x):
        x[0] = nothing_fits(x[0])
    with pytest.raises(cujit.CompileTypeError) as e:
        cuda.jit(k).inspect_cuda("void(float32[::1])")
    assert isinstance(e.value, TypeError)
    assert "no overload of 'nothing_fits' takes (float32)" in str(e.value)
    assert "ol_nothing_fits returned None" in str(e.value)
    assert e.value.lineno == line_of(k, "nothing_fits(")


def test_factory_raising_is_reported_at_the_call():
    def bad(x):
        pass

    @overload(bad)
    def ol_bad(x):
        raise ValueError("no such mode")

    def k(x):
        x[0] = 1
        x[1] = bad(x[0])
    with pytest.raises(cujit.CompileError) as e:
        cuda.jit(k).inspect_cuda("void(int32[::1])")
    assert "ol_bad of 'bad' raised ValueError: no such mode" in str(e.value)
    assert e.value.lineno == line_of(k, "bad(")


def test_factory_returning_no_function():
    def bad(x):
        pass

    @overload(bad)
    def ol_bad(x):
        return 42

    @cuda.jit
    def k(x):
        x[0] = bad(x[0])
    with pytest.raises(cujit.CompileTypeError, match="must return a Python function"):
        k.inspect_cuda("void(int32[::1])")


def test_only_cpu_overloads():
    def cpu_only(x):
        pass

    @overload(cpu_only, target="cpu")
    def ol(x):
        return lambda x: x

    @cuda.jit
    def k(x):
        x[0] = cpu_only(x[0])
    with pytest.raises(cujit.CompileTypeError, match="no overload for the CUDA target"):
        k.inspect_cuda("void(int32[::1])")


def test_keyword_errors():
    def kw(a, b=1):
        pass

    @overload(kw)
    def ol(a, b=1):
        def impl(a, b=1):
            return a + b
        return impl

    @cuda.jit
    def k1(x):
        x[0] = kw(x[0], c=2)

    @cuda.jit
    def k2(x):
        x[0] = kw(x[0], 1, 2)
    with pytest.raises(cujit.CompileTypeError, match="got an unexpected keyword|no parameter 'c'"):
        k1.inspect_cuda("void(int32[::1])")
    with pytest.raises(cujit.CompileTypeError, match="takes|positional"):
        k2.inspect_cuda("void(int32[::1])")


def test_star_args_implementation():
    def va(first, *rest):
        pass

    seen = []

    @overload(va)
    def ol(first, *rest):
        seen.append(rest)
        if len(rest) == 2:
            def impl(first, *rest):
                return first * 100 + rest[0] * 10 + rest[1]
        else:
            def impl(first, *rest):
                return first * 7
        return impl

    @cuda.jit
    def k(x):
        x[0] = va(x[0], x[1], x[2])
        x[1] = va(x[3])
    src = k.inspect_cuda("void(int32[::1])")
    assert "first * 100" in src and "first * 7" in src
    assert seen == [(types.int32, types.int32), ()]


def test_function_through_star_args_is_an_error():
    def va(*rest):
        pass

    @overload(va)
    def ol(*rest):
        def impl(*rest):
            return 1
        return impl

    @cuda.jit
    def k(x):
        x[0] = va(x[0], len)
    with pytest.raises(cujit.CompileTypeError, match=r"cannot be passed through \*args"):
        k.inspect_cuda("void(int32[::1])")


def test_decorator_errors():
    with pytest.raises(ValueError, match="unknown target"):
        overload(nothing_fits, target="tpu")
    with pytest.raises(TypeError, match="Python functions"):
        overload(len)
    with pytest.raises(TypeError, match="type class"):
        overload_method(np.float32, "foo")
    with pytest.raises(ValueError, match="unknown target"):
        overload_method(types.Array, "foo", target="tpu")
    with pytest.raises(TypeError, match="type class"):
        overload_attribute("Array", "foo")


def test_overloaded_function_as_value_is_an_error():
    @cuda.jit
    def k(x):
        f = nothing_fits
        x[0] = 1
    with pytest.raises(cujit.CompileError, match="can only be called"):
        k.inspect_cuda("void(int32[::1])")


def test_ptx_compiles():
    @cuda.jit
    def k(f, i, out):
        out[0] = describe(f) + describe(i) + g_ol(i)
    ptx = k.inspect_ptx("void(float32, int32, float64[::1])")
    assert ".entry" in ptx


# ---- the front key: the factories and their implementations are keyed ----

FK_MOD = '''import os
from cujit import cuda
from cujit.extending import overload
K = float(os.environ.get("FK_K", "2.5"))


def grow(x):
    pass


@overload(grow, target="cuda")
def ol_grow(x):
    if str(x) == "float32":
        def impl(x):
            return x * K + %s
        return impl


import fkmeth  # noqa: F401  (x.first_plus: registered there, read by no name here)


@cuda.jit
def k(x):
    x[0] = grow(x[0])
    x[1] = x.first_plus(1.0)
'''

FK_METH = '''from cujit.cuda import types
from cujit.extending import overload_method


@overload_method(types.Array, "first_plus")
def ol_first_plus(a, v):
    def impl(a, v):
        return a[0] + v * %s
    return impl
'''

FK_RUN = '''import fkomod
s = fkomod.k.inspect_cuda("void(float32[::1])")
print(" | ".join(l.strip() for l in s.splitlines() if l.strip().startswith(("return x",
                                                                          "return a",
                                                                          "return (double)"))))
'''


def _fk_run(tmp_path, **env):
    import os
    import subprocess
    e = dict(os.environ, CUJIT_LOG="1", CUJIT_CACHE_DIR=str(tmp_path / "cache"),
             PYTHONPATH=os.pathsep.join([str(tmp_path)] + os.environ.get("PYTHONPATH", "").split(
                 os.pathsep)), PYTHONDONTWRITEBYTECODE="1", **env)
    r = subprocess.run([sys.executable, "-c", FK_RUN], env=e, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    state = [ln for ln in r.stderr.splitlines() if ": front key " in ln][0]
    return r.stdout.strip(), state.split(": front key ")[1].split()[0].rstrip(":")


def test_front_key_holds_factories_and_implementations(tmp_path):
    def run(add, mul, **env):
        for name, text in (("fkomod.py", FK_MOD % add), ("fkmeth.py", FK_METH % mul)):
            path = tmp_path / name
            if not path.exists() or path.read_text() != text:   # a file's identity is keyed
                path.write_text(text)
        return _fk_run(tmp_path, **env)
    # Numba's typing in cuda.jit: float32 with a Python float computes in float64
    first = "return (double)x * 2.5 + 1.0; | return (double)a.data[0LL] + 1.0 * 2.0;"
    assert run("1.0", "2.0") == (first, "miss")
    assert run("1.0", "2.0") == (first, "hit")
    assert run("1.0", "2.0", FK_K="4.0") == (first.replace("2.5", "4.0"), "miss")
    # an implementation changes: of the function, of the method (in a file the kernel's
    # code names nothing of)
    assert run("3.0", "2.0") == (first.replace("+ 1.0;", "+ 3.0;"), "miss")
    assert run("3.0", "2.0")[1] == "hit"
    assert run("3.0", "5.0") == (first.replace("+ 1.0;", "+ 3.0;").replace("* 2.0;", "* 5.0;"),
                                 "miss")
    assert run("3.0", "5.0")[1] == "hit"


def test_module_spellings():
    import importlib
    mod = importlib.import_module("cujit.cuda.extending")   # numba.cuda.extending's place
    assert mod.overload is overload and cuda.extending is mod
    assert mod.register_jitable is register_jitable


def test_intrinsic_refused_where_it_decorates():
    """Numba's @intrinsic builds LLVM IR; cujit says so at the decorator, in
    both of its forms, and names what to write instead."""
    from cujit.cuda.extending import intrinsic

    def identity(typingctx, x):
        return x(x), lambda context, builder, sig, args: args[0]
    for deco in (lambda f: intrinsic(f), lambda f: intrinsic(prefer_literal=True)(f)):
        with pytest.raises(NotImplementedError, match=r"@intrinsic is not supported.*"
                           r"cuda\.declare_device"):
            deco(identity)
