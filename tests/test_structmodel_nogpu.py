"""Numba's struct-model declarations (cujit/_structs.py) without a GPU: the
declarations give a record dtype, the kernels that construct, store and read
the struct compile to PTX, their generated CUDA run on the CPU (the host shim
of test_records_host.py) gives what NumPy gives on fresh random data, and
what cujit cannot do (LLVM builder code in a @lower body, a model that is
not a struct of numbers) is a clear error at the user's line."""
import os
import sys

import numpy as np
import pytest

import cujit
from cujit import cuda
from cujit.cuda import cgutils, int32, types
from cujit.cuda.cudaimpl import lower, lower_attr
from cujit.cuda.extending import (core_models, make_attribute_wrapper, models,
                                  register_model, type_callable)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "gpu"))
from test_kernels_host import CXX  # noqa: E402
from test_records_host import host_run, tmp  # noqa: E402,F401  (tmp: a fixture)
from test_structmodel_gpu import Mixed, Pair, mixed_t, pair_t  # noqa: E402

rng = np.random.default_rng()
needs_cxx = pytest.mark.skipif(CXX is None, reason="no host C++ compiler")


def test_struct_model_is_a_record_dtype():
    assert pair_t.__cujit_dtype__ == np.dtype([("x", np.int32), ("y", np.int32)], align=True)
    dt = mixed_t.__cujit_dtype__
    assert dt.names == ("tag", "value", "n")          # the wrapper's Python name
    assert [dt.fields[n][1] for n in dt.names] == [0, 8, 16]
    assert dt.itemsize == 24 and dt.isalignedstruct
    assert models is core_models and models.StructModel is core_models.StructModel


def test_array_type_of_a_struct():
    t = pair_t[::1]
    assert t.ndim == 1 and t.layout == "C"
    assert t.dtype.dtype == pair_t.__cujit_dtype__


def test_declarations_from_cujit_cuda():
    import cujit.cuda.cudaimpl as ci
    from cujit.cuda import extending
    assert ci.lower is lower and extending.type_callable is type_callable
    assert cuda.cgutils is cgutils


@needs_cxx
def test_local_array_of_constructed_structs_on_host(tmp):
    @cuda.jit
    def k(a, b, outx, outy):
        arr = cuda.local.array(16, dtype=pair_t)
        for i in range(16):
            obj = Pair(a[i], b[i])
            arr[i] = obj
        for i in range(16):
            outx[i] = arr[15 - i].x
            outy[i] = arr[15 - i].y

    a = rng.integers(-1000, 1000, 16).astype(np.int32)
    b = rng.integers(-1000, 1000, 16).astype(np.int32)
    ox = np.zeros(16, np.int32)
    oy = np.zeros(16, np.int32)
    host_run(k, (a, b, ox, oy), 1, tmp)
    np.testing.assert_array_equal(ox, a[::-1])
    np.testing.assert_array_equal(oy, b[::-1])


@needs_cxx
def test_constants_padding_and_member_writes_on_host(tmp):
    @cuda.jit
    def k(v, n, out_v, out_n, out_tag):
        i = cuda.grid(1)
        if i < v.size:
            loc = cuda.local.array(1, dtype=mixed_t)
            loc[0] = Mixed(v[i], n[i])
            loc[0].n = loc[0].n + 1
            out_v[i] = loc[0].value
            out_n[i] = loc[0].n
            out_tag[i] = loc[0].tag

    size = 20
    v = rng.standard_normal(size)
    n = rng.integers(-1000, 1000, size).astype(np.int32)
    ov, on, ot = np.zeros(size), np.zeros(size, np.int32), np.zeros(size, np.int8)
    host_run(k, (v, n, ov, on, ot), size, tmp)
    np.testing.assert_array_equal(ov, v)
    np.testing.assert_array_equal(on, n + 1)
    np.testing.assert_array_equal(ot, np.full(size, 7, np.int8))


@needs_cxx
def test_instance_argument_on_host(tmp):
    @cuda.jit
    def k(p, a, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = a[i] * p.x + p.y

    x, y = (int(v) for v in rng.integers(-50, 50, 2))
    a = rng.integers(-1000, 1000, 30).astype(np.int32)
    out = np.zeros(30, np.int64)
    src = k.inspect_cuda(Pair(x, y), a, out)
    assert "cj_rec_" in src.split("__global__", 1)[1].split(",", 1)[0]
    # the instance is passed as its record (what a launch makes of it)
    rec = np.asarray(Pair(x, y))
    assert rec.dtype == pair_t.__cujit_dtype__ and rec.shape == ()
    host_run(k, (rec[()], a, out), 30, tmp)
    np.testing.assert_array_equal(out, a.astype(np.int64) * x + y)


def test_shared_array_of_structs_compiles_to_ptx():
    @cuda.jit
    def k(a, out):
        arr = cuda.shared.array(64, dtype=pair_t)
        i = cuda.grid(1)
        arr[i] = Pair(a[i], a[i])
        cuda.syncthreads()
        out[i] = arr[63 - i].x + arr[63 - i].y

    a = np.zeros(64, np.int32)
    ptx = k.inspect_ptx(a, a.copy())
    assert ".shared" in ptx


def test_struct_dtype_in_a_shared_array_from_numpy_support():
    rec = np.dtype([("i", np.int32), ("j", np.float32, (3, 2))])
    dt = cuda.numpy_support.from_dtype(rec) if hasattr(cuda, "numpy_support") else \
        cujit.cuda.types.Record(rec)

    @cuda.jit
    def k(x, y):
        sm = cuda.shared.array(16, dtype=dt)
        sm[cuda.threadIdx.x] = x[cuda.threadIdx.x]
        cuda.syncthreads()
        y[cuda.threadIdx.x] = sm[15 - cuda.threadIdx.x]

    a = np.zeros(16, rec)
    assert "__shared__" in k.inspect_cuda(a, a.copy())


# ---- what cujit cannot do: errors at the user's line ----

class Opaque:
    pass


class OpaqueType(types.Type):
    def __init__(self):
        super().__init__(name="OpaqueType")


opaque_t = OpaqueType()


@register_model(OpaqueType)
class OpaqueModel(core_models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("a", int32), ("b", int32)])


@type_callable(Opaque)
def type_opaque(context):
    def typer(x):
        if isinstance(x, types.Integer):
            return opaque_t
        if isinstance(x, types.Float):
            return types.float64            # no struct model: refused
    return typer


@lower(Opaque, types.Integer)
def lower_opaque(context, builder, sig, args):
    o = cgutils.create_struct_proxy(opaque_t)(context, builder)
    o.a = builder.sdiv(args[0], args[0])
    return o._getvalue()


def test_builder_code_is_refused_at_the_call():
    @cuda.jit
    def k(out):
        o = Opaque(out[0])
        out[1] = o.a

    with pytest.raises(cujit.CompileError, match=r"builder\.sdiv.*@overload") as e:
        k.inspect_cuda(np.zeros(2, np.int32))
    assert e.value.lineno == k.py_func.__code__.co_firstlineno + 2


def test_a_call_no_lowering_takes_is_refused():
    @cuda.jit
    def k(out):
        o = Opaque(out[0])      # noqa: F841

    with pytest.raises(cujit.CompileError, match="no @lower"):
        k.inspect_cuda(np.zeros(2))


# ---- what the recorder understands: member reads, arithmetic, constants, calls ----

class Span:
    pass


class SpanType(types.Type):
    def __init__(self):
        super().__init__(name="SpanType")


span_t = SpanType()


@register_model(SpanType)
class SpanModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("lo", types.float64), ("hi", types.float64)])


make_attribute_wrapper(SpanType, "lo", "lo")
make_attribute_wrapper(SpanType, "hi", "hi")


@type_callable(Span)
def type_span(context):
    def typer(lo, hi):
        if isinstance(lo, types.Float) and isinstance(hi, types.Float):
            return span_t
    return typer


@lower(Span, types.Float, types.Float)
def lower_span(context, builder, sig, args):
    s = cgutils.create_struct_proxy(sig.return_type)(context, builder)
    s.lo = args[0]
    s.hi = builder.fadd(args[0], builder.fmul(args[1], context.get_constant(types.float64, 2.0)))
    return s._getvalue()


@lower_attr(SpanType, "width")
def span_width(context, builder, sig, arg):
    lo = builder.extract_value(arg, 0)
    hi = builder.extract_value(arg, 1)
    return builder.fsub(hi, lo)


def answer(x=None):
    raise NotImplementedError


@type_callable(answer)
def type_answer(context):
    def typer(x=None):
        if x is None:
            return types.int32
        if isinstance(x, types.Float):
            return x
    return typer


@lower(answer)
def answer_nullary(context, builder, sig, args):
    return context.get_constant(sig.return_type, 42)


@lower(answer, types.Float)
def answer_unary(context, builder, sig, args):
    def impl(x):
        return 3.0 * x
    return context.compile_internal(builder, impl, sig, args)


@needs_cxx
def test_recorded_arithmetic_attribute_and_calls_on_host(tmp):
    @cuda.jit
    def k(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            s = Span(a[i], b[i])
            out[i, 0] = s.lo
            out[i, 1] = s.hi
            out[i, 2] = s.width
            out[i, 3] = answer()
            out[i, 4] = answer(a[i])

    n = 12
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    out = np.zeros((n, 5))
    src = k.inspect_cuda(a, b, out)
    assert "cj_rec_" in src
    flat = np.zeros(n * 5)
    # the shim takes 1-d arrays: the same kernel over a flat view
    @cuda.jit
    def k1(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            s = Span(a[i], b[i])
            out[5 * i] = s.lo
            out[5 * i + 1] = s.hi
            out[5 * i + 2] = s.width
            out[5 * i + 3] = answer()
            out[5 * i + 4] = answer(a[i])

    host_run(k1, (a, b, flat), n, tmp)
    got = flat.reshape(n, 5)
    hi = a + b * 2.0
    np.testing.assert_array_equal(got[:, 0], a)
    np.testing.assert_array_equal(got[:, 1], hi)
    np.testing.assert_array_equal(got[:, 2], hi - a)
    np.testing.assert_array_equal(got[:, 3], np.full(n, 42.0))
    np.testing.assert_array_equal(got[:, 4], 3.0 * a)


def test_a_declined_call_is_a_type_error():
    @cuda.jit
    def k(out):
        o = Pair(out[0], 1.5)      # noqa: F841

    with pytest.raises(cujit.CompileTypeError, match="no overload of 'Pair'"):
        k.inspect_cuda(np.zeros(2, np.int32))


def test_members_must_be_numbers():
    class BadType(types.Type):
        def __init__(self):
            super().__init__(name="BadType")

    @register_model(BadType)
    class BadModel(models.StructModel):
        def __init__(self, dmm, fe_type):
            super().__init__(dmm, fe_type, [("a", types.int32[:])])

    with pytest.raises(TypeError, match="member 'a' has type"):
        BadType().__cujit_dtype__


def test_register_model_takes_struct_models_only():
    class T(types.Type):
        pass

    with pytest.raises(TypeError, match="StructModel"):
        register_model(T)(object)
    with pytest.raises(TypeError, match="type class"):
        register_model(int)


def test_one_attribute_name_per_member():
    class T2(types.Type):
        pass

    make_attribute_wrapper(T2, "a", "a")
    with pytest.raises(ValueError, match="one attribute"):
        make_attribute_wrapper(T2, "a", "b")


def test_record_parameter_rebound_to_a_call_compiles():
    rec = pair_t.__cujit_dtype__

    @cuda.jit(device=True)
    def g(r, a, b):
        r = Pair(a, b)
        return r.x

    @cuda.jit
    def k(x, out):
        out[0] = g(x[0], out[0], out[1])

    # the rebound r is a variable of its own (a web), holding the new record
    assert ".entry" in k.inspect_ptx(np.zeros(1, rec), np.zeros(2, np.int32))


def test_numba_typing_error_in_a_factory_is_a_type_error():
    class TypingError(Exception):
        pass
    TypingError.__module__ = "numba.core.errors"

    def mock(x):
        pass

    from cujit.cuda.extending import overload

    @overload(mock)
    def ol(x):
        raise TypingError("\x1b[1mcannot type mock(%s)\x1b[0m" % x)

    @cuda.jit
    def k(out):
        mock(out[0])

    with pytest.raises(cujit.CompileTypeError, match=r"cannot type mock\(complex128\)"):
        k.inspect_cuda(np.zeros(1, np.complex128))


# ---- Numba's words in the shared / local array errors (its tests match them) ----

def _shape_scalar(A):
    sa = cuda.shared.array(shape=A[0], dtype=cujit.cuda.float32)
    A[0] = sa[0]


def _shape_tuple(A):
    sa = cuda.shared.array(shape=(1, A[0]), dtype=cujit.cuda.float32)
    A[0] = sa[0, 0]


@pytest.mark.parametrize("fn, sig, shown", [
    (_shape_scalar, "void(float32[:])", "shape=float32"),
    (_shape_scalar, "void(int32[:])", "shape=int32"),
    (_shape_tuple, "void(int32[:])", "shape=Tuple(Literal[int](1), int32)"),
    (_shape_tuple, "void(float32[:, :])", "shape=Tuple(Literal[int](1), array(float32, 1d, A))"),
])
def test_shape_not_constant_in_numbas_words(fn, sig, shown):
    with pytest.raises(cujit.CompileTypeError) as e:
        cuda.jit(sig)(fn)
    msg = str(e.value)
    assert "positive integer constants" in msg
    assert "No implementation of function Function(<function shared.array" in msg
    assert ("found for signature:\n \n >>> array(%s, dtype=class(float32))" % shown) in msg


def test_invalid_string_dtype_in_numbas_words():
    def f(x):
        l = cuda.local.array(10, dtype="int33")
        x[0] = l[0]

    with pytest.raises(cujit.CompileTypeError, match="Invalid NumPy dtype specified: 'int33'"):
        cuda.jit("void(int32[::1])")(f)


# ---- @overload's strict signature check (Numba's, on by default) ----

def _gen_overload(impl, strict=True):
    def target(a, b, kw=None):
        pass

    from cujit.cuda.extending import overload

    @overload(target, strict=strict)
    def ol(a, b, kw=None):
        return impl

    @cuda.jit
    def k(x, out):
        out[0] = target(x, 2, kw=3)
    return k


def _kw_default(a, b, kw=12):
    return a


def _kw_name(a, b, kwarg=None):
    return a


def _arg_name(z, b, kw=None):
    return z


def _star(z, *args, kw=None):
    return z


@pytest.mark.parametrize("impl, words, shown", [
    (_kw_default, "keyword argument default values", '<Parameter "kw=12">'),
    (_kw_name, "keyword argument names", '<Parameter "kwarg=None">'),
    (_arg_name, "argument names", '<Parameter "z">'),
    (_star, "argument names", "First difference: 'z'"),
])
def test_strict_signatures(impl, words, shown):
    with pytest.raises(cujit.CompileTypeError) as e:
        _gen_overload(impl).inspect_cuda(1, np.zeros(1, np.int64))
    msg = str(e.value)
    assert "Typing and implementation arguments differ in " + words in msg
    assert shown in msg
    # strict=False takes it (and is another front key: no cached answer)
    if impl in (_kw_default, _arg_name):    # (the others cujit cannot call this way)
        assert "cj_" in _gen_overload(impl, strict=False).inspect_cuda(1, np.zeros(1, np.int64))


def test_strict_refuses_var_keyword():
    def target(a):
        pass

    from cujit.cuda.extending import overload

    @overload(target)
    def ol(a, **kws):
        return lambda a: a

    @cuda.jit
    def k(out):
        out[0] = target(out[0])

    with pytest.raises(cujit.CompileTypeError, match=r"VAR_KEYWORD.*'\*\*kws'"):
        k.inspect_cuda(np.zeros(1))
