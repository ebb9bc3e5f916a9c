"""The array stdlib (DeviceArray operators and methods, cujit.sqrt & co)
against the fake libcuda, each scenario in a fresh process started by
tests/test_stdlib_nogpu.py:

    python stdlib_scenarios.py NAME

Kernels compile through NVRTC for real but do not run here, so what is
checked is everything but kernel results: result dtypes and shapes against
NumPy's for every dtype pair (on empty arrays, which type without compiling),
that every bundled kernel compiles (on small arrays), error types and
messages, views (their memory is read back: views need no kernel), fills of
contiguous arrays (a memset), laziness of the import, and that nothing
leaks."""
import gc
import itertools
import operator
import subprocess
import sys
import warnings

import numpy as np

import cujit

rng = np.random.default_rng()
D = cujit.to_device
DTYPES = [np.dtype(t) for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8,
                                np.uint16, np.uint32, np.uint64, np.float16, np.float32,
                                np.float64, np.complex64, np.complex128)]
REAL = [d for d in DTYPES if d.kind != "c"]
SCALARS = [2, 2.5, True, 1j, np.float32(2), np.int8(3), np.uint64(5), -3, 300]
BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
          operator.mod, operator.pow, operator.and_, operator.or_, operator.xor,
          operator.lshift, operator.rshift, operator.lt, operator.le, operator.eq,
          operator.ne, operator.gt, operator.ge, divmod]
INPLACE = [operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ifloordiv,
           operator.imod, operator.ipow, operator.iand, operator.ior, operator.ixor,
           operator.ilshift, operator.irshift]
MATH = ["sqrt", "exp", "log", "sin", "cos", "tan", "tanh", "floor", "ceil", "isnan"]
# what NumPy computes and the device refuses (clearly): nothing now
DEVICE_GAPS = set()


def FAKE():
    import ctypes
    return ctypes.CDLL("libcuda.so.1")


def outcome(f):
    """A result's dtype name(s), or the exception's type name."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = f()
        if isinstance(r, tuple):
            return tuple(v.dtype.name for v in r)
        return r.dtype.name
    except Exception as e:
        return type(e).__name__ + (" (device)" if "on the device" in str(e) else "")


def compare(name, ref, got, bad):
    if ref == got:
        return
    if got == "TypeError (device)" and name in DEVICE_GAPS and not ref.endswith("Error"):
        return                                  # a known gap, refused clearly
    bad.append((name, ref, got))


def rand(shape, dtype):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        return rng.integers(1, 100, shape).astype(dt)
    if dt.kind == "c":
        return (rng.uniform(-3, 3, shape) + 1j * rng.uniform(-3, 3, shape)).astype(dt)
    return rng.uniform(-3, 3, shape).astype(dt)


def finish(name, bad):
    for b in bad[:40]:
        print("MISMATCH", *b)
    assert not bad, "%d mismatches" % len(bad)
    print(name, "ok")


# ---- scenarios ----

def lazy_import():
    """import cujit loads no stdlib; the first operator, method or function does."""
    code = ("import sys, cujit\n"
            "assert 'cujit._stdlib' not in sys.modules and 'numpy' not in sys.modules\n"
            "assert not [m for m in sys.modules if m.startswith('cujit_stdlib')]\n"
            "x = cujit.zeros(3)\n"
            "y = x + 1\n"
            "assert 'cujit._stdlib' in sys.modules and y.dtype.name == 'float64'\n"
            "assert 'cujit_stdlib_elementwise' in sys.modules\n"
            "assert 'cujit_stdlib_reductions' not in sys.modules\n"
            "x.sum()\n"
            "assert 'cujit_stdlib_reductions' in sys.modules\n"
            "from cujit import sqrt, arange\n"
            "assert sqrt is cujit.sqrt and 'sum' in dir(cujit)\n"
            "try:\n"
            "    cujit.no_such_name\n"
            "except AttributeError:\n"
            "    pass\n"
            "else:\n"
            "    raise AssertionError\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    print("lazy_import ok")


def binary_dtypes():
    """Every binary operator, every dtype pair and Python / NumPy scalars on
    either side: NumPy's result dtype or NumPy's exception."""
    bad = []
    for op in BINARY:
        name = op.__name__.strip("_")
        for a, b in itertools.product(DTYPES, DTYPES):
            x, y = np.empty(0, a), np.empty(0, b)
            compare(name, outcome(lambda: op(x, y)), outcome(lambda: op(D(x), D(y))), bad)
        for a in DTYPES:
            x = np.empty(0, a)
            for s in SCALARS:
                compare(name, outcome(lambda: op(x, s)), outcome(lambda: op(D(x), s)), bad)
                compare(name, outcome(lambda: op(s, x)), outcome(lambda: op(s, D(x))), bad)
    finish("binary_dtypes", bad)


def inplace_dtypes():
    """In-place operators keep the left array (NumPy's same_kind casting
    check: UFuncTypeError otherwise)."""
    bad = []
    for op in INPLACE:
        name = op.__name__.strip("_")
        for a, b in itertools.product(DTYPES, DTYPES + SCALARS):
            y = np.empty(0, b) if isinstance(b, np.dtype) else b
            dy = D(y) if isinstance(b, np.dtype) else y
            ref = outcome(lambda: op(np.empty(0, a), y))
            d = D(np.empty(0, a))
            got = outcome(lambda: op(d, dy))
            compare(name, ref, got, bad)
    x = D(np.empty((0, 3), np.float32))
    y = x
    y += 1
    assert y is x
    try:
        i = D(np.ones(3, np.int64))
        i += 1.5
    except TypeError as e:
        assert type(e).__name__ == "UFuncTypeError", type(e)
        assert str(e) == ("Cannot cast ufunc 'add' output from dtype('float64') to "
                          "dtype('int64') with casting rule 'same_kind'"), str(e)
    else:
        raise AssertionError("int += float did not raise")
    finish("inplace_dtypes", bad)


def unary_and_functions():
    """Unary operators, math and the other elementwise functions."""
    bad = []
    unary = [(operator.neg, operator.neg, "neg"), (operator.pos, operator.pos, "pos"),
             (operator.invert, operator.invert, "invert"), (abs, abs, "abs"),
             (cujit.absolute, np.absolute, "absolute"), (cujit.negative, np.negative, "neg")]
    unary += [(getattr(cujit, n), getattr(np, n), n) for n in MATH]
    for f, g, name in unary:
        for a in DTYPES:
            x = np.empty(0, a)
            compare(name, outcome(lambda: g(x)), outcome(lambda: f(D(x))), bad)
    for name in ("arctan2", "minimum", "maximum", "add", "subtract", "multiply", "true_divide",
                 "floor_divide", "remainder", "power", "bitwise_and", "left_shift", "less",
                 "equal"):
        f, g = getattr(cujit, name), getattr(np, name)
        for a, b in itertools.product(DTYPES, DTYPES + SCALARS):
            x = np.empty(0, a)
            y = np.empty(0, b) if isinstance(b, np.dtype) else b
            dy = D(y) if isinstance(b, np.dtype) else y
            compare(name, outcome(lambda: g(x, y)), outcome(lambda: f(D(x), dy)), bad)
    for a, b in itertools.product(DTYPES, DTYPES + SCALARS):
        x = np.empty(0, a)
        y = np.empty(0, b) if isinstance(b, np.dtype) else b
        dy = D(y) if isinstance(b, np.dtype) else y
        c = np.empty(0, bool)
        compare("where", outcome(lambda: np.where(c, x, y)),
                outcome(lambda: cujit.where(D(c), D(x), dy)), bad)
        compare("where", outcome(lambda: np.where(x, y, x)),
                outcome(lambda: cujit.where(D(x), dy, D(x))), bad)
        compare("clip", outcome(lambda: np.clip(x, y, y)),
                outcome(lambda: cujit.clip(D(x), dy, dy)), bad)
    for a in REAL:
        x = np.empty(0, a)
        for lo, hi in ((0, 300), (-300, 5), (-5, None), (None, 7.5), (-1000, 1000)):
            compare("clip", outcome(lambda: np.clip(x, lo, hi)),
                    outcome(lambda: cujit.clip(D(x), lo, hi)), bad)
    # scalars alone give 0-d arrays of NumPy's dtype
    for f, v in ((cujit.sqrt, 2), (cujit.sqrt, 2.0), (cujit.add, 1), (cujit.exp, np.float32(1))):
        r = f(v) if f is not cujit.add else f(v, 2.5)
        ref = np.sqrt(v) if f is cujit.sqrt else np.add(v, 2.5) if f is cujit.add else np.exp(v)
        assert r.shape == () and r.dtype == np.asarray(ref).dtype, (f, v, r.dtype)
    finish("unary_and_functions", bad)


def _shapes():
    yield ()
    yield (0,)
    yield (3, 0, 2)
    for _ in range(6):
        nd = int(rng.integers(1, 5))
        yield tuple(int(s) for s in rng.integers(1, 6, nd))


def reductions():
    """sum prod min max mean argmin argmax any all cumsum: NumPy's shapes
    and dtypes for axes None / int / negative / tuple / () and keepdims, on
    every dtype (typing on small arrays compiles the kernels too)."""
    warnings.simplefilter("ignore")
    bad = []
    funcs = ["sum", "prod", "min", "max", "mean", "argmin", "argmax", "any", "all", "cumsum"]
    for shape in _shapes():
        nd = len(shape)
        axes = [None] + list(range(-nd, nd)) + ([(0, nd - 1)] if nd > 1 else []) + \
            ([()] if nd else [])
        for dt in rng.choice(DTYPES, 3, replace=False) if shape else DTYPES:
            h = np.ones(shape, dt)
            d = D(h)
            for f in funcs:
                for ax in axes:
                    if f in ("argmin", "argmax", "cumsum") and isinstance(ax, tuple):
                        continue
                    kws = [{}] if f == "cumsum" else [{}, {"keepdims": True}]
                    for kw in kws:
                        ref = outcome(lambda: getattr(np, f)(h, axis=ax, **kw))
                        got = outcome(lambda: getattr(d, f)(axis=ax, **kw))
                        got2 = outcome(lambda: getattr(cujit, f)(d, axis=ax, **kw))
                        label = "%s%s %s axis=%s %s" % (f, shape, dt, ax, kw)
                        if ref != got or ref != got2:
                            bad.append((label, ref, got, got2))
                        if not ref.endswith("Error"):
                            rs = getattr(np, f)(h, axis=ax, **kw).shape
                            gs = getattr(d, f)(axis=ax, **kw).shape
                            if rs != gs:
                                bad.append((label + " shape", rs, gs))
    # dtype=
    x = D(np.ones((4, 5), np.int8))
    for dt in (np.float32, np.int16, np.uint64, np.complex64, np.float16):
        for f in ("sum", "prod", "mean", "cumsum"):
            ref = getattr(np, f)(np.ones((4, 5), np.int8), axis=1, dtype=dt)
            got = getattr(x, f)(axis=1, dtype=dt)
            if (ref.dtype, ref.shape) != (got.dtype, got.shape):
                bad.append((f, dt, ref.dtype, got.dtype))
    # big enough for every kernel path: blocks per row, and one thread per row
    for dt in DTYPES:
        for shape, ax in (((3, 50000), 1), ((20000, 5), 1), ((7, 3000, 5), 1)):
            d = D(np.ones(shape, dt))
            for f in ("cumsum", "argmax") if shape[0] != 7 else ("cumsum", "sum", "min", "any"):
                r = getattr(d, f)(axis=ax)
                ref = getattr(np, f)(np.ones(shape, dt), axis=ax)
                if (r.shape, r.dtype) != (ref.shape, ref.dtype):
                    bad.append((f, shape, dt, ax, r.shape, ref.shape))
    finish("reductions", bad)


def errors():
    d = D(rand((3, 4), np.float32))

    def raises(exc, f, match=None):
        try:
            f()
        except exc as e:
            assert match is None or match in str(e), "%r not in %r" % (match, str(e))
            return e
        raise AssertionError("%s did not raise %s" % (f, exc.__name__))

    empty = D(np.ones((0, 3)))
    msg = "zero-size array to reduction operation minimum which has no identity"
    raises(ValueError, lambda: empty.min(), msg)
    raises(ValueError, lambda: cujit.min(empty, axis=0), msg)
    raises(ValueError, lambda: empty.max(), "reduction operation maximum")
    assert empty.min(axis=1).shape == (0,)
    raises(ValueError, lambda: empty.argmin(), "attempt to get argmin of an empty sequence")
    raises(ValueError, lambda: empty.argmax(axis=0), "attempt to get argmax of an empty")
    assert empty.argmax(axis=1).shape == (0,)
    e = raises(np.exceptions.AxisError, lambda: d.sum(axis=2))
    assert isinstance(e, ValueError) and isinstance(e, IndexError)
    raises(np.exceptions.AxisError, lambda: d.argmin(axis=-3))
    raises(ValueError, lambda: d.sum(axis=(0, 0)), "repeated axis")
    raises(ValueError, lambda: d.reshape(5, 3), "cannot reshape array of size 12 into shape")
    raises(ValueError, lambda: d.reshape(-1, -1), "can only specify one unknown dimension")
    raises(ValueError, lambda: d.reshape(5, -1), "cannot reshape array of size 12")
    raises(ValueError, lambda: d.transpose(1, 0, 2), "axes don't match array")
    raises(ValueError, lambda: d.transpose(1, 1), "repeated axis in transpose")
    raises(ValueError, lambda: d.squeeze(0), "cannot select an axis to squeeze")
    raises(ValueError, lambda: d._view((4, 4), (16, 4)), "outside the array")
    raises(ValueError, lambda: d._view((3, 4), (16, 4), 4), "outside the array")
    i8 = D(np.ones(4, np.int8))
    raises(OverflowError, lambda: i8 + 1000, "Python integer 1000 out of bounds for int8")
    raises(OverflowError, lambda: cujit.maximum(i8, -129), "out of bounds for int8")
    raises(OverflowError, lambda: D(np.ones(3, np.uint8)) * -1, "out of bounds for uint8")
    assert (i8 == 1000).dtype == np.bool_ and (i8 < -1000).dtype == np.bool_
    assert (D(np.ones(2, np.uint64)) > -1).dtype == np.bool_
    assert (D(np.ones(2, np.int64)) != 2 ** 70).dtype == np.bool_
    u64, f32 = D(np.ones(2, np.uint64)), D(np.ones(2, np.float32))
    assert (u64 < 2 ** 63).dtype == np.bool_ and (u64 + 2 ** 63).dtype == np.uint64
    assert (u64 ^ (2 ** 64 - 1)).dtype == np.uint64 and (f32 + 2 ** 70).dtype == np.float32
    assert (f32 < -2 ** 70).dtype == np.bool_
    raises(OverflowError, lambda: D(np.ones(2, np.int64)) + 2 ** 63)
    raises(ValueError, lambda: i8 ** -1, "Integers to negative integer powers are not allowed")
    raises(ValueError, lambda: D(np.ones(2, np.int64)) ** np.int64(-2), "negative integer")
    assert (D(np.ones(0, np.int64)) ** -1).shape == (0,)        # NumPy: no elements, no error
    raises(TypeError, lambda: -D(np.ones(2, bool)), "boolean negative")
    raises(TypeError, lambda: D(np.ones(2)) & 1, "bitwise_and")
    raises(TypeError, lambda: d + "a", "unsupported operand")
    raises(TypeError, lambda: d < None)
    assert (d == None) is False and (d != None) is True        # noqa: E711  identity fallback
    raises(TypeError, lambda: hash(d), "unhashable")
    raises(TypeError, lambda: cujit.sqrt("x"), "does not take str")
    # complex powers compile (their values are checked on the GPU)
    assert (D(np.ones(2, np.complex64)) ** 2).dtype == np.complex64
    assert cujit.power(2, D(np.ones(2, np.complex128))).dtype == np.complex128
    raises(TypeError, lambda: d.astype(np.int32, casting="safe"),
           "Cannot cast array data from dtype('float32') to dtype('int32') according to the "
           "rule 'safe'")
    raises(OverflowError, lambda: i8.fill(300), "Python integer 300 out of bounds for int8")
    raises(ValueError, lambda: cujit.linspace(0, 1, -1), "Number of samples, -1, must be "
           "non-negative")
    raises(ZeroDivisionError, lambda: cujit.arange(0, 5, 0))
    raises(TypeError, lambda: cujit.arange(0, 5, dtype=np.complex64), "arange")
    raises(ValueError, lambda: D(np.ones((2, 3))) + D(np.ones((4,))), "broadcast")
    x = D(np.ones((2, 3)))
    raises(ValueError, lambda: x.__iadd__(D(np.ones((4, 2, 3)))),
           "non-broadcastable output operand with shape (2, 3) doesn't match the broadcast "
           "shape (4, 2, 3)")
    raises(TypeError, lambda: cujit.add(x, x, out=np.ones((2, 3))), "out=")
    raises(ValueError, lambda: cujit.clip(x), "One of max or min must be given")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert cujit.mean(D(np.ones(0))).dtype == np.float64
        assert any("Mean of empty slice" in str(m.message) for m in w)
        D(np.ones(2, np.complex64)).astype(np.float32)
        assert any(m.category is np.exceptions.ComplexWarning for m in w)
    print("errors ok")


def views():
    """reshape / ravel / T / transpose / squeeze are views when the layout
    allows (their data is read back: a view needs no kernel), else copies."""
    h = rand((4, 6), np.float64)
    d = D(h)
    for shape in ((24,), (2, 12), (-1, 3), (2, 3, 4), (4, 1, 6, 1), (1, 24)):
        v = d.reshape(shape)
        r = h.reshape(shape)
        assert v.shape == r.shape and v.base is d, shape
        assert (v.copy_to_host() == r).all(), shape
    assert d.reshape(2, 12).shape == (2, 12) and d.reshape((2, 12)).shape == (2, 12)
    assert d.ravel().base is d and (d.ravel().copy_to_host() == h.ravel()).all()
    assert d.T.base is d and d.T.shape == (6, 4) and d.T.strides == (8, 48)
    assert (d.T.copy_to_host() == h.T).all() and d.T.f_contiguous
    h3 = rand((2, 3, 4), np.int32)
    d3 = D(h3)
    for axes in ((), (None,), ((2, 0, 1),), (1, 2, 0), (-1, 0, 1)):
        v = d3.transpose(*axes)
        r = h3.transpose(*axes)
        assert v.shape == r.shape and v.strides == r.strides, axes
        assert (v.copy_to_host() == r).all(), axes
    assert (cujit.transpose(d3).copy_to_host() == h3.T).all()
    # views of views: slices, then reshapes that still fit
    s = d[:, ::2]
    assert s.reshape(4, 3).base is d and (s.reshape(4, 3).copy_to_host() == h[:, ::2]).all()
    assert (s.reshape(2, 2, 3).copy_to_host() == h[:, ::2].reshape(2, 2, 3)).all()
    assert (d[::-1].reshape(2, 2, 6).copy_to_host() == h[::-1].reshape(2, 2, 6)).all()
    # not expressible as a view: a copy (made by a kernel; its values are not
    # read here), C-contiguous
    c = d.T.reshape(24)
    assert c.shape == (24,) and c.base is not d
    assert c.c_contiguous and c.dtype == np.float64
    c = d[:, ::2].ravel()           # one stride fits (NumPy makes a view too)
    assert c.base is d and c.strides == (16,) and (c.copy_to_host() == h[:, ::2].ravel()).all()
    c = d[:, :4].ravel()
    assert c.c_contiguous and c.shape == (16,) and c.base is not d
    f = d.T.ravel(order="F")
    assert f.base is d and (f.copy_to_host() == h.T.ravel(order="F")).all()
    assert d.reshape(6, 4, order="F").shape == (6, 4)
    fl = d.flatten()
    assert fl.shape == (24,) and fl.base is not d
    q = D(rand((1, 3, 1, 2), np.float32))
    assert q.squeeze().shape == (3, 2) and q.squeeze(axis=2).shape == (1, 3, 2)
    assert (q.squeeze().copy_to_host() == q.copy_to_host().squeeze()).all()
    e = D(np.ones((0, 4)))
    assert e.reshape(2, 0, 2).shape == (2, 0, 2) and e.reshape(-1).shape == (0,)
    assert e.T.shape == (4, 0)
    z = D(np.float32(5))
    assert z.reshape(1, 1).shape == (1, 1) and z.T.shape == () and z.ravel().shape == (1,)
    assert z.reshape(()).shape == ()
    # complex parts: strided views of another dtype
    hc = (rand((3, 4), np.float64) + 1j * rand((3, 4), np.float64)).astype(np.complex64)
    dc = D(hc)
    assert dc.real.dtype == np.float32 and dc.real.strides == (32, 8) and dc.real.base is dc
    assert (dc.real.copy_to_host() == hc.real).all() and (dc.imag.copy_to_host() == hc.imag).all()
    assert (dc.T.imag.copy_to_host() == hc.T.imag).all()
    assert d.real is d and (D(np.ones(3, np.int8)).imag.copy_to_host() == 0).all()
    try:
        dc._view((3, 4), (32, 8), 2, np.float32)
    except ValueError as e:
        assert "aligned" in str(e)
    else:
        raise AssertionError("misaligned view")
    # __getitem__ with ints and slices
    for key in (1, -1, slice(1, 3), (slice(None), 2), (2, slice(None, None, -2)), (-2, -1)):
        assert (d[key].copy_to_host() == h[key]).all(), key
    print("views ok")


def creation():
    """arange / linspace: NumPy's dtypes and lengths; astype; fill."""
    for args in ((5,), (1, 5), (1.0, 5), (0, 1, 0.25), (5, 0, -1), (np.float32(1), 5),
                 (np.int8(1), np.int8(9)), (np.uint64(5),), (True, 5), (2, 2), (3, 1),
                 (0, 10, 3), (-2.5, 2.5, 0.5), (0, 1, 0.1), (np.float32(0), np.float32(1),
                                                          np.float32(0.125))):
        r = np.arange(*args)
        g = cujit.arange(*args)
        assert (g.shape, g.dtype) == (r.shape, r.dtype), (args, g.shape, g.dtype, r.dtype)
    for args, kw in (((0, 1), {}), ((0, 10, 7), {}), ((1, 2, 5), {"endpoint": False}),
                     ((np.float32(0), 1, 9), {}), ((0, 10, 4), {"dtype": np.int32}),
                     ((5, 5, 3), {}), ((0, 1, 1), {}), ((0, 1, 0), {}),
                     ((np.float16(0), np.float16(2), 5), {})):
        r = np.linspace(*args, **kw)
        g = cujit.linspace(*args, **kw)
        assert (g.shape, g.dtype) == (r.shape, r.dtype), (args, kw, g.dtype, r.dtype)
    g, step = cujit.linspace(0, 1, 5, retstep=True)
    assert step == np.linspace(0, 1, 5, retstep=True)[1]
    assert np.isnan(cujit.linspace(0, 1, 1, retstep=True)[1])
    for dt in (np.int32, np.float16, np.uint8, np.float64):
        assert cujit.arange(10, dtype=dt).dtype == dt
    h = rand((3, 5), np.float32)
    for src in DTYPES:
        x = D(h.astype(src) if src.kind != "b" else h > 0)
        for dst in DTYPES:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                y = x.astype(dst)
            assert y.dtype == dst and y.shape == (3, 5) and y.c_contiguous, (src, dst)
    f = D(np.asfortranarray(h))
    assert f.astype(np.float64).f_contiguous and f.astype(np.float64, order="C").c_contiguous
    assert cujit.astype(f, np.int8).f_contiguous
    assert f.astype(np.float32, copy=False) is f
    # fill: contiguous arrays by memset, read back here
    for dt, v in ((np.float32, 2.5), (np.int8, -3), (np.uint64, 2 ** 64 - 1), (np.bool_, True),
                  (np.complex64, 1 - 2j), (np.float16, 0.5), (np.int32, 7.9),
                  (np.float64, np.float32(1.25))):
        x = D(np.zeros((4, 3), dt))
        assert x.fill(v) is None
        r = np.zeros((4, 3), dt)
        r.fill(v)
        assert (x.copy_to_host() == r).all(), (dt, v)
        x.T.fill(v)                 # F-contiguous: a memset too
        x[:, ::2].fill(v)           # strided: a kernel
    assert cujit.ascontiguousarray(D(h).T).c_contiguous
    print("creation ok")


class CAI:
    """A foreign device array known only through __cuda_array_interface__."""

    def __init__(self, a):
        self.a = a

    @property
    def __cuda_array_interface__(self):
        return self.a.__cuda_array_interface__


def operands():
    """Host arrays and lists (copied), NumPy scalars, foreign device arrays,
    reflected operators, broadcasting shapes, F-ordered results."""
    d = D(rand((3, 4), np.float32))
    h = rand((3, 4), np.float64)
    for r in (d + h, h + d, d * [1, 2, 3, 4], [1.0, 2, 3, 4] - d, np.float64(2) * d,
              d / np.float32(3), 2 ** d, d ** 2, d % 3, 7 // d, divmod(d, 2)[1]):
        assert type(r) is cujit.DeviceArray and r.shape == (3, 4), r
    assert (d + h).dtype == np.float64 and (h + d).dtype == np.float64
    assert (np.float64(2) * d).dtype == np.float64          # NumPy scalars are strong
    assert (d * 2.0).dtype == np.float32 and (2 - d).dtype == np.float32
    assert (d + CAI(d)).dtype == np.float32 and (CAI(d) + d).shape == (3, 4)
    assert cujit.add(CAI(d), 1).dtype == np.float32
    assert (h < d).dtype == np.bool_ and (3 < d).dtype == np.bool_
    for _ in range(20):
        nd = int(rng.integers(0, 4))
        sa = tuple(int(s) for s in rng.integers(1, 4, nd))
        sb = tuple(1 if rng.random() < 0.4 else s for s in sa[int(rng.integers(0, nd + 1)):])
        a, b = D(np.ones(sa, np.float32)), D(np.ones(sb, np.int16))
        for op in (operator.add, operator.lt, cujit.maximum, cujit.arctan2):
            r = op(a, b)
            assert r.shape == np.broadcast_shapes(sa, sb), (op, sa, sb)
        w = cujit.where(D(np.ones(sb, bool)), a, 0.5)
        assert w.shape == np.broadcast_shapes(sa, sb) and w.dtype == np.float32
    f = D(np.asfortranarray(rand((5, 6), np.float32)))
    assert (f + f).f_contiguous and (f * 2).f_contiguous and cujit.sqrt(f).f_contiguous
    assert (f + d[:, :1].reshape(3, 1)[:1]).shape == (5, 6)
    t = d.T
    assert (t + 1).shape == (4, 3) and (t + D(np.ones((4, 3)))).dtype == np.float64
    # in place: views, broadcasting, overlap
    x = D(np.ones((4, 6), np.float32))
    x[:, ::2] += 1
    x += D(np.ones(6, np.float32))
    x[1:] += x[:-1]                 # overlapping: the right side is copied first
    x *= x
    cujit.add(D(np.ones(6)), 1, out=D(np.ones((4, 6))))
    o, i = D(np.ones((4, 6), np.float32)), D(np.ones(4, np.int64))
    row = o[0]
    for r, target in ((cujit.clip(x, 0, None, out=o), o), (cujit.clip(x, None, 1, out=o), o),
                      (cujit.clip(x, 0, 1, out=o), o), (cujit.sqrt(x, out=o), o),
                      (cujit.floor(x, out=o), o), (cujit.maximum(x, 2, out=o), o),
                      (cujit.sum(x, axis=0, out=row), row), (cujit.cumsum(x, axis=1, out=o), o),
                      (cujit.argmax(x, axis=1, out=i), i),
                      (cujit.floor(D(np.ones((4, 6), np.int32)), out=o), o)):
        assert r is target
    u = D(np.ones((2, 3), np.int16))
    u <<= 2
    u //= np.int8(2)
    u **= 2
    assert u.dtype == np.int16
    print("operands ok")


def compile_elementwise():
    """Every elementwise kernel compiles (NVRTC) for a spread of dtypes."""
    pairs = [(np.float32, np.float32), (np.float64, np.int32), (np.int8, np.uint8),
             (np.float16, np.float16), (np.bool_, np.bool_), (np.complex64, np.float32)]
    bad = []
    for a, b in pairs:
        x, y = D(rand((4, 5), a)), D(rand((4, 5), b))
        for op in BINARY:
            for args in ((x, y), (x[::2], 3)):
                got = outcome(lambda: op(*args))
                ref = outcome(lambda: op(*[v.copy_to_host() if isinstance(v, cujit.DeviceArray)
                                            else v for v in args]))
                compare(op.__name__.strip("_"), ref, got, bad)
    for dt in DTYPES:
        x = D(rand((4, 5), dt))
        for name in MATH + ["negative", "positive", "invert", "absolute"]:
            compare(name, outcome(lambda: getattr(np, name)(x.copy_to_host())),
                    outcome(lambda: getattr(cujit, name)(x)), bad)
        for name in ("arctan2", "minimum", "maximum"):
            compare(name, outcome(lambda: getattr(np, name)(x.copy_to_host(), 2)),
                    outcome(lambda: getattr(cujit, name)(x, 2)), bad)
        compare("where", outcome(lambda: np.where(x.copy_to_host(), 1, x.copy_to_host())),
                outcome(lambda: cujit.where(x, 1, x)), bad)
        compare("clip", outcome(lambda: np.clip(x.copy_to_host(), 1, 5)),
                outcome(lambda: cujit.clip(x, 1, 5)), bad)
        for op in INPLACE:
            y = D(rand((4, 5), dt))
            compare(op.__name__, outcome(lambda: op(y.copy_to_host(), 2)),
                    outcome(lambda: op(y, 2)), bad)
            y = D(rand((4, 5), dt))
            compare(op.__name__, outcome(lambda: op(y.copy_to_host(), np.float32(2))),
                    outcome(lambda: op(y, D(np.full((4, 5), 2, np.float32)))), bad)
    for dt in (np.int8, np.uint8, np.float16, np.float32, np.float64, np.uint64, np.int32):
        n = cujit.arange(0, 20, 3, dtype=dt)
        assert n.dtype == dt
        if np.dtype(dt).kind == "f":
            assert cujit.linspace(dt(0), dt(1), 7).dtype == dt
        assert cujit.linspace(0, 9, 7, dtype=dt).dtype == dt
    finish("compile_elementwise", bad)


def numpy_protocols():
    """NumPy's ufuncs on DeviceArrays (__array_ufunc__) run cujit's functions
    (NumPy's result dtypes and errors, DeviceArray results, out=, reduce,
    accumulate, host operands as for the operators); NumPy functions
    (__array_function__) run cujit's or NumPy's own code; TypeErrors that
    name what has no device version."""
    from cujit import _stdlib
    bad = []
    few = [np.dtype(t) for t in (np.bool_, np.int8, np.uint16, np.int64, np.float16,
                                 np.float32, np.complex64)]
    for uf in _stdlib._UFUNCS:
        name = "numpy." + uf.__name__
        for a in DTYPES:
            x = np.empty(0, a)
            if uf.nin == 1:
                compare(name, outcome(lambda: uf(x)), outcome(lambda: uf(D(x))), bad)
                continue
            for b in (few if a in few else few[3:6]) + [2, 2.5, np.float32(2)]:
                y = np.empty(0, b) if isinstance(b, np.dtype) else b
                dy = D(y) if isinstance(b, np.dtype) else y
                compare(name, outcome(lambda: uf(x, y)), outcome(lambda: uf(D(x), dy)), bad)
                compare(name, outcome(lambda: uf(y, x)), outcome(lambda: uf(dy, D(x))), bad)
    d = D(rand((3, 4), np.float32))
    h = rand((3, 4), np.float64)
    for r in (np.sqrt(d), np.add(d, 1), np.add(h, d), h + d, h < d, np.maximum(d, h),
              np.logical_not(d), np.divmod(d, 2)[0], np.power(d, 2), np.negative(d)):
        assert type(r) is cujit.DeviceArray and r.shape == (3, 4), r
    assert (h + d).dtype == np.float64 and np.sqrt(D(np.ones(3, np.int8))).dtype == np.float16
    # out=: the array itself, in-place dtype rules (NumPy's same_kind casting)
    o = cujit.empty((3, 4), np.float32)
    assert np.add(d, d, out=o) is o and np.sqrt(d, out=(o,)) is o and np.floor(d, out=o) is o
    assert np.add(d, 1, o) is o
    try:
        np.add(d, 1.5, out=D(np.ones((3, 4), np.int32)))
    except TypeError as e:
        assert type(e).__name__ == "UFuncTypeError", type(e)
    else:
        raise AssertionError("float into an int32 out= did not raise")
    # reduce: sum / prod / min / max / all / any with NumPy's axis 0 and dtypes
    m = rand((3, 4, 5), np.int8)
    for uf in (np.add, np.multiply, np.minimum, np.maximum, np.logical_and, np.logical_or):
        for kw in ({}, {"axis": None}, {"axis": 2, "keepdims": True}, {"axis": (0, 2)}):
            compare(uf.__name__ + ".reduce", outcome(lambda: uf.reduce(m, **kw)),
                    outcome(lambda: uf.reduce(D(m), **kw)), bad)
    compare("add.reduce", outcome(lambda: np.add.reduce(m, dtype=np.float32)),
            outcome(lambda: np.add.reduce(D(m), dtype=np.float32)), bad)
    compare("add.reduce", outcome(lambda: np.add.reduce(m, axis=3)),
            outcome(lambda: np.add.reduce(D(m), axis=3)), bad)
    compare("add.accumulate", outcome(lambda: np.add.accumulate(m, axis=1)),
            outcome(lambda: np.add.accumulate(D(m), axis=1)), bad)
    r = np.add.reduce(D(m), out=(D(np.empty((4, 5), np.int64)),))
    assert r.shape == (4, 5) and r.dtype == np.int64
    assert np.add.accumulate(D(m)).shape == (3, 4, 5)
    # __array_function__: cujit's functions, NumPy's dtypes and shapes
    x = rand((3, 4), np.float32)
    for f in (lambda a: np.sum(a), lambda a: np.sum(a, axis=1, dtype=np.float64),
              lambda a: np.prod(a, 0), lambda a: np.min(a, axis=0), lambda a: np.amax(a),
              lambda a: np.mean(a, axis=1, keepdims=True), lambda a: np.argmin(a, axis=1),
              lambda a: np.any(a > 0.5, axis=0), lambda a: np.all(a), lambda a: np.cumsum(a),
              lambda a: np.where(a > 0.5, a, 0), lambda a: np.clip(a, 0.2, 0.6),
              lambda a: np.clip(a, None, 0.6), lambda a: np.reshape(a, (4, 3)),
              lambda a: np.reshape(a, -1, order="F"), lambda a: np.ravel(a),
              lambda a: np.transpose(a), lambda a: np.squeeze(a[None]),
              lambda a: np.copy(a), lambda a: np.copy(a.T, order="C"),
              lambda a: np.astype(a, np.int16)):
        ref, got = f(x), f(D(x))
        assert type(got) is cujit.DeviceArray, f
        assert (got.shape, got.dtype) == (np.shape(ref), np.asarray(ref).dtype), f
    assert np.shape(D(x)) == (3, 4) and np.ndim(D(x)) == 2 and np.size(D(x)) == 12

    def raises(exc, f, match):
        try:
            f()
        except exc as e:
            assert match in str(e), "%r not in %r" % (match, str(e))
        else:
            raise AssertionError("%s did not raise %s" % (match, exc.__name__))

    raises(TypeError, lambda: np.fmod(d, 2),
           "cujit.DeviceArray does not support numpy.ufunc 'fmod'; copy to the host with "
           "cujit.asnumpy(a) first")
    raises(TypeError, lambda: np.add.outer(d, d), "numpy.add.outer is not supported")
    raises(TypeError, lambda: np.multiply.accumulate(d), "numpy.multiply.accumulate")
    raises(TypeError, lambda: np.add.at(d, 0, 1), "numpy.add.at")
    raises(TypeError, lambda: np.add(d, 1, where=d > 0), "numpy.add(..., where=...)")
    raises(TypeError, lambda: np.add(d, 1, dtype=np.float64), "dtype=float64")
    raises(TypeError, lambda: np.add(d, 1, casting="unsafe"), "casting='unsafe'")
    raises(TypeError, lambda: np.add.reduce(d, initial=1), "initial=")
    raises(TypeError, lambda: np.divmod(d, 2, out=(D(x), D(x))), "several outputs")
    raises(TypeError, lambda: np.add(d, d, out=np.empty((3, 4), np.float32)),
           "out= must be a cujit.DeviceArray, not ndarray")
    hh = np.ones((3, 4))
    raises(TypeError, lambda: hh.__iadd__(d), "out= must be a cujit.DeviceArray")
    raises(TypeError, lambda: np.add(d, object()), "NotImplemented")
    raises(TypeError, lambda: np.sum(d, where=d > 0), "numpy.sum(..., where=...)")
    raises(TypeError, lambda: np.where(d), "numpy.where(condition) without x and y")
    raises(TypeError, lambda: np.concatenate([d, d]), "implicit conversion")
    raises(TypeError, lambda: np.asarray(d), "implicit conversion")
    raises(TypeError, lambda: np.ascontiguousarray(d), "implicit conversion")
    raises(ValueError, lambda: np.add(d, D(np.ones(3))), "broadcast")
    finish("numpy_protocols", bad)


def writes():
    """copy() and a[key] = value on the device: one driver copy or memset
    where the layout allows, else one kernel, never a copy back to the host
    (counted by the fake driver); host values cross once, unbroadcast;
    NumPy's casting, broadcasting and errors.  Kernels do not run here: data
    is checked only where the driver alone copies (values in tests/gpu)."""
    fake = FAKE()
    import ctypes

    def counts(f):
        names = ("fake_launches", "fake_htod", "fake_dtoh", "fake_dtod")
        before = [ctypes.c_longlong.in_dll(fake, n).value for n in names]
        f()
        return tuple(ctypes.c_longlong.in_dll(fake, n).value - b for n, b in zip(names, before))

    h = rand((6, 8), np.float32)
    d = D(h)
    c = d.copy()
    assert c.c_contiguous and (c.copy_to_host() == h).all()
    assert (cujit.copy(d).copy_to_host() == h).all() and (d.T.copy("F").copy_to_host() == h.T).all()
    assert (cujit.copy(d.T).copy_to_host() == h.T).all() and cujit.copy(d.T).f_contiguous
    assert (cujit.copy(h[::2]).copy_to_host() == h[::2]).all()
    for f, want in ((lambda: d.copy(), (0, 0, 0, 1)), (lambda: d[1:3].copy(), (0, 0, 0, 1)),
                    (lambda: d.T.copy(order="K"), (0, 0, 0, 1)),
                    (lambda: d[:, ::2].copy(), (1, 0, 0, 0)), (lambda: d.T.copy(), (1, 0, 0, 0)),
                    (lambda: cujit.copy(d[::-1]), (1, 0, 0, 0)),
                    (lambda: d.copy_to_device(d[::-1]), (2, 0, 0, 0))):     # overlapping
        assert counts(f) == want, (f, counts(f), want)
    s = d[::-1, 1:].copy()
    assert s.shape == (6, 7) and s.c_contiguous and s.dtype == np.float32
    assert d.copy(order="F").f_contiguous and d.T.copy(order="A").f_contiguous

    def setitem(key, v):
        def f():
            d[key] = v
        return f
    e = D(np.ones(8, np.int16))
    cases = [(np.s_[1:3], 2.5, (0, 0, 0, 0)),                  # a memset
             (np.s_[1:3], np.float32(2), (0, 0, 0, 0)),        # NumPy's conversion, a memset
             (np.s_[:, 1], 2.5, (1, 0, 0, 0)),                 # strided: the fill kernel
             (np.s_[:, ::3], np.int64(7), (1, 0, 0, 0)),
             (np.s_[::2, 1::2], np.ones((3, 4)), (1, 1, 0, 0)),    # cast on the host, sent once
             (np.s_[::2], np.arange(8), (1, 1, 0, 0)),         # broadcast on the device
             (np.s_[...], np.arange(8, dtype=np.float32), (1, 1, 0, 0)),
             (np.s_[2:4], np.ones((2, 8), np.float32), (0, 1, 0, 0)),
             (np.s_[2:4], [[1, 2, 3, 4, 5, 6, 7, 8]] * 2, (0, 1, 0, 0)),
             (np.s_[::2], e, (1, 0, 0, 0)),                    # cast and broadcast
             (np.s_[:, :4], D(h)[:, 4:], (1, 0, 0, 0)),
             (np.s_[1:], d[:-1], (1, 0, 0, 1)),                # overlapping: read first
             (np.s_[...], d, (0, 0, 0, 0)),
             (np.s_[3:], D(np.ones((3, 8), np.float32)), (0, 0, 0, 1))]
    for key, v, want in cases:
        got = counts(setitem(key, v))
        assert got == want, (key, type(v).__name__, got, want)
    # values the driver copies alone
    d[2:4] = np.arange(16, dtype=np.float32).reshape(2, 8)
    d[4:] = 1.5
    got = d.copy_to_host()
    assert (got[2:4].ravel() == np.arange(16)).all() and (got[4:] == 1.5).all()
    # every dtype pair compiles (cast kernels), strided both ways
    for a, b in itertools.product(DTYPES[::3], DTYPES[1::3]):
        x = D(np.zeros((4, 6), a))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x[:, ::2] = D(rand((4, 3), b))
            x[::2] = rand(6, b)

    def raises(exc, f, match):
        try:
            f()
        except exc as ex:
            assert match in str(ex), "%r not in %r" % (match, str(ex))
        else:
            raise AssertionError("%s did not raise %s" % (match, exc.__name__))

    raises(ValueError, setitem(np.s_[...], np.ones(3)),
           "could not broadcast input array from shape (3,) into shape (6,8)")
    raises(ValueError, setitem(np.s_[::2], D(np.ones((2, 8)))),
           "could not broadcast input array from shape (2,8) into shape (3,8)")
    d[::2] = np.ones((1, 1, 3, 8))                      # leading 1s dropped, as NumPy
    i8 = D(np.zeros(6, np.int8))
    raises(OverflowError, lambda: i8.__setitem__(np.s_[::2], 300), "out of bounds for int8")
    raises(OverflowError, lambda: i8.__setitem__(np.s_[::2], np.int64(300)),
           "out of bounds for int8")
    raises(TypeError, setitem(np.s_[::2], 1j), "complex")
    raises(TypeError, setitem(np.s_[1:3], 1j), "complex")
    raises(ValueError, lambda: D(np.zeros(3, np.int32)).__setitem__(np.s_[::2], float("nan")),
           "cannot convert float NaN to integer")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        d[:, ::2] = D(np.ones((6, 4), np.complex64))
        assert any(m.category is np.exceptions.ComplexWarning for m in w)
    z = D(np.zeros((0, 3)))
    z[...] = np.ones(3)
    z[::2] = 1
    print("writes ok")


def no_leaks():
    fake = FAKE()
    import ctypes

    def counter(name):
        return ctypes.c_longlong.in_dll(fake, name).value

    def work():
        d = D(rand((30, 40), np.float32))
        i = D(rand((30, 40), np.int16))
        (d + i) * 2 - d.T.T
        d += 1
        d[::2] *= d[1::2]
        cujit.sqrt(d)
        cujit.where(d > 0, d, -d)
        d.sum(axis=0), d.mean(), d.argmax(axis=1), d.cumsum(), d.min(), i.any(axis=1)
        d.reshape(-1), d.T.reshape(-1), d.astype(np.float64), d[:, ::3].fill(2)
        cujit.arange(100), cujit.linspace(0, 1, 33)
        D(rand((20000, 3), np.float32)).cumsum(axis=0)
        D(rand((3, 20000), np.float64)).argmin(axis=1)
        d[:, ::3] = i[:, ::3]
        d[::2] = rand(40, np.float64)
        d[1:] = d[:-1]
        d.T.copy(), cujit.copy(d[::2]), np.sqrt(d), np.add(rand((30, 40), np.float32), d)
        np.add.reduce(d, axis=1), np.sum(d), np.where(d > 0, d, 0)
        try:
            D(np.ones((0, 2))).min()
        except ValueError:
            pass

    work()
    gc.collect()
    live = counter("fake_allocs") - counter("fake_frees")
    for _ in range(30):
        work()
    gc.collect()
    assert counter("fake_allocs") - counter("fake_frees") == live
    assert cujit.memory_info()["used"] == 0
    print("no_leaks ok")


if __name__ == "__main__":
    globals()[sys.argv[1]]()
