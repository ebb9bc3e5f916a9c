"""Tuple and namedtuple kernel arguments on the GPU, against NumPy on fresh
random data: tuples of numbers (one type and mixed, with members of every
alignment: int8 beside complex128), a constant and a variable index,
len(), unpacking, for loops, namedtuple fields, nested tuples, tuples of
arrays (host and device, C and F order) and of arrays, numbers and tuples,
a tuple passed on to a device function, both spellings (Numba's
`from cujit import cuda` and cujit's `jit.rawkernel`); Enum and IntEnum
members as globals, arguments (alone and in tuples), compared (==, !=,
is, between classes), .value, IntEnum arithmetic, returned from a device
function, in a vectorize body.

Each case is a plain function (CASES); tests/fakecuda/tuples_scenarios.py
runs the same ones without a GPU, through the fake libcuda with the kernels
compiled for the host (tests/test_tuples_nogpu.py), which checks cujit's
packing of the tuple structs too."""
from collections import namedtuple
from enum import Enum, IntEnum

import numpy as np
import pytest

import cujit
from cujit import cuda, jit
from cujit.cuda import types

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()

class Color(Enum):
    red = 1
    green = 2
    blue = 3


class Shape(IntEnum):
    circle = 2
    square = 500


class Level(IntEnum):
    low = -7
    two = 2


class Scale(Enum):
    small = 0.5
    large = 4.25


class Planet(Enum):
    MERCURY = (3.303e23, 2.4397e6)
    VENUS = (4.869e24, 6.0518e6)
    EARTH = (5.976e24, 6.37814e6)


Point = namedtuple("Point", ("x", "y", "r"))
Pair = namedtuple("Pair", ("lo", "hi"))


def rand(shape, dtype=np.float64):
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-50, 50, size=shape).astype(dtype)
    return rng.uniform(-2.0, 2.0, size=shape).astype(dtype)


def rint():
    return int(rng.integers(-1000, 1000))


def rfloat():
    return float(rng.uniform(-10.0, 10.0))


def host(x):
    return x if isinstance(x, np.ndarray) else cujit.asnumpy(x)


# ---- kernels, Numba's spelling ----

@cuda.jit
def scalars_kernel(r1, r2, x):
    r1[0] = x[0]
    r1[1] = x[1]
    r1[2] = x[2]
    r2[0] = x[3]
    r2[1] = x[4]


@cuda.jit
def var_index_kernel(r, x):
    i = cuda.grid(1)
    if i < len(x):
        r[i] = x[i] * 2


@cuda.jit
def unpack_loop_kernel(r, x):
    a, b, c = x
    r[0] = a - b * c
    s = 0.0
    for v in x:
        s += v
    r[1] = s


@cuda.jit
def named_kernel(r, p, q):
    r[0] = p.x + p.y
    r[1] = p.r * q.hi
    r[2] = q.lo
    r[3] = len(p)


@cuda.jit
def nested_kernel(r, x):
    r[0] = len(x)
    r[1] = len(x[0])
    r[2] = len(x[1])
    r[3] = x[0][0] + x[0][1]
    r[4] = x[1][0] * x[1][1] - x[1][2]
    r[5] = x[2]
    r[6] = len(x[3])


@cuda.jit
def arrays_kernel(x):
    i = cuda.grid(1)
    if i < len(x[0]):
        x[0][i] = x[1][i] + 2 * x[2][i]


@cuda.jit
def mixed_kernel(r, x):
    i = cuda.grid(1)
    if i < x[0].size:
        r[i] = x[0][i] * x[1] + x[2][0] - x[2][1]


@cuda.jit
def align_kernel(r, c, x):
    r[0] = x[0]
    c[0] = x[1]
    r[1] = x[2]
    r[2] = x[3]
    r[3] = x[4]
    r[4] = x[5]


@cuda.jit
def array2d_kernel(out, x):
    i, j = cuda.grid(2)
    a, b = x
    if i < a.shape[0] and j < a.shape[1]:
        out[i, j] = a[i, j] - b[i, j]


@cuda.jit(device=True)
def dot3(t, u):
    return t[0] * u[0] + t[1] * u[1] + t[2] * u[2]


@cuda.jit
def device_call_kernel(r, t, u):
    r[0] = dot3(t, u)


@cuda.jit
def empty_kernel(r, x, y):
    r[0] = len(x) + 10 * len(y)


@cuda.jit((types.float64[:], types.UniTuple(types.int32, 3), types.Tuple((types.float32,
                                                                          types.int64))))
def signed_kernel(r, t, u):
    r[0] = t[0] * t[1] - t[2]
    r[1] = u[0] * u[1]


@cuda.guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(n)->()")
def gu_dot(x, y, r):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * y[i]
    r[0] = s


@cuda.jit
def enum_compare_kernel(out, a, b):
    out[0] = a == b
    out[1] = a != b
    out[2] = a is b
    out[3] = a is not b


@cuda.jit
def enum_globals_kernel(out, codes):
    i = cuda.grid(1)
    if i < codes.size:
        # an array of ints against IntEnum members, a global Enum's value
        if codes[i] == Shape.square:
            out[i] = Shape.square - Level.low
        elif codes[i] > Shape.circle:
            out[i] = codes[i] * Color.blue.value + Shape["circle"]
        else:
            out[i] = Level.two + (Color.red == Color["red"]) * 100 + (Color.red == Color.green)


@cuda.jit(device=True)
def pick(flag):
    return Color.red if flag else Color.green


@cuda.jit
def enum_device_kernel(out, flags, scale):
    i = cuda.grid(1)
    if i < flags.size:
        c = pick(flags[i] > 0)
        out[i] = (c == Color.red) * 10 + (c is Color.green) + scale.value * 1000


@cuda.vectorize(["int64(int64)"])
def enum_vec(x):
    if x != Shape.square:
        return Shape["square"]
    return Level.low


@cuda.jit
def enum_tuple_kernel(out, t):
    out[0] = t[0] == Color.blue
    out[1] = t[1] + 1
    out[2] = t[2].value * 2


# ---- kernels, cujit's spelling ----

@jit.rawkernel()
def raw_scale(x, out, coef):
    i = jit.grid(1)
    if i < x.size:
        out[i] = coef.lo + coef.hi * x[i]


@jit.rawkernel()
def raw_arrays(t, out):
    i = jit.grid(1)
    if i < out.size:
        a, b = t
        out[i] = a[i] * b[i]


# ---- cases ----

def check_scalars():
    x = (rint(), rint(), rint(), rfloat(), rfloat())
    r1 = np.zeros(3, np.int64)
    r2 = np.zeros(2, np.float64)
    scalars_kernel[1, 1](r1, r2, x)
    np.testing.assert_array_equal(r1, np.array(x[:3], np.int64))
    np.testing.assert_array_equal(r2, np.array(x[3:], np.float64))


def check_var_index():
    x = tuple(rint() for _ in range(7))
    r = np.zeros(7, np.int64)
    var_index_kernel[1, 8](r, x)
    np.testing.assert_array_equal(r, np.array(x, np.int64) * 2)


def check_unpack_loop():
    x = (rfloat(), rfloat(), rfloat())
    r = np.zeros(2, np.float64)
    unpack_loop_kernel[1, 1](r, x)
    np.testing.assert_allclose(r, [x[0] - x[1] * x[2], x[0] + x[1] + x[2]], rtol=1e-12)


def check_namedtuple():
    p = Point(rint(), rint(), rfloat())
    q = Pair(rint(), rfloat())
    r = np.zeros(4, np.float64)
    named_kernel[1, 1](r, p, q)
    np.testing.assert_allclose(r, [p.x + p.y, p.r * q.hi, q.lo, 3], rtol=1e-12)


def check_nested():
    x = ((rint(), rint()), (rint(), rint(), rint()), rint(), ())
    r = np.zeros(7, np.int64)
    nested_kernel[1, 1](r, x)
    want = [4, 2, 3, x[0][0] + x[0][1], x[1][0] * x[1][1] - x[1][2], x[2], 0]
    np.testing.assert_array_equal(r, want)


def check_tuple_of_host_arrays():
    n = int(rng.integers(50, 300))
    x0, x1, x2 = np.zeros(n), rand(n), rand(n)
    arrays_kernel[(n + 63) // 64, 64]((x0, x1, x2))
    np.testing.assert_allclose(x0, x1 + 2 * x2, rtol=1e-12)


def check_tuple_of_device_arrays():
    n = int(rng.integers(50, 300))
    x1, x2 = rand(n, np.float32), rand(n, np.float32)
    d0 = cujit.to_device(np.zeros(n, np.float32))
    arrays_kernel[(n + 63) // 64, 64]((d0, cujit.to_device(x1), cujit.to_device(x2)))
    np.testing.assert_allclose(host(d0), x1 + 2 * x2, rtol=1e-6)


def check_array_scalar_tuple():
    n = int(rng.integers(10, 100))
    a = rand(n)
    k, t = rfloat(), (rfloat(), rfloat())
    r = np.zeros(n)
    mixed_kernel[1, 128](r, (a, k, t))
    np.testing.assert_allclose(r, a * k + t[0] - t[1], rtol=1e-12)


def check_alignment():
    # an int8 before a complex128 (16-aligned), a float32 and a bool after it
    x = (np.int8(rng.integers(-100, 100)), complex(rfloat(), rfloat()),
         np.float32(rfloat()), bool(rng.integers(0, 2)), np.int16(rng.integers(-999, 999)),
         rint())
    r = np.zeros(5, np.float64)
    c = np.zeros(1, np.complex128)
    align_kernel[1, 1](r, c, x)
    np.testing.assert_allclose(r, [x[0], x[2], x[3], x[4], x[5]], rtol=1e-6)
    assert c[0] == x[1]


def check_2d_arrays_c_and_f():
    m, n = int(rng.integers(5, 40)), int(rng.integers(5, 40))
    a = rand((m, n))
    b = np.asfortranarray(rand((m, n)))
    out = np.zeros((m, n))
    array2d_kernel[((m + 7) // 8, (n + 7) // 8), (8, 8)](out, (a, b))
    np.testing.assert_allclose(out, a - b, rtol=1e-12)


def check_device_function():
    t = (rfloat(), rfloat(), rfloat())
    u = (rint(), rint(), rint())
    r = np.zeros(1)
    device_call_kernel[1, 1](r, t, u)
    np.testing.assert_allclose(r[0], sum(a * b for a, b in zip(t, u)), rtol=1e-12)


def check_empty():
    r = np.full(1, -1, np.int64)
    y = ((), ())
    empty_kernel[1, 1](r, (), y)
    assert r[0] == 20


def check_types_give_new_binaries():
    # the same kernel with (int, int, int) and (float, float, float): two
    # binaries, each right
    for x in [(rint(), rint(), rint()), (rfloat(), rfloat(), rfloat())]:
        r = np.zeros(2, np.float64)
        unpack_loop_kernel[1, 1](r, x)
        np.testing.assert_allclose(r, [x[0] - x[1] * x[2], sum(x)], rtol=1e-12)


def check_explicit_signature():
    # Python ints for a UniTuple(int32, 3): converted as Numba's typed launch
    # does; a tuple of another length has no signature
    t = (rint(), rint(), rint())
    u = (rfloat(), rint())
    r = np.zeros(2)
    signed_kernel[1, 1](r, t, u)
    np.testing.assert_allclose(r, [t[0] * t[1] - t[2], np.float32(u[0]) * u[1]], rtol=1e-6)
    with pytest.raises(TypeError, match="No matching definition"):
        signed_kernel[1, 1](r, t[:2], u)


def check_gufunc_tuple_inputs():
    # a generalized ufunc takes tuples as NumPy does: array_like
    a = (rand(3), rand(3))
    b = tuple(Point(rfloat(), rfloat(), rfloat()) for _ in range(2))
    got = host(gu_dot(a, b))
    np.testing.assert_allclose(got, np.sum(np.asarray(a) * np.asarray(b), axis=1), rtol=1e-12)
    n = int(rng.integers(2, 20))
    c = tuple(tuple(rfloat() for _ in range(n)) for _ in range(4))
    d = tuple(rand(n) for _ in range(4))
    got = host(gu_dot(c, d))
    np.testing.assert_allclose(got, np.sum(np.asarray(c) * np.asarray(d), axis=1), rtol=1e-12)


def check_rawkernel_namedtuple():
    n = int(rng.integers(100, 1000))
    x = rand(n, np.float32)
    coef = Pair(np.float32(rfloat()), np.float32(rfloat()))
    out = cujit.empty(n, np.float32)
    raw_scale[(n + 127) // 128, 128](cujit.to_device(x), out, coef)
    np.testing.assert_allclose(host(out), coef.lo + coef.hi * x, rtol=1e-5, atol=1e-5)


def check_rawkernel_arrays():
    n = int(rng.integers(100, 1000))
    a, b = rand(n, np.int32), rand(n, np.int32)
    out = cujit.empty(n, np.int32)
    raw_arrays[(n + 127) // 128, 128]((cujit.to_device(a), cujit.to_device(b)), out)
    np.testing.assert_array_equal(host(out), a * b)


def check_enum_arguments_compare():
    pairs = [(Color.red, Color.red), (Color.red, Color.green), (Shape.circle, Level.two),
             (Shape.square, Shape.square), (Scale.small, Scale.large), (Color.green, Shape.circle),
             (Planet.EARTH, Planet.EARTH), (Planet.VENUS, Planet.MERCURY)]
    for a, b in pairs:
        got = np.zeros(4, np.bool_)
        enum_compare_kernel[1, 1](got, a, b)
        np.testing.assert_array_equal(got, [a == b, a != b, a is b, a is not b], str((a, b)))


def check_enum_globals():
    n = int(rng.integers(50, 300))
    codes = rng.choice(np.array([2, 500, 404, 1, -3, 7], np.int64), n)
    out = np.zeros(n, np.int64)
    enum_globals_kernel[(n + 63) // 64, 64](out, codes)
    want = np.where(codes == 500, 507, np.where(codes > 2, codes * 3 + 2, 2 + 100))
    np.testing.assert_array_equal(out, want)


def check_enum_device_function():
    n = int(rng.integers(50, 300))
    flags = rng.integers(-5, 5, n)
    for scale in Scale:
        out = np.zeros(n)
        enum_device_kernel[(n + 63) // 64, 64](out, flags, scale)
        np.testing.assert_allclose(out, np.where(flags > 0, 10, 1) + scale.value * 1000)


def check_enum_vectorize():
    x = rng.choice(np.array([500, 2, 9, -7], np.int64), int(rng.integers(20, 200)))
    np.testing.assert_array_equal(host(enum_vec(x)), np.where(x != 500, 500, -7))


def check_enum_in_tuple():
    for c in Color:
        out = np.zeros(3)
        k = rint()
        enum_tuple_kernel[1, 1](out, (c, Shape.square if k > 0 else Level.low, Scale.large))
        s = Shape.square if k > 0 else Level.low
        np.testing.assert_allclose(out, [c == Color.blue, s + 1, 8.5])


CASES = [v for k, v in sorted(globals().items()) if k.startswith("check_")]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__[6:] for c in CASES])
def test_tuples(case):
    case()
