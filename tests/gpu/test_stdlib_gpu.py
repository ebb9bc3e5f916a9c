"""The array stdlib on the GPU, against NumPy on fresh random data (never
zero-filled inputs): DeviceArray's operators (broadcasting, scalars, host and
foreign arrays, in-place forms), cujit's elementwise functions, reductions,
argmin / argmax, cumsum, creation, conversions and views - values and
dtypes - for random shapes and dtypes, C-, F-ordered, strided and transposed
inputs, and empty arrays."""
import itertools
import operator
import warnings

import numpy as np
import pytest

import cujit

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()
D = cujit.to_device

BOOL = [np.dtype(np.bool_)]
INTS = [np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64)]
UINTS = [np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64)]
FLOATS = [np.dtype(t) for t in (np.float16, np.float32, np.float64)]
COMPLEX = [np.dtype(t) for t in (np.complex64, np.complex128)]
REAL = BOOL + INTS + UINTS + FLOATS
ALL = REAL + COMPLEX
RTOL = {"e": 2e-3, "f": 2e-6, "d": 1e-13, "F": 2e-6, "D": 1e-13}


def rand(shape, dtype, lo=1, hi=40, signed=True):
    """Random values of dtype, none zero (booleans: random)."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    sign = rng.choice([-1, 1], shape) if signed and dt.kind in "ifc" else 1
    if dt.kind in "iu":
        hi = min(hi, np.iinfo(dt).max)
        return (rng.integers(lo, hi, shape, endpoint=True) * sign).astype(dt)
    v = rng.uniform(0.25, 4, shape) * sign
    if dt.kind == "c":
        v = v + 1j * rng.uniform(-4, 4, shape)
    return np.asarray(v).astype(dt)


def layouts(h):
    """(label, DeviceArray, host array) with h's values in C, F, strided
    and transposed layouts (the host array is what NumPy computes on)."""
    yield "C", D(h), h
    if h.ndim >= 2:
        yield "F", D(np.asfortranarray(h)), h
        yield "T", D(np.ascontiguousarray(h.T)).T, h
    if h.ndim >= 1:
        big = rand(tuple(2 * s + 1 for s in h.shape), h.dtype)
        idx = tuple(slice(1, None, 2) for _ in h.shape)
        big[idx] = h
        yield "strided", D(big)[idx], h
        rev = tuple(slice(None, None, -1) for _ in h.shape)
        yield "reversed", D(np.ascontiguousarray(h[rev]))[rev], h


def one_layout(h):
    ls = list(layouts(h))
    return ls[int(rng.integers(0, len(ls)))]


def pick(seq, k=None):
    """k distinct random items of seq (one item when k is None)."""
    idx = rng.permutation(len(seq))
    return seq[idx[0]] if k is None else [seq[i] for i in idx[:k]]


def check(got, ref, rtol=None, atol=0.0, label=""):
    """Same type of result, shape, dtype and values (NaN where NumPy's)."""
    assert type(got) is cujit.DeviceArray, (label, type(got))
    ref = np.asarray(ref)
    assert got.shape == ref.shape, (label, got.shape, ref.shape)
    assert got.dtype == ref.dtype, (label, got.dtype, ref.dtype)
    g = got.copy_to_host()
    if ref.dtype.kind in "fc":
        tol = RTOL[ref.dtype.char] if rtol is None else rtol
        np.testing.assert_allclose(g, ref, rtol=tol, atol=atol, equal_nan=True, err_msg=label)
    else:
        np.testing.assert_array_equal(g, ref, err_msg=label)


def shapes2():
    """Two random shapes that broadcast together."""
    nd = int(rng.integers(1, 4))
    a = tuple(int(s) for s in rng.integers(2, 6, nd))
    k = int(rng.integers(0, nd))
    b = tuple(1 if rng.random() < 0.3 else s for s in a[k:])
    return (a, b) if rng.random() < 0.5 else (b, a)


def numpy_or_error(f):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            try:
                return f(), None
            except Exception as e:
                return None, e


# ---- binary operators ----

ARITH = [operator.add, operator.sub, operator.mul, operator.truediv]
DIVS = [operator.floordiv, operator.mod]
BITS = [operator.and_, operator.or_, operator.xor]
SHIFTS = [operator.lshift, operator.rshift]
COMPARE = [operator.lt, operator.le, operator.eq, operator.ne, operator.gt, operator.ge]
PAIRS = [(a, b) for a, b in itertools.product(ALL, ALL)
         if a == b or rng.random() < 0.25]        # every diagonal, a quarter of the rest


def operands_for(op, a, b, sa, sb):
    """Host operands suited to op: non-zero divisors, shifts in range,
    small non-negative integer exponents, positive float bases."""
    x, y = rand(sa, a), rand(sb, b)
    if op in SHIFTS:
        bits = 8 * min(a.itemsize, b.itemsize) if a.kind != "b" else 8
        y = rng.integers(0, bits, sb).astype(b) if b.kind != "b" else y
        x = np.abs(x) if a.kind == "i" else x
    if op in DIVS + [operator.truediv] and b.kind == "b":
        y = np.ones(sb, bool)                   # no integer division by False
    if op is operator.pow:
        if b.kind in "iub":
            y = rng.integers(0, 4, sb).astype(b) if b.kind != "b" else y
        if a.kind in "fc":
            x = np.abs(x).astype(a)
        if a.kind in "iu" and b.kind in "fc":
            x = np.abs(x).astype(a)
    return x, y


def pow_rtol(op, dt):
    """float16 powers round twice; complex powers by exp(b log a) differ from
    the C library's cpow in the last bits"""
    if op not in (operator.pow, operator.ipow):
        return None
    return {"e": 1e-2, "F": 2e-5, "D": 1e-12}.get(np.dtype(dt).char)


@pytest.mark.parametrize("op", ARITH + DIVS + BITS + SHIFTS + COMPARE + [operator.pow],
                         ids=lambda o: o.__name__)
def test_binary_arrays(op):
    for a, b in PAIRS:
        sa, sb = shapes2()
        x, y = operands_for(op, a, b, sa, sb)
        ref, err = numpy_or_error(lambda: op(x, y))
        lx, dx, _ = one_layout(x)
        ly, dy, _ = one_layout(y)
        label = "%s %s(%s) %s(%s) %s %s" % (op.__name__, a, lx, b, ly, sa, sb)
        if err is not None:
            with pytest.raises(type(err)):
                op(dx, dy)
            continue
        with np.errstate(all="ignore"):
            check(op(dx, dy), ref, label=label, rtol=pow_rtol(op, ref.dtype))


@pytest.mark.parametrize("op", ARITH + DIVS + BITS + SHIFTS + COMPARE + [operator.pow],
                         ids=lambda o: o.__name__)
def test_binary_scalars(op):
    """Python numbers are weak (NEP 50), NumPy scalars strong; both sides."""
    scalars = [3, 2.5, True, np.float32(1.5), np.int16(3)]
    if op not in SHIFTS + BITS:
        scalars.append(1.5 - 0.5j)
    if rng.random() < 0.5:
        scalars += [np.uint8(2), np.float64(0.75)]
    for a in ALL:
        h = rand((4, 5), a)
        if op in SHIFTS or op is operator.pow:
            h = np.abs(h).astype(a) if a.kind != "b" else h
        _, d, _ = one_layout(h)
        for s in scalars:
            for left in (True, False):
                f = (lambda u, v: op(u, v)) if left else (lambda u, v: op(v, u))
                if not left and (op in SHIFTS or op is operator.pow) and a.kind != "b":
                    continue            # huge shifts / powers of arrays: UB or overflow
                if not left and op in DIVS + [operator.truediv] and a.kind == "b":
                    continue            # divisions by False
                ref, err = numpy_or_error(lambda: f(h, s))
                label = "%s %s %r %s" % (op.__name__, a, s, "left" if left else "right")
                if err is not None:
                    with pytest.raises(type(err)):
                        f(d, s)
                    continue
                with np.errstate(all="ignore"):
                    check(f(d, s), ref, label=label, rtol=pow_rtol(op, ref.dtype))


def test_complex_powers():
    """a ** b for complex operands as NumPy: integer exponents by repeated
    multiplication (exact), others exp(b log a); 0 ** b; b == 0 gives 1."""
    for dt in COMPLEX:
        h = rand((6, 7), dt)
        d = D(h)
        for e in (0, 1, 2, 3, 5, -1, -3, 0.5, -1.5, 2.5 + 1j, np.complex64(-0.5 + 0.25j)):
            ref, err = numpy_or_error(lambda: h ** e)
            assert err is None
            check(d ** e, ref, rtol=pow_rtol(operator.pow, ref.dtype), label="%s ** %r" % (dt, e))
        b = rand((6, 7), dt)
        check(d ** D(b), h ** b, rtol=pow_rtol(operator.pow, dt), label="%s ** array" % dt)
        z = np.zeros(3, dt)
        with np.errstate(all="ignore"):
            for e in (2, 0.5, 0, -1 + 0j, 1j):
                check(D(z) ** e, z ** e, label="0 ** %r" % (e,))
        r = rand(5, np.float64 if dt == np.complex128 else np.float32, signed=False)
        check(D(r) ** d[0, :5], r ** h[0, :5], rtol=pow_rtol(operator.pow, dt), label="real ** complex")


def test_integer_edges():
    """Wrapping arithmetic, floor division and modulo signs, big Python ints
    in comparisons (exact), int64 / uint64 mixes."""
    for dt in INTS + UINTS:
        info = np.iinfo(dt)
        h = rng.integers(info.min, info.max, 1000, endpoint=True, dtype=dt)
        g = rng.integers(info.min, info.max, 1000, endpoint=True, dtype=dt)
        g[g == 0] = 3
        if dt.kind == "i":
            g[(h == info.min) & (g == -1)] = 3      # the one overflowing quotient
        d, e = D(h), D(g)
        with np.errstate(all="ignore"):
            for op in (operator.add, operator.sub, operator.mul, operator.floordiv,
                       operator.mod):
                check(op(d, e), op(h, g), label="%s %s" % (op.__name__, dt))
            for v in (2 ** 70, -2 ** 70, 2 ** 63, -1, 1000, int(info.max) + 1, int(info.max)):
                for op in COMPARE:
                    check(op(d, v), op(h, v), label="%s %s %d" % (op.__name__, dt, v))
            if dt == np.uint64:
                for v in (2 ** 63, 2 ** 64 - 1):
                    check(d + v, h + v)
                    check(d ^ v, h ^ v)
    a = rng.integers(-2 ** 62, 2 ** 62, 500, dtype=np.int64)
    b = rng.integers(0, 2 ** 63, 500, dtype=np.uint64) * np.uint64(2)
    for op in COMPARE:
        check(op(D(a), D(b)), op(a, b))
    check(D(a) + D(b), a + b, rtol=1e-15)


def test_float_edges():
    """NaN and infinities through operators, floor division and modulo."""
    for dt in FLOATS:
        h = rand(400, dt)
        g = rand(400, dt)
        h[::7] = np.nan
        g[::11] = np.inf
        g[::13] = -np.inf
        d, e = D(h), D(g)
        with np.errstate(all="ignore"):
            for op in ARITH + DIVS + COMPARE:
                check(op(d, e), op(h, g), label="%s %s" % (op.__name__, dt))


# ---- in place ----

INPLACE = [operator.iadd, operator.isub, operator.imul, operator.itruediv,
           operator.ifloordiv, operator.imod, operator.ipow, operator.iand, operator.ior,
           operator.ixor, operator.ilshift, operator.irshift]


@pytest.mark.parametrize("op", INPLACE, ids=lambda o: o.__name__)
def test_inplace(op):
    for a in ALL:
        for b in (a, pick(ALL)):
            sa, _ = shapes2()
            sb = sa[int(rng.integers(0, len(sa) + 1)):]
            x, y = rand(sa, a), rand(sb, b)
            if op in (operator.ilshift, operator.irshift):
                y = rng.integers(0, 7, sb).astype(b) if b.kind in "iu" else y
            if op in (operator.ifloordiv, operator.imod, operator.itruediv) and b.kind == "b":
                y = np.ones(sb, bool)
            if op is operator.ipow:
                if b.kind in "iu":
                    y = rng.integers(0, 3, sb).astype(b)
                x = np.abs(x).astype(a) if a.kind != "b" else x
            ref = x.copy()
            _, err = numpy_or_error(lambda: op(ref, y))
            label, d, _ = one_layout(x)
            keep = d
            if err is not None:
                with pytest.raises(type(err)):
                    op(d, D(y))
                continue
            if "c" in a.kind + b.kind and op is operator.ipow:
                continue
            with np.errstate(all="ignore"):
                r = op(d, D(y) if rng.random() < 0.5 else y)
            assert r is keep
            check(d, ref, label="%s %s %s %s" % (op.__name__, a, b, label))


def test_inplace_views_and_overlap():
    h = rand((6, 8), np.float64)
    d = D(h)
    d[:, ::2] += 1
    h[:, ::2] += 1
    d[1:] += d[:-1]                 # NumPy reads the old values (it copies)
    h[1:] += h[:-1]
    d.T[::2] *= 3
    h.T[::2] *= 3
    d += D(np.arange(8.0))
    h += np.arange(8.0)
    check(d, h)
    i = D(np.arange(10, dtype=np.int32))
    i -= 3
    i //= 2
    i <<= 1
    check(i, ((np.arange(10, dtype=np.int32) - 3) // 2) << 1)
    o = D(np.ones((3, 4), np.float32))
    cujit.add(D(np.arange(4.0)), 1, out=o)          # out= wider than the inputs
    check(o, np.broadcast_to(np.arange(4.0) + 1, (3, 4)).astype(np.float32))


# ---- unary and elementwise functions ----

def test_unary():
    for a in ALL:
        h = rand((5, 7), a)
        for label, d, _ in layouts(h):
            for f in (operator.neg, operator.pos, operator.invert, abs, cujit.absolute,
                      cujit.negative, cujit.positive, cujit.invert):
                ref, err = numpy_or_error(lambda: f(h) if f in (operator.neg, operator.pos,
                                                                operator.invert, abs)
                                          else getattr(np, f.name)(h))
                if err is not None:
                    with pytest.raises(type(err)):
                        f(d)
                    continue
                check(f(d), ref, label="%s %s %s" % (getattr(f, "__name__", f), a, label))


MATH = ["sqrt", "exp", "log", "sin", "cos", "tan", "tanh", "floor", "ceil", "isnan"]


@pytest.mark.parametrize("name", MATH)
def test_math(name):
    f, g = getattr(cujit, name), getattr(np, name)
    for a in ALL:
        h = rand((6, 9), a)
        if name == "tan" and a.kind in "fc":
            h = rng.uniform(-1.2, 1.2, (6, 9)).astype(a)      # away from the poles
            if a.kind == "c":
                h = h + 1j * rng.uniform(-2, 2, (6, 9)).astype(a)
        if name in ("sqrt", "log") and a.kind in "if":
            h = np.abs(h).astype(a)
        if name == "exp" and a.kind in "iu":
            h = (h % 8).astype(a)
        if a.kind == "f":
            h.flat[::5] = np.nan
            h.flat[3::17] = np.inf
            h.flat[4::19] = -np.inf
            h.flat[5::23] = -0.0
            if name in ("floor", "ceil"):
                h = h * np.asarray(1000, a)
        for label, d, _ in layouts(h):
            ref, err = numpy_or_error(lambda: g(h))
            if err is not None:
                with pytest.raises(type(err)):
                    f(d)
                continue
            rtol = {"e": 2e-3, "f": 3e-6, "d": 1e-13, "F": 1e-5, "D": 1e-12}.get(ref.dtype.char)
            atol = {"e": 2e-3, "f": 1e-6, "d": 1e-14, "F": 1e-5,
                    "D": 1e-12}.get(ref.dtype.char, 0)             # near zeros
            if name == "tan":
                rtol = {"e": 5e-3, "f": 2e-5, "d": 1e-12, "F": 5e-5,
                        "D": 1e-11}[ref.dtype.char]
            with np.errstate(all="ignore"):
                check(f(d), ref, rtol=rtol, atol=atol, label="%s %s %s" % (name, a, label))
            if name in ("floor", "ceil") and a.kind == "f":
                r = f(d).copy_to_host()
                assert (np.signbit(r) == np.signbit(ref)).all(), (name, a)


def test_binary_functions():
    for a, b in PAIRS:
        sa, sb = shapes2()
        x, y = rand(sa, a), rand(sb, b)
        if a.kind in "fc":
            x.flat[::4] = np.nan
        if b.kind in "fc":
            y.flat[1::5] = complex(1, np.nan) if b.kind == "c" else np.nan
        if a.kind == "c" and x.size > 2:
            x.flat[2] = y.flat[0] = 1 + 2j if b.kind == "c" else 1     # equal real parts
        (_, dx, _), (_, dy, _) = one_layout(x), one_layout(y)
        for name in ("arctan2", "minimum", "maximum"):
            ref, err = numpy_or_error(lambda: getattr(np, name)(x, y))
            if err is not None:
                with pytest.raises(type(err)):
                    getattr(cujit, name)(dx, dy)
                continue
            check(getattr(cujit, name)(dx, dy), ref, label="%s %s %s" % (name, a, b),
                  rtol=5e-3 if ref.dtype == np.float16 else 1e-6 if ref.dtype.char == "f"
                  else None)
        for op in COMPARE:
            with np.errstate(invalid="ignore"):
                check(op(dx, dy), op(x, y), label="%s %s %s" % (op.__name__, a, b))
        for s in (2, 0.5, np.float32(3)):
            for name in ("minimum", "maximum"):
                check(getattr(cujit, name)(dx, s), getattr(np, name)(x, s))


def test_where_and_clip():
    for a, b in PAIRS:
        sa, sb = shapes2()
        sc = sa[int(rng.integers(0, len(sa) + 1)):]
        c, x, y = rng.random(sc) < 0.5, rand(sa, a), rand(sb, b)
        (_, dc, _), (_, dx, _), (_, dy, _) = one_layout(c), one_layout(x), one_layout(y)
        check(cujit.where(dc, dx, dy), np.where(c, x, y), label="where %s %s" % (a, b))
        check(cujit.where(dx, dy, 7), np.where(x, y, 7), label="where truth %s" % a)
        lo, hi = np.minimum(x, 5).astype(a), 20
        if a.kind in "fc":
            x.flat[::3] = np.nan
            dx = D(x)
        with np.errstate(all="ignore"):
            check(cujit.clip(dx, 3, hi), np.clip(x, 3, hi), label="clip %s" % a)
            check(cujit.clip(dx, D(lo), None), np.clip(x, lo, None), label="clip lo %s" % a)
            check(cujit.clip(dx, None, 2.5), np.clip(x, None, 2.5), label="clip hi %s" % a)
    i8 = rng.integers(-128, 127, 300, dtype=np.int8)
    check(cujit.clip(D(i8), -1000, 1000), np.clip(i8, -1000, 1000))
    check(cujit.clip(D(i8), 0, 1000), np.clip(i8, 0, 1000))


# ---- reductions ----

def reduce_shapes():
    yield (1,)
    yield (7,)
    yield (1000003,)
    yield (3, 50001)
    yield (40000, 3)
    for _ in range(6):
        nd = int(rng.integers(1, 5))
        yield tuple(int(s) for s in rng.integers(1, 9, nd))


def axes_for(nd):
    out = [None, 0, -1]
    if nd >= 2:
        out += [1, (0, nd - 1)]
    if nd >= 3:
        out += [(0, 2), (1,), -2]
    return out


def sum_tol(h, ref, n):
    """A tolerance for a sum of n terms of h against the exact sum: random
    rounding errors grow about as n ** 0.75 * the terms' size for any
    summation order cujit uses (and the result is rounded once)."""
    eps = {"e": 9.8e-4, "f": 1.2e-7, "d": 2.3e-16, "F": 1.2e-7, "D": 2.3e-16}[ref.dtype.char]
    scale = float(np.abs(h.astype(np.complex128)).max()) if h.size else 1.0
    return {"rtol": 2 * eps, "atol": 4 * eps * scale * max(n, 1) ** 0.75}


def scan_tol(h, ref, n):
    """Running sums: each adds a carry as large as the sums themselves, so
    the error follows their size (bounded here by n times the terms')."""
    t = sum_tol(h, ref, n)
    eps = t["rtol"] / 2
    t["atol"] = 4 * eps * float(np.abs(h.astype(np.complex128)).max()) * max(n, 1)
    return t


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "min", "max", "any", "all"])
def test_reductions(name):
    for shape in reduce_shapes():
        for a in pick(ALL, 4):
            h = rand(shape, a)
            if name == "prod" and a.kind in "fc":
                h = (rng.uniform(0.999, 1.001, shape) * np.sign(h.real)).astype(a)
            if name == "prod" and a.kind in "iu":
                h = rng.integers(1, 3, shape).astype(a)
            if name in ("any", "all"):
                z = rng.random(shape) < (0.9 if name == "any" else 0.0005)
                h = np.where(z, np.zeros((), a), h).astype(a)
            if name in ("min", "max") and a.kind == "c":
                h.real = rng.integers(1, 4, shape)              # ties in the real part
            if name in ("min", "max") and a.kind in "fc" and rng.random() < 0.3:
                h.flat[int(rng.integers(0, h.size))] = np.nan
            label, d, _ = one_layout(h)
            for ax in axes_for(len(shape)):
                for kd in (False, True):
                    ref, err = numpy_or_error(lambda: getattr(np, name)(h, axis=ax, keepdims=kd))
                    lab = "%s %s %s %s axis=%s kd=%s" % (name, shape, a, label, ax, kd)
                    if err is not None:
                        with pytest.raises(type(err)):
                            getattr(d, name)(axis=ax, keepdims=kd)
                        continue
                    n = h.size // max(ref.size, 1)
                    tol = {}
                    if name in ("sum", "mean", "prod") and ref.dtype.kind in "fc":
                        # against the sum in double precision: NumPy's own
                        # float32 / float16 rounding differs from any order
                        wide = np.complex128 if ref.dtype.kind == "c" else np.float64
                        ref = getattr(np, name)(h.astype(wide), axis=ax,
                                                keepdims=kd).astype(ref.dtype)
                        tol = sum_tol(h, ref, n)
                        if name == "mean":
                            tol["atol"] /= max(n, 1)
                        if name == "prod":      # relative errors add up
                            tol = {"rtol": 8 * tol["rtol"] * max(n, 1) ** 0.5 + 1e-12}
                    check(getattr(d, name)(axis=ax, keepdims=kd), ref, label=lab, **tol)
                    if rng.random() < 0.2:
                        check(getattr(cujit, name)(d, axis=ax, keepdims=kd), ref, label=lab,
                              **tol)


def test_reduction_dtypes_and_empty():
    h = rand((6, 5), np.int8)
    d = D(h)
    for name in ("sum", "prod", "mean"):
        for dt in (np.float32, np.int16, np.float64, np.complex64):
            ref = getattr(np, name)(h, axis=0, dtype=dt)
            check(getattr(d, name)(axis=0, dtype=dt), ref, rtol=1e-5)
    e = np.ones((0, 4), np.float32)
    de = D(e)
    check(de.sum(), e.sum())
    check(de.sum(axis=0), e.sum(axis=0))
    check(de.prod(axis=0), e.prod(axis=0))
    check(de.any(axis=0), e.any(axis=0))
    check(de.all(), e.all())
    check(de.max(axis=1), e.max(axis=1))
    with pytest.raises(ValueError, match="zero-size array to reduction operation minimum"):
        de.min()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(de.mean(axis=0), e.mean(axis=0))
    check(D(np.float64(3.5)).sum(), np.float64(3.5).sum())
    check(d.sum(axis=()), h.sum(axis=()))


@pytest.mark.parametrize("name", ["argmin", "argmax"])
def test_argminmax(name):
    """The first extreme (ties: many equal values), the first NaN, flattened
    indices for axis None; both kernel paths (blocks per row, a thread per row)."""
    for shape, axes in (((1000003,), [None, 0]), ((3, 70001), [None, 1, -1, 0]),
                        ((50000, 3), [0, 1]), ((6, 4000, 5), [1, None, 0, 2]),
                        ((7,), [0]), ((5, 9, 2, 3), [None, 2, -1])):
        for a in pick(ALL, 4):
            h = rand(shape, a, 1, 3)                # few distinct values: ties
            if a.kind == "c":
                h = (rng.integers(1, 3, shape) + 1j * rng.integers(1, 3, shape)).astype(a)
            if a.kind in "fc" and rng.random() < 0.5:
                h.flat[rng.integers(0, h.size, 3)] = np.nan if a.kind == "f" else 1j * np.nan
            label, d, _ = one_layout(h)
            for ax in axes:
                for kd in (False, True):
                    ref = getattr(np, name)(h, axis=ax, keepdims=kd)
                    check(getattr(d, name)(axis=ax, keepdims=kd), ref,
                          label="%s %s %s %s %s" % (name, shape, a, label, ax))
    with pytest.raises(ValueError, match="empty sequence"):
        getattr(D(np.ones((3, 0))), name)(axis=1)


def test_cumsum():
    for shape, axes in (((1,), [None]), ((1000003,), [None, 0]), ((3, 300001), [1, None]),
                        ((30000, 7), [0, 1]), ((4, 5000, 3), [1, 0, 2]), ((6, 7), [0, 1, -1])):
        for a in pick(ALL, 5):
            h = rand(shape, a, 1, 5)
            if a.kind in "fc":
                h = (h * 0.01).astype(a)
            label, d, _ = one_layout(h)
            for ax in axes:
                ref = np.cumsum(h, axis=ax)
                tol = {}
                if ref.dtype.kind in "fc":
                    # against running sums in double precision (NumPy's
                    # float32 / float16 ones drift on long rows)
                    wide = np.complex128 if ref.dtype.kind == "c" else np.float64
                    ref = np.cumsum(h.astype(wide), axis=ax).astype(ref.dtype)
                    tol = scan_tol(h, ref, h.size if ax is None else h.shape[ax])
                check(d.cumsum(axis=ax), ref, label="cumsum %s %s %s %s" % (shape, a, label, ax),
                      **tol)
    for dt in COMPLEX:              # long rows: the real and imaginary parts scanned apart
        h = (rand((2, 200003), dt) * 0.01).astype(dt)
        for ax in (1, None):
            ref = np.cumsum(h.astype(np.complex128), axis=ax).astype(dt)
            check(D(h).T.T.cumsum(axis=ax), ref,
                  **scan_tol(h, ref, h.size if ax is None else h.shape[1]))
    h = rand((5, 6), np.int8)
    check(D(h).cumsum(axis=1, dtype=np.float32), np.cumsum(h, axis=1, dtype=np.float32))
    check(cujit.cumsum(D(np.ones((0, 3)))), np.cumsum(np.ones((0, 3))))


# ---- creation, conversion, filling ----

def test_arange_linspace():
    for args in ((17,), (3, 1000), (2.5, 9.0, 0.25), (5, -7, -3), (0, 1, 0.1), (-1e6, 1e6, 1e3),
                 (np.float32(0), np.float32(1), np.float32(1 / 3)), (1, 2 ** 20)):
        check(cujit.arange(*args), np.arange(*args), label=str(args))
    for dt in (np.int8, np.uint16, np.float16, np.float32, np.int64):
        check(cujit.arange(3, 90, 4, dtype=dt), np.arange(3, 90, 4, dtype=dt), label=str(dt))
    for args, kw in (((0, 1), {}), ((-3, 7, 1001), {}), ((2, 3, 16), {"endpoint": False}),
                     ((np.float32(-1), np.float32(1), 777), {}), ((0, 100, 31), {"dtype": int}),
                     ((5, 5, 4), {}), ((1, 9, 1), {}), ((0, 1e-310, 5), {}),
                     ((0, 1e-323, 5), {})):
        check(cujit.linspace(*args, **kw), np.linspace(*args, **kw), rtol=1e-6, atol=1e-6,
              label=str((args, kw)))


def test_astype():
    for a in ALL:
        h = rand((7, 6), a, 1, 100, signed=False)
        for label, d, _ in layouts(h):
            for b in ALL:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ref = h.astype(b)
                    got = d.astype(b)
                check(got, ref, label="%s -> %s %s" % (a, b, label))
                assert got.c_contiguous or (label == "F" and got.f_contiguous) or \
                    (label == "T" and got.f_contiguous)


def test_fill():
    for a in ALL:
        for v in (3, 1.5, True, np.float32(2.25)):
            if a.kind in "b" and v == 1.5:
                continue
            h = rand((6, 5), a)
            d = D(h)
            d[:, ::2].fill(v)
            h[:, ::2].fill(v)
            d.T[1::2].fill(v)
            h.T[1::2].fill(v)
            check(d, h, label="fill %s %r" % (a, v))
            d2 = D(rand((4, 3), a))
            d2.fill(v)
            r = np.empty((4, 3), a)
            r.fill(v)
            check(d2, r)


# ---- views and copies ----

def test_views_and_copies():
    h = rand((4, 6, 5), np.float32)
    for label, d, _ in layouts(h):
        for shape in ((120,), (-1, 5), (24, 5), (4, 30), (2, 2, 6, 5), (5, 4, 6)):
            check(d.reshape(shape), h.reshape(shape), label="%s %s" % (label, shape))
            check(d.reshape(shape, order="F"), h.reshape(shape, order="F"),
                  label="F %s %s" % (label, shape))
        check(d.ravel(), h.ravel(), label=label)
        check(d.flatten(), h.flatten(), label=label)
        check(d.T, h.T, label=label)
        check(d.transpose(1, 2, 0), h.transpose(1, 2, 0), label=label)
        check(d.transpose((2, 0, 1)).reshape(-1), h.transpose((2, 0, 1)).reshape(-1))
        check(d[1, ::2, -1], h[1, ::2, -1])
        check(d[::-1, 2:5], h[::-1, 2:5])
        check(cujit.ascontiguousarray(d.T), np.ascontiguousarray(h.T))
        check(d.copy(), h)
    hc = rand((5, 6), np.complex64)
    dc = D(hc)
    check(dc.real, hc.real)
    check(dc.T.imag, hc.T.imag)
    dc.imag[::2] += 1
    hc.imag[::2] += 1
    check(dc, hc)
    q = rand((1, 4, 1, 3), np.int16)
    check(D(q).squeeze(), q.squeeze())
    check(D(q).squeeze(axis=(0, 2)), q.squeeze(axis=(0, 2)))
    # a reshaped copy is independent, a view is not
    d = D(h)
    v = d.reshape(-1)
    c = d.T.reshape(-1)
    v.fill(2)
    assert (d.copy_to_host() == 2).all() and not (c.copy_to_host() == 2).all()


# ---- operands of every kind ----

def test_mixed_operands():
    h = rand((5, 4), np.float32)
    d = D(h)
    g = rand((5, 4), np.float64)
    check(d + g, h + g)
    check(g - d, g - h)
    check(d * [1, 2, 3, 4], h * [1, 2, 3, 4])
    check([1.0, 2.0, 3.0, 4.0] / d, [1.0, 2.0, 3.0, 4.0] / h)
    check(np.float64(2) * d, np.float64(2) * h)
    check(2 ** d, 2 ** h, rtol=1e-5)
    check(d ** 2, h ** 2)
    q, r = divmod(d, 1.5)
    check(q, h // 1.5)
    check(r, h % 1.5)
    check(-d + abs(d) * (d > 0), -h + abs(h) * (h > 0))
    check((d > 1) & (d < 3), (h > 1) & (h < 3))
    check(~(d > 0), ~(h > 0))
    e = D(np.ones((0, 4), np.float32))
    check(e + d[0], np.ones((0, 4), np.float32) + h[0])


def test_cupy_and_torch_operands():
    try:
        import cupy
    except Exception:
        cupy = None
    try:
        import torch
        if not torch.cuda.is_available():
            torch = None
    except Exception:
        torch = None
    if cupy is None and torch is None:
        pytest.skip("neither CuPy nor PyTorch with CUDA is installed")
    h = rand((6, 7), np.float32)
    d = D(h)
    if cupy is not None:
        c = cupy.asarray(h)
        check(d + c, h + h)
        check(d * c[:, ::2][:, :1], h * h[:, :1])
        check(cujit.sqrt(abs(c)), np.sqrt(abs(h)))
        check(cujit.asnumpy(c).sum() + d.sum(), np.float32(h.sum() + h.sum()), rtol=1e-5)
        x = D(h.copy())
        x += c
        check(x, h + h)
    if torch is not None:
        t = torch.as_tensor(h, device="cuda")
        check(d - t, h - h)
        check(cujit.maximum(t, d), h)
