"""NumPy's protocols and device-side writes on the GPU, against NumPy on
fresh random data: NumPy ufuncs on DeviceArrays (__array_ufunc__: values,
out=, reduce, accumulate, host operands), NumPy functions
(__array_function__), copy() and cujit.copy of every layout, and
a[key] = value into strided views with NumPy's broadcasting and casting
(device, host and scalar values, overlapping copies, foreign device
arrays)."""
import itertools
import warnings

import numpy as np
import pytest

import cujit

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()
D = cujit.to_device
ALL = [np.dtype(t) for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8,
                             np.uint16, np.uint32, np.uint64, np.float16, np.float32,
                             np.float64, np.complex64, np.complex128)]
RTOL = {"e": 2e-3, "f": 2e-6, "d": 1e-13, "F": 2e-6, "D": 1e-13}


def rand(shape, dtype, lo=1, hi=40):
    """Random non-zero values of dtype (booleans: random), both signs."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        v = rng.integers(lo, min(hi, np.iinfo(dt).max), shape, endpoint=True)
        return (v * (rng.choice([-1, 1], shape) if dt.kind == "i" else 1)).astype(dt)
    v = rng.uniform(0.25, 4, shape) * rng.choice([-1, 1], shape)
    if dt.kind == "c":
        v = v + 1j * rng.uniform(-4, 4, shape)
    return np.asarray(v).astype(dt)


def check(got, ref, label="", rtol=None):
    """A DeviceArray of NumPy's shape, dtype and values."""
    assert type(got) is cujit.DeviceArray, (label, type(got))
    ref = np.asarray(ref)
    assert (got.shape, got.dtype) == (ref.shape, ref.dtype), (label, got.shape, got.dtype,
                                                              ref.shape, ref.dtype)
    g = got.copy_to_host()
    if ref.dtype.kind in "fc":
        np.testing.assert_allclose(g, ref, rtol=rtol or RTOL[ref.dtype.char], equal_nan=True,
                                   err_msg=label)
    else:
        np.testing.assert_array_equal(g, ref, err_msg=label)


def strided(h):
    """A DeviceArray view (every other element of a bigger array) holding h."""
    big = rand(tuple(2 * s + 1 for s in h.shape), h.dtype)
    idx = tuple(slice(1, None, 2) for _ in h.shape)
    big[idx] = h
    return D(big)[idx]


def layouts(h):
    """h on the device: C, F, strided, reversed and transposed views."""
    yield "C", D(h)
    if h.ndim >= 2:
        yield "F", D(np.asfortranarray(h))
        yield "T", D(np.ascontiguousarray(h.T)).T
    if h.ndim >= 1:
        yield "strided", strided(h)
        rev = tuple(slice(None, None, -1) for _ in h.shape)
        yield "reversed", D(np.ascontiguousarray(h[rev]))[rev]


def shape():
    return tuple(int(s) for s in rng.integers(2, 7, int(rng.integers(1, 4))))


# ---- __array_ufunc__ ----

UNARY = [np.negative, np.absolute, np.sqrt, np.exp, np.log, np.sin, np.cos, np.tan, np.tanh,
         np.floor, np.ceil, np.isnan, np.logical_not]
BINARY = [np.add, np.subtract, np.multiply, np.true_divide, np.minimum, np.maximum, np.arctan2,
          np.less, np.less_equal, np.equal, np.not_equal, np.greater, np.greater_equal,
          np.logical_and, np.logical_or, np.logical_xor]
INTEGER = [np.floor_divide, np.remainder, np.bitwise_and, np.bitwise_or, np.bitwise_xor,
           np.left_shift, np.right_shift, np.invert]


def _ref(f):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return f(), None
        except Exception as e:
            return None, e


@pytest.mark.parametrize("uf", UNARY, ids=lambda u: u.__name__)
def test_unary_ufuncs(uf):
    for dt in ALL:
        if uf in (np.floor, np.ceil) and dt.kind == "c":
            continue
        h = rand(shape(), dt)
        if uf in (np.sqrt, np.log) and dt.kind != "c":
            h = np.abs(h)
        if uf is np.tan and dt.kind in "fc":
            h = (h / 4).astype(dt)                  # away from the poles
        ref, err = _ref(lambda: uf(h))
        for label, d in layouts(h):
            if err is not None:
                with pytest.raises(type(err)):
                    uf(d)
                continue
            check(uf(d), ref, "%s %s %s" % (uf.__name__, dt, label))


@pytest.mark.parametrize("uf", BINARY, ids=lambda u: u.__name__)
def test_binary_ufuncs(uf):
    for a, b in itertools.product(ALL, ALL):
        if a != b and rng.random() > 0.2:
            continue
        sa = shape()
        sb = sa[int(rng.integers(0, len(sa))):]
        x, y = rand(sa, a), rand(sb, b)
        ref, err = _ref(lambda: uf(x, y))
        (la, dx), (lb, dy) = list(layouts(x))[-1], next(layouts(y))
        label = "%s %s %s %s %s" % (uf.__name__, a, b, la, lb)
        if err is not None:
            with pytest.raises(type(err)):
                uf(dx, dy)
            continue
        check(uf(dx, dy), ref, label)
        check(uf(dx, y), ref, label + " host right")        # host operands are copied
        check(uf(x, dy), ref, label + " host left")
        s = y.ravel()[0].item()
        ref_s, err_s = _ref(lambda: uf(x, s))
        if err_s is None:
            check(uf(dx, s), ref_s, label + " scalar")


@pytest.mark.parametrize("uf", INTEGER, ids=lambda u: u.__name__)
def test_integer_ufuncs(uf):
    for dt in [d for d in ALL if d.kind in "biu"]:
        x = rand(shape(), dt)
        if uf is np.invert:
            for label, d in layouts(x):
                check(uf(d), np.invert(x), "invert %s %s" % (dt, label))
            continue
        if uf in (np.left_shift, np.right_shift):
            y = rng.integers(0, 8 * dt.itemsize - 1, x.shape).astype(dt) if dt.kind != "b" \
                else rand(x.shape, dt)
            x = np.abs(x)
        else:
            y = np.abs(rand(x.shape, dt)) if dt.kind != "b" else np.ones(x.shape, bool)
        ref, err = _ref(lambda: uf(x, y))
        if err is not None:
            with pytest.raises(type(err)):
                uf(D(x), D(y))
            continue
        for label, d in layouts(x):
            check(uf(d, D(y)), ref, "%s %s %s" % (uf.__name__, dt, label))


def test_divmod_power_and_operators_with_host_arrays():
    x, y = rand((5, 7), np.float64), rand((5, 7), np.float32)
    q, r = np.divmod(D(x), D(y))
    check(q, np.divmod(x, y)[0])
    check(r, np.divmod(x, y)[1])
    check(np.power(np.abs(D(x)), D(y)), np.power(np.abs(x), y))
    b = rand(9, np.bool_)
    check(np.power(D(b), 2), np.power(b, 2))
    check(x + D(y), x + y)              # ndarray + DeviceArray: numpy.add, host copied
    check(x < D(y), x < y)
    check(D(x) * y, x * y)


def test_ufunc_out():
    for dt in (np.float32, np.float64, np.int32, np.complex64):
        x, y = rand((6, 5), dt), rand((5,), dt)
        for label, o in layouts(rand((6, 5), dt)):
            r = np.add(D(x), D(y), out=o)
            assert r is o
            check(o, x + y, "add out %s %s" % (dt, label))
            r = np.multiply(D(x), 3, out=(o,))
            assert r is o
            check(o, x * 3, "multiply out %s %s" % (dt, label))
    # out= of another dtype (NumPy's same_kind rule), broadcasting, in place
    x = rand((4, 6), np.float32)
    o = D(np.zeros((4, 6), np.float64))
    np.sqrt(D(np.abs(x)), out=o)
    check(o, np.sqrt(np.abs(x)).astype(np.float64))
    d = D(x)
    np.add(d, d[0], out=d)
    check(d, x + x[0])
    d = D(x)
    np.negative(d[:, ::2], out=d[:, ::2])
    ref = x.copy()
    ref[:, ::2] *= -1
    check(d, ref)
    d = D(x)
    np.floor(d, out=d)
    check(d, np.floor(x))


SUM_RTOL = {"f": 1e-5, "d": 1e-12}


def test_ufunc_reduce_and_accumulate():
    for dt in (np.int8, np.uint16, np.float32, np.float64, np.bool_):
        h = rand((5, 6, 7), dt)
        h = h if dt == np.bool_ else np.abs(h)      # sums without cancellation
        tol = SUM_RTOL.get(np.dtype(dt).char)
        for label, d in layouts(h):
            for uf in (np.add, np.multiply, np.minimum, np.maximum, np.logical_and,
                       np.logical_or):
                if uf is np.multiply and dt != np.float64:
                    continue
                for kw in ({}, {"axis": None}, {"axis": 2}, {"axis": (0, 2)},
                           {"axis": 1, "keepdims": True}):
                    check(uf.reduce(d, **kw), uf.reduce(h, **kw),
                          "%s.reduce %s %s %s" % (uf.__name__, dt, label, kw), tol)
            check(np.add.accumulate(d), np.add.accumulate(h), "accumulate %s %s" % (dt, label),
                  tol)
            check(np.add.accumulate(d, axis=2), np.add.accumulate(h, axis=2),
                  "accumulate axis 2 %s %s" % (dt, label), tol)
    h = np.abs(rand((5, 6), np.float32))
    o = D(np.zeros(6, np.float64))
    assert np.add.reduce(D(h), dtype=np.float64, out=o) is o
    check(o, np.add.reduce(h, dtype=np.float64), rtol=1e-12)


def test_ufunc_refusals():
    d = D(rand((3, 4), np.float32))
    with pytest.raises(TypeError, match="does not support numpy.ufunc 'fmod'"):
        np.fmod(d, 2)
    with pytest.raises(TypeError, match="out= must be a cujit.DeviceArray"):
        np.add(d, d, out=np.empty((3, 4), np.float32))
    h = np.ones((3, 4), np.float32)
    with pytest.raises(TypeError):
        h += d                          # would copy the result to the host


# ---- __array_function__ ----

def test_numpy_functions():
    for dt in (np.float32, np.int16, np.float64):
        h = rand((5, 6), dt)
        p = np.abs(h)                                   # sums without cancellation
        tol = SUM_RTOL.get(np.dtype(dt).char)
        for label, d in layouts(h):
            lab = "%s %s" % (dt, label)
            dp = abs(d)
            check(np.sum(dp), np.sum(p), lab, tol)
            check(np.sum(dp, axis=0, keepdims=True), np.sum(p, axis=0, keepdims=True), lab, tol)
            check(np.prod(d[:2], axis=1, dtype=np.float64),
                  np.prod(h[:2], axis=1, dtype=np.float64), lab, 1e-12)
            check(np.min(d, axis=1), np.min(h, axis=1), lab)
            check(np.amax(d), np.amax(h), lab)
            check(np.mean(dp, axis=0), np.mean(p, axis=0), lab, tol)
            check(np.argmax(d, axis=1), np.argmax(h, axis=1), lab)
            check(np.any(d > 3, axis=0), np.any(h > 3, axis=0), lab)
            check(np.all(d > -100), np.all(h > -100), lab)
            check(np.cumsum(dp, axis=1), np.cumsum(p, axis=1), lab, tol)
            check(np.where(d > 0, d, 0), np.where(h > 0, h, 0), lab)
            check(np.clip(d, -3, 5), np.clip(h, -3, 5), lab)
            check(np.reshape(d, (6, 5)), np.reshape(h, (6, 5)), lab)
            check(np.ravel(d, order="F"), np.ravel(h, order="F"), lab)
            check(np.transpose(d), np.transpose(h), lab)
            check(np.copy(d), np.copy(h), lab)
            check(np.astype(d, np.float32), np.astype(h, np.float32), lab)
            assert np.shape(d) == h.shape and np.ndim(d) == 2


# ---- copies ----

@pytest.mark.parametrize("dt", ALL, ids=str)
def test_copy_every_layout(dt):
    h = rand((5, 7, 3), dt)
    views = list(layouts(h))
    d = D(h)
    views += [("sliced", d[1:4, ::3, ::-1]), ("column", d[:, 2, 1]), ("0-d", d[2, 3, 1])]
    for label, v in views:
        ref = v.copy_to_host()
        for order in ("C", "F", "A", "K"):
            c = v.copy(order=order)
            check(c, np.copy(ref, order=order), "%s %s %s" % (dt, label, order))
            assert c.ptr != v.ptr or v.size == 0
            want_f = order == "F" or (order in "AK" and v.f_contiguous and not v.c_contiguous)
            assert c.f_contiguous if want_f else c.c_contiguous, (label, order)
        check(cujit.copy(v), ref, "cujit.copy %s %s" % (dt, label))
        check(np.copy(v), ref, "np.copy %s %s" % (dt, label))
    e = D(np.zeros((0, 4), dt))
    assert e[:, ::2].copy().shape == (0, 2)


def test_copy_is_independent():
    h = rand((8, 9), np.float32)
    d = D(h)
    c = d[::2, 1::3].copy()
    d[...] = 0
    check(c, h[::2, 1::3])


def test_to_device_of_strided_foreign_views():
    class CAI:
        def __init__(self, a):
            self.a = a

        @property
        def __cuda_array_interface__(self):
            return self.a.__cuda_array_interface__

    h = rand((6, 8), np.float64)
    d = D(h)
    for key in (np.s_[1:, ::2], np.s_[::-1], np.s_[:, 3], np.s_[::2, ::-3]):
        check(cujit.to_device(CAI(d[key])), h[key], str(key))
        t = D(np.zeros(h[key].shape))
        t.copy_to_device(CAI(d[key]))
        check(t, h[key], str(key))


# ---- a[key] = value into strided views ----

KEYS = [np.s_[::2], np.s_[:, ::3], np.s_[1::2, ::-2], np.s_[::-1, 1], np.s_[..., 2:5:2],
        np.s_[None, ::2, 1:], np.s_[2, ::2]]


@pytest.mark.parametrize("key", KEYS, ids=str)
def test_setitem_strided_values(key):
    for dt in (np.float32, np.int64, np.float16, np.complex128, np.bool_, np.uint8):
        base = rand((6, 8), dt)
        target = base[key]
        for vdt in (dt, np.float64, np.int16):
            vals = [rand(target.shape, vdt)]                      # full shape
            if target.ndim:
                vals.append(rand(target.shape[-1:], vdt))         # a row, broadcast
                vals.append(rand((1,) + target.shape, vdt))       # leading 1 dropped
            for v in vals:
                for kind, value in (("device", D(v)), ("host", v),
                                    ("strided device", strided(v)), ("list", v.tolist())):
                    label = "%s %s <- %s %s %s" % (dt, key, kind, np.dtype(vdt), v.shape)
                    ref = base.copy()
                    d = D(base)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        try:
                            ref[key] = value if kind in ("host", "list") else v
                        except Exception as e:          # a list out of range: as NumPy
                            with pytest.raises(type(e)):
                                d[key] = value
                            continue
                        d[key] = value
                    check(d, ref, label)


@pytest.mark.parametrize("dt", ALL, ids=str)
def test_setitem_strided_scalars(dt):
    h = rand((7, 6), dt)
    scalars = [1, True, np.int8(3)]
    if dt.kind in "fc":
        scalars += [2.5, np.float32(-1.25), np.float64(3.75)]
    if dt.kind == "c":
        scalars += [1 - 2j, np.complex64(2 + 1j)]
    for s in scalars:
        for key in (np.s_[:, ::2], np.s_[::-3], np.s_[1, ::2], np.s_[1:3]):
            ref = h.copy()
            ref[key] = s
            d = D(h)
            d[key] = s
            check(d, ref, "%s %s = %r" % (dt, key, s))
            ref[key] = np.array(s, dtype=dt)
            d[key] = np.array(s, dtype=dt)                  # a 0-d host array
            check(d, ref, "%s %s = 0-d %r" % (dt, key, s))


def test_setitem_overlapping():
    for dt in (np.float32, np.int16, np.complex64):
        h = rand((9, 10), dt)
        for dst, src in ((np.s_[1:], np.s_[:-1]), (np.s_[:-1], np.s_[1:]),
                         (np.s_[:, ::2], np.s_[:, 1::2]), (np.s_[::-1], np.s_[:]),
                         (np.s_[...], np.s_[0]), (np.s_[2:, 3], np.s_[:-2, 3])):
            ref = h.copy()
            ref[dst] = h[src].copy()
            d = D(h)
            d[dst] = d[src]
            check(d, ref, "%s %s <- %s" % (dt, dst, src))


def test_setitem_casts_as_numpy():
    h = rand((6, 6), np.float64) * 10
    i = D(np.zeros((6, 6), np.int32))
    i[:, ::2] = D(h)[:, ::2]
    ref = np.zeros((6, 6), np.int32)
    ref[:, ::2] = h[:, ::2]
    check(i, ref)
    b = D(np.zeros((6, 6), bool))
    b[::2] = D(h)[::2]
    ref = np.zeros((6, 6), bool)
    ref[::2] = h[::2]
    check(b, ref)
    f = D(np.zeros(8, np.float32))
    with pytest.warns(np.exceptions.ComplexWarning):
        f[::2] = D(rand(4, np.complex64))
    with pytest.raises(OverflowError):
        D(np.zeros(8, np.int8))[::2] = 300
