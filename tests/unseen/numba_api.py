"""numba.cuda kernels that walk the breadth of the language and of the API
in the combinations real code has (tuples, namedtuples, records, complex
and cmath, float16, integer semantics, math.*, builtins, control flow,
device functions with defaults and recursion, globals and closures, shared,
dynamic shared and local arrays, views, atomics, warp intrinsics, votes,
print, assert, odd layouts, 0-d arrays, forall, specialize, eager
signatures), written the way users write them.

This module imports neither cujit nor numba: each case is a function
that builds its kernels with the module's global `cuda` and returns a
`Case`; load(api) gives a fresh copy of this module whose `cuda` is the API
module (`from cujit import cuda` or `from numba import cuda`): the kernels
read `cuda` as a global, as users' kernels do, and a kernel compiles
against the module it was written with (numba-cuda's simulator swaps that
global too).  tests/gpu/test_unseen_
numba_api.py runs every case on the GPU under cujit (and under numba-cuda
where it is installed); tests/test_unseen_numba_api_nogpu.py compiles every
case through cujit and runs those whose meaning needs no threads running
together on the host, through the fake libcuda
(tests/fakecuda/unseenapi_scenarios.py).  Every case also runs in
numba-cuda's simulator (NUMBA_ENABLE_CUDASIM=1), which checks the kernel
and its reference."""
import cmath
import importlib.util
import math
from collections import namedtuple

import numpy as np

CASES = []
# the cases cujit gets wrong for now, and why: the tests mark them xfail (strict)
CUJIT_XFAIL = {}
cuda = None         # the API module: load() sets it


def load(api, name=None):
    """A fresh copy of this module whose kernels use `api` as `cuda`."""
    spec = importlib.util.spec_from_file_location(
        name or "numba_api_" + api.__name__.replace(".", "_"), __file__)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.cuda = api
    return mod

# module-level globals the kernels read as constants
GAIN = 2.5
TAPS = (0.25, 0.5, 0.25)
NBINS = 8
LUT = np.array([0.0, 1.0, 4.0, 9.0, 16.0, 25.0, 36.0, 49.0], dtype=np.float32)
OFFSETS2D = np.array([[1, -1], [2, -2], [3, -3]], dtype=np.int64)
Point = namedtuple("Point", ["x", "y"])
Params = namedtuple("Params", ["scale", "shift", "count"])

PARTICLE = np.dtype([("id", np.int32), ("mass", np.float64), ("vel", np.float32, 3)],
                    align=True)
INNER = np.dtype([("x", np.float32), ("y", np.float32)])
BODY = np.dtype([("pos", INNER), ("w", np.float64), ("tag", np.uint8)], align=True)
SETTINGS = np.dtype([("scale", np.float64), ("shift", np.float32), ("n", np.int32)])


class Case:
    """What the tests need of one case.

    kernel(s): the kernels it launches (the host runner looks sources up
    there); grid, block, shared: the launch configuration; make(rng): the
    arguments; ref(args): the expected values of args[i] for i in outs,
    computed from a copy of the arguments taken before the launch; run:
    launches (default: kernel[grid, block, 0, shared](*args)); check:
    replaces the comparison with ref, check(before, after); printed(args):
    the lines the kernel prints, each a list of tokens (numbers compared
    as numbers, in any order of lines); tol: rtol for floating outputs;
    threads: its meaning needs threads running together (no host run);
    sim: why numba-cuda's simulator cannot run it (numba-cuda compiles
    it to PTX instead)."""

    def __init__(self, kernel, grid, block, make, ref=None, outs=(), shared=0, run=None,
                 check=None, printed=None, tol=1e-9, kernels=None, threads=False, sim=None):
        self.kernel = kernel
        self.kernels = kernels or [kernel]
        self.grid, self.block, self.shared = grid, block, shared
        self.make, self.ref, self.outs = make, ref, tuple(outs)
        self.run_fn, self.check, self.printed, self.tol = run, check, printed, tol
        self.threads = threads
        self.sim = sim

    def run(self, args):
        if self.run_fn is not None:
            self.run_fn(args)
        else:
            self.kernel[self.grid, self.block, 0, self.shared](*args)


def case(fn):
    CASES.append(fn)
    return fn


def compare(c, before, after):
    """Fails with what differs: after (the launched arguments) against
    c.ref(before) or c.check."""
    if c.check is not None:
        c.check(before, after)
        return
    want = c.ref(before)
    assert len(want) == len(c.outs), "ref gives %d values for %d outputs" % (
        len(want), len(c.outs))
    for i, w in zip(c.outs, want):
        got = np.asarray(after[i])
        w = np.asarray(w)
        if got.dtype.kind in "fc":
            np.testing.assert_allclose(got, w, rtol=c.tol, atol=c.tol, equal_nan=True,
                                       err_msg="argument %d" % i)
        else:
            np.testing.assert_array_equal(got, w, err_msg="argument %d" % i)


def compare_printed(expected, text):
    """The printed lines against the expected token lists, in any order."""
    got = sorted(line.split() for line in text.strip().splitlines() if line.strip())
    want = sorted([str(t) for t in line] for line in expected)
    assert len(got) == len(want), "printed %d lines, expected %d:\n%s" % (
        len(got), len(want), text)

    def key(tokens):
        return [t if not _number(t) else "#" for t in tokens]
    got.sort(key=lambda t: (key(t), [float(x) for x in t if _number(x)]))
    want.sort(key=lambda t: (key(t), [float(x) for x in t if _number(x)]))
    for g, w in zip(got, want):
        assert len(g) == len(w), (g, w)
        for a, b in zip(g, w):
            if _number(b):
                assert _number(a) and math.isclose(float(a), float(b), rel_tol=1e-5,
                                                   abs_tol=1e-5), (g, w)
            else:
                assert a == b, (g, w)


def _number(t):
    try:
        float(t)
        return True
    except ValueError:
        return False


def ncopy(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


# ---------------------------------------------------------------- tuples

@case
def tuple_pack_unpack_swap():
    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i >= x.shape[0]:
            return
        t = (x[i], x[i] * 2.0, i)
        a, b, c = t
        a, b = b, a
        out[i, 0] = a + t[2]
        out[i, 1] = b * t[1]
        out[i, 2] = c - len(t)

    def make(rng):
        return [rng.standard_normal(100), np.zeros((100, 3))]

    def ref(a):
        x = a[0]
        i = np.arange(100)
        return [np.stack([2 * x + i, x * 2 * x, i - 3.0], axis=1)]
    return Case(k, 4, 32, make, ref, outs=[1])


@case
def tuple_returned_by_device_function():
    @cuda.jit(device=True)
    def stats3(a, b, c):
        lo = min(a, b, c)
        hi = max(a, b, c)
        return lo, hi, a + b + c

    @cuda.jit
    def k(x, y, z, spread, first):
        i = cuda.grid(1)
        if i < x.size:
            lo, hi, s = stats3(x[i], y[i], z[i])
            spread[i] = hi - lo + s * 0.5
            r = stats3(z[i], y[i], x[i])
            first[i] = r[0]

    def make(rng):
        return [rng.standard_normal(70), rng.standard_normal(70), rng.standard_normal(70),
                np.zeros(70), np.zeros(70)]

    def ref(a):
        x, y, z = a[:3]
        lo = np.minimum(np.minimum(x, y), z)
        hi = np.maximum(np.maximum(x, y), z)
        return [hi - lo + (x + y + z) * 0.5, lo]
    return Case(k, 3, 32, make, ref, outs=[3, 4])


@case
def tuple_kernel_arguments():
    @cuda.jit
    def k(x, coef, pair, out):
        i = cuda.grid(1)
        if i < x.shape[0]:
            acc = 0.0
            p = 1.0
            for c in coef:
                acc += c * p
                p *= x[i]
            n, w = pair
            out[i] = acc + n * w + coef[len(coef) - 1]

    def make(rng):
        return [rng.standard_normal(50), (1.5, -2.0, 0.25), (3, 0.5), np.zeros(50)]

    def ref(a):
        x = a[0]
        return [1.5 - 2.0 * x + 0.25 * x * x + 1.5 + 0.25]
    return Case(k, 2, 32, make, ref, outs=[3])


@case
def namedtuple_argument_and_built():
    @cuda.jit(device=True)
    def dist(p, q):
        return math.hypot(p.x - q.x, p.y - q.y)

    @cuda.jit
    def k(xs, ys, origin, prm, out):
        i = cuda.grid(1)
        if i < xs.size:
            p = Point(xs[i], ys[i])
            d = dist(p, origin)
            out[i] = d * prm.scale + prm.shift + prm.count + p[0]

    def make(rng):
        return [rng.standard_normal(40), rng.standard_normal(40), Point(0.5, -1.0),
                Params(2.0, 0.25, 3), np.zeros(40)]

    def ref(a):
        x, y = a[0], a[1]
        return [np.hypot(x - 0.5, y + 1.0) * 2.0 + 0.25 + 3 + x]
    return Case(k, 2, 32, make, ref, outs=[4])


# ---------------------------------------------------------------- records

@case
def record_fields_read_and_written():
    @cuda.jit
    def k(parts, speed):
        i = cuda.grid(1)
        if i < parts.shape[0]:
            p = parts[i]
            s = 0.0
            for d in range(3):
                s += p.vel[d] * p.vel[d]
            speed[i] = math.sqrt(s) + p.id
            p.mass = p.mass * 2.0
            parts[i]["id"] = p.id + 1
            p.vel[0] = -p.vel[0]

    def make(rng):
        a = np.zeros(60, PARTICLE)
        a["id"] = rng.integers(-100, 100, 60)
        a["mass"] = rng.random(60) + 0.5
        a["vel"] = rng.standard_normal((60, 3))
        return [a, np.zeros(60)]

    def ref(a):
        p = a[0].copy()
        v = p["vel"].astype(np.float64)
        speed = np.sqrt((v * v).sum(axis=1)) + p["id"]
        p["mass"] *= 2.0
        p["id"] += 1
        p["vel"][:, 0] *= -1
        return [p, speed]

    def check(before, after):
        want_p, want_s = ref(before)
        got = after[0]
        np.testing.assert_array_equal(got["id"], want_p["id"])
        np.testing.assert_allclose(got["mass"], want_p["mass"], rtol=1e-12)
        np.testing.assert_allclose(got["vel"], want_p["vel"], rtol=1e-6)
        np.testing.assert_allclose(after[1], want_s, rtol=1e-5)
    return Case(k, 2, 32, make, check=check)


@case
def nested_record_fields():
    @cuda.jit
    def k(bodies, out):
        i = cuda.grid(1)
        if i < len(bodies):
            b = bodies[i]
            px = b.pos.x
            py = b.pos.y
            out[i] = px * b.w + py
            b.pos.x = py
            b.pos.y = px
            b.tag = b.tag + 200

    def make(rng):
        a = np.zeros(45, BODY)
        a["pos"]["x"] = rng.standard_normal(45)
        a["pos"]["y"] = rng.standard_normal(45)
        a["w"] = rng.random(45)
        a["tag"] = rng.integers(0, 256, 45)
        return [a, np.zeros(45)]

    def check(before, after):
        b = before[0]
        x = b["pos"]["x"].astype(np.float64)
        y = b["pos"]["y"].astype(np.float64)
        np.testing.assert_allclose(after[1], x * b["w"] + y, rtol=1e-6)
        np.testing.assert_array_equal(after[0]["pos"]["x"], b["pos"]["y"])
        np.testing.assert_array_equal(after[0]["pos"]["y"], b["pos"]["x"])
        np.testing.assert_array_equal(after[0]["tag"],
                                      (b["tag"].astype(np.int64) + 200).astype(np.uint8))
        np.testing.assert_array_equal(after[0]["w"], b["w"])
    return Case(k, 2, 32, make, check=check)


@case
def record_scalar_argument():
    @cuda.jit
    def k(cfg, x, out):
        i = cuda.grid(1)
        if i < cfg.n and i < x.size:
            out[i] = x[i] * cfg.scale + cfg["shift"]

    def make(rng):
        s = np.zeros(1, SETTINGS)
        s["scale"] = rng.random() + 0.5
        s["shift"] = rng.standard_normal()
        s["n"] = 37
        return [s[0], rng.standard_normal(50), np.zeros(50)]

    def ref(a):
        cfg, x = a[0], a[1]
        out = np.zeros(50)
        out[:37] = x[:37] * cfg["scale"] + np.float64(cfg["shift"])
        return [out]
    return Case(k, 2, 32, make, ref, outs=[2])


# ---------------------------------------------------------------- complex

@case
def complex_arithmetic_mixed_widths():
    @cuda.jit
    def k(z, w, out128, out64, mag):
        i = cuda.grid(1)
        if i < z.shape[0]:
            a = z[i]
            b = w[i]
            out128[i] = a * b.conjugate() + a / (b + 2.0) - 1j * a.imag
            out64[i] = b * b - 1j * b + complex(b.real, 1.0)
            mag[i] = abs(a) + a.real * b.imag

    def make(rng):
        n = 64
        z = rng.standard_normal(n) + 1j * rng.standard_normal(n)
        w = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
        return [z, w, np.zeros(n, np.complex128), np.zeros(n, np.complex64), np.zeros(n)]

    def ref(a):
        z, w = a[0], a[1].astype(np.complex128)
        return [z * np.conj(w) + z / (w + 2.0) - 1j * z.imag,
                w * w - 1j * w + (w.real + 1j),
                np.abs(z) + z.real * w.imag]
    return Case(k, 2, 32, make, ref, outs=[2, 3, 4], tol=1e-5)


@case
def cmath_functions():
    @cuda.jit
    def k(z, out, polar_r, polar_phi, flags):
        i = cuda.grid(1)
        if i < z.size:
            v = z[i]
            flags[i] = cmath.isfinite(v) + 2 * cmath.isnan(v) + 4 * cmath.isinf(v)
            if not cmath.isfinite(v):
                return
            out[i, 0] = cmath.exp(v) + cmath.sqrt(v)
            out[i, 1] = cmath.log(v) * cmath.sin(v)
            r, phi = cmath.polar(v)
            polar_r[i] = r
            polar_phi[i] = cmath.phase(v) - phi + phi
            out[i, 2] = cmath.rect(r, phi) - v

    def make(rng):
        z = rng.standard_normal(40) + 1j * rng.standard_normal(40)
        z[3] = complex(np.nan, 1.0)
        z[7] = complex(np.inf, 0.5)
        return [z, np.zeros((40, 3), np.complex128), np.zeros(40), np.zeros(40),
                np.zeros(40, np.int64)]

    def check(before, after):
        z = before[0]
        ok = np.isfinite(z)
        with np.errstate(all="ignore"):
            e0 = np.exp(z) + np.sqrt(z)
            e1 = np.log(z) * np.sin(z)
        np.testing.assert_allclose(after[1][ok, 0], e0[ok], rtol=1e-9)
        np.testing.assert_allclose(after[1][ok, 1], e1[ok], rtol=1e-9)
        np.testing.assert_allclose(after[1][ok, 2], 0, atol=1e-12)
        np.testing.assert_allclose(after[2][ok], np.abs(z[ok]), rtol=1e-12)
        np.testing.assert_allclose(after[3][ok], np.angle(z[ok]), rtol=1e-12)
        want = (np.isfinite(z) * 1 + np.isnan(z) * 2 + np.isinf(z) * 4)
        np.testing.assert_array_equal(after[4], want)
    return Case(k, 2, 32, make, check=check)


# ---------------------------------------------------------------- float16

@case
def fp16_intrinsics():
    @cuda.jit
    def k(a, b, out, big):
        i = cuda.grid(1)
        if i < a.size:
            x = a[i]
            y = b[i]
            out[i] = cuda.fp16.hfma(x, y, cuda.fp16.hneg(x))
            m = cuda.fp16.hmax(cuda.fp16.habs(x), y)
            big[i] = cuda.fp16.hgt(m, cuda.fp16.hadd(y, x))

    def make(rng):
        n = 96
        return [rng.uniform(-2, 2, n).astype(np.float16), rng.uniform(-2, 2, n).astype(np.float16),
                np.zeros(n, np.float16), np.zeros(n, np.bool_)]

    def check(before, after):
        x = before[0].astype(np.float32)
        y = before[1].astype(np.float32)
        want = (x * y - x).astype(np.float16)
        np.testing.assert_allclose(after[2].astype(np.float32), want.astype(np.float32),
                                   rtol=2e-3, atol=2e-3)
        m = np.maximum(np.abs(x), y)
        s = (y + x).astype(np.float16).astype(np.float32)
        np.testing.assert_array_equal(after[3], m > s)
    return Case(k, 3, 32, make, check=check)


@case
def fp16_numpy_scalars():
    @cuda.jit
    def k(a, b, out, wide):
        i = cuda.grid(1)
        if i < a.shape[0]:
            h = a[i] * np.float16(0.5) + b[i]
            if h < np.float16(0):
                h = -h
            out[i] = h
            wide[i] = np.float32(a[i]) * 3.0

    def make(rng):
        n = 50
        return [rng.uniform(-4, 4, n).astype(np.float16), rng.uniform(-4, 4, n).astype(np.float16),
                np.zeros(n, np.float16), np.zeros(n, np.float32)]

    def ref(a):
        h = np.abs(a[0] * np.float16(0.5) + a[1])
        return [h, a[0].astype(np.float32) * 3.0]
    return Case(k, 2, 32, make, ref, outs=[2, 3], tol=2e-3)


# ---------------------------------------------------------------- integers

@case
def integer_wraparound_and_casts():
    @cuda.jit
    def k(a, u8, s8, u64):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = a[i] * 65537 + 7
            u8[i] = u8[i] + 200
            s8[i] = np.int8(a[i])
            u64[i] = u64[i] * np.uint64(6364136223846793005) + np.uint64(1442695040888963407)

    def make(rng):
        n = 80
        return [rng.integers(-2**31, 2**31 - 1, n, dtype=np.int32),
                rng.integers(0, 256, n, dtype=np.uint8), np.zeros(n, np.int8),
                rng.integers(0, 2**63, n, dtype=np.uint64)]

    def ref(a):
        x = (a[0].astype(np.int64) * 65537 + 7).astype(np.int32)
        return [x, (a[1].astype(np.int64) + 200).astype(np.uint8), x.astype(np.int8),
                a[3] * np.uint64(6364136223846793005) + np.uint64(1442695040888963407)]
    return Case(k, 3, 32, make, ref, outs=[0, 1, 2, 3])


@case
def floor_division_and_modulo_negative():
    @cuda.jit
    def k(a, b, fa, fb, q, r, fq, fr, dv, tq):
        i = cuda.grid(1)
        if i < a.size:
            q[i] = a[i] // b[i]
            r[i] = a[i] % b[i]
            fq[i] = fa[i] // fb[i]
            fr[i] = fa[i] % fb[i]
            d, m = divmod(a[i], b[i])
            dv[i] = d * 1000 + m
            tq[i] = a[i] / b[i]

    def make(rng):
        n = 90
        b = rng.integers(1, 9, n) * rng.choice([-1, 1], n)
        fb = rng.uniform(0.5, 3, n) * rng.choice([-1, 1], n)
        return [rng.integers(-50, 50, n), b, rng.uniform(-10, 10, n), fb,
                np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n), np.zeros(n),
                np.zeros(n, np.int64), np.zeros(n)]

    def ref(x):
        a, b, fa, fb = x[:4]
        return [a // b, a % b, fa // fb, fa % fb, (a // b) * 1000 + a % b, a / b]
    return Case(k, 3, 32, make, ref, outs=[4, 5, 6, 7, 8, 9])


@case
def shifts_and_unsigned_mixes():
    @cuda.jit
    def k(x, u, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i, 0] = x[i] >> 3
            out[i, 1] = (x[i] >> 4) << 2
            out[i, 2] = u[i] >> np.uint32(5)
            out[i, 3] = u[i] & 0xFF
            out[i, 4] = ~x[i]
            out[i, 5] = x[i] ^ u[i]
            out[i, 6] = (u[i] | np.uint32(1)) - np.uint32(1)

    def make(rng):
        n = 64
        return [rng.integers(-2**31, 2**31 - 1, n, dtype=np.int32),
                rng.integers(0, 2**32 - 1, n, dtype=np.uint32), np.zeros((n, 7), np.int64)]

    def ref(a):
        x = a[0].astype(np.int64)
        u = a[1].astype(np.int64)
        return [np.stack([x >> 3, (x >> 4) << 2, u >> 5, u & 0xFF, ~x, x ^ u, (u | 1) - 1], axis=1)]
    return Case(k, 2, 32, make, ref, outs=[2])


@case
def builtin_casts():
    @cuda.jit
    def k(f, n, ints, floats, flags):
        i = cuda.grid(1)
        if i < f.size:
            ints[i, 0] = int(f[i])
            ints[i, 1] = np.int16(f[i] * 10.0)
            ints[i, 2] = np.uint8(n[i] % 256)
            ints[i, 3] = int(True) + int(n[i] > 0)
            ints[i, 4] = round(f[i])
            floats[i, 0] = float(n[i]) / 3
            floats[i, 1] = np.float32(f[i])
            flags[i] = bool(n[i]) and not bool(f[i] > 5.0)

    def make(rng):
        n = 70
        f = rng.integers(-40, 40, n) / 4.0
        m = rng.integers(-1000, 1000, n)
        m[::7] = 0
        return [f, m, np.zeros((n, 5), np.int64), np.zeros((n, 2)), np.zeros(n, np.bool_)]

    def ref(a):
        f, m = a[0], a[1]
        ints = np.stack([np.trunc(f), np.trunc(f * 10), m % 256, 1 + (m > 0),
                         np.round(f)], axis=1).astype(np.int64)
        floats = np.stack([m / 3, f.astype(np.float32)], axis=1)
        return [ints, floats, (m != 0) & ~(f > 5.0)]
    return Case(k, 3, 32, make, ref, outs=[2, 3, 4], tol=1e-7)


# ---------------------------------------------------------------- math

@case
def math_classify_and_decompose():
    @cuda.jit
    def k(x, y, cls, out, exps):
        i = cuda.grid(1)
        if i < x.size:
            v = x[i]
            cls[i] = math.isnan(v) * 1 + math.isinf(v) * 2 + math.isfinite(v) * 4
            if not math.isfinite(v):
                v = 1.0
            m, e = math.frexp(v)
            exps[i] = e
            out[i, 0] = math.ldexp(m, e + 1)
            out[i, 1] = math.copysign(2.0, y[i]) + math.fmod(v, 3.0)
            out[i, 2] = math.hypot(v, y[i]) + math.atan2(y[i], v)
            out[i, 3] = math.ceil(v) + math.floor(y[i]) * 10 + math.trunc(v) * 100

    def make(rng):
        n = 60
        x = rng.standard_normal(n) * 20
        x[[2, 11]] = np.nan
        x[5] = np.inf
        x[9] = -np.inf
        return [x, rng.standard_normal(n) * 5, np.zeros(n, np.int32), np.zeros((n, 4)),
                np.zeros(n, np.int32)]

    def ref(a):
        x, y = a[0], a[1]
        cls = np.isnan(x) * 1 + np.isinf(x) * 2 + np.isfinite(x) * 4
        v = np.where(np.isfinite(x), x, 1.0)
        m, e = np.frexp(v)
        out = np.stack([np.ldexp(m, e + 1), np.copysign(2.0, y) + np.fmod(v, 3.0),
                        np.hypot(v, y) + np.arctan2(y, v),
                        np.ceil(v) + np.floor(y) * 10 + np.trunc(v) * 100], axis=1)
        return [cls, out, e]
    return Case(k, 2, 32, make, ref, outs=[2, 3, 4])


@case
def math_special_functions_float32():
    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.shape[0]:
            v = x[i]
            frac, whole = math.modf(v)
            out[i, 0] = frac + whole * 0.5
            out[i, 1] = math.erf(v) + math.expm1(v * 0.1) + math.log1p(abs(v))
            out[i, 2] = math.gamma(abs(v) + 0.5) + math.lgamma(abs(v) + 1.0)
            out[i, 3] = math.degrees(v) + math.radians(v * 90.0)
            out[i, 4] = math.remainder(v, 1.5) + math.pow(abs(v), 1.5)

    def make(rng):
        return [rng.uniform(-4, 4, 48).astype(np.float32), np.zeros((48, 5), np.float32)]

    def ref(a):
        x = a[0].astype(np.float64)
        out = np.zeros((48, 5))
        for i, v in enumerate(x):
            frac, whole = math.modf(v)
            out[i] = [frac + whole * 0.5, math.erf(v) + math.expm1(v * 0.1) + math.log1p(abs(v)),
                      math.gamma(abs(v) + 0.5) + math.lgamma(abs(v) + 1.0),
                      math.degrees(v) + math.radians(v * 90.0),
                      math.remainder(v, 1.5) + math.pow(abs(v), 1.5)]
        return [out]
    return Case(k, 2, 32, make, ref, outs=[1], tol=2e-4)


@case
def min_max_abs_round_pow_builtins():
    @cuda.jit
    def k(f, n, out, iout):
        i = cuda.grid(1)
        if i < f.size:
            out[i, 0] = min(f[i], 0.5, n[i])
            out[i, 1] = max(abs(f[i]), abs(n[i]) * 0.25)
            out[i, 2] = pow(abs(f[i]), 0.5) + f[i] ** 2
            out[i, 3] = round(f[i], 2)
            iout[i, 0] = max(n[i], -3, 7 - n[i])
            iout[i, 1] = n[i] ** 2 + pow(n[i], 3)
            iout[i, 2] = 2 ** (i % 10)
            iout[i, 3] = abs(n[i]) - round(f[i] * 3)

    def make(rng):
        n = 64
        return [rng.standard_normal(n) * 4, rng.integers(-20, 20, n), np.zeros((n, 4)),
                np.zeros((n, 4), np.int64)]

    def ref(a):
        f, m = a[0], a[1]
        i = np.arange(64)
        out = np.stack([np.minimum(np.minimum(f, 0.5), m), np.maximum(np.abs(f), np.abs(m) * 0.25),
                        np.sqrt(np.abs(f)) + f ** 2, [round(v, 2) for v in f]], axis=1)
        iout = np.stack([np.maximum(np.maximum(m, -3), 7 - m), m ** 2 + m ** 3, 2 ** (i % 10),
                         np.abs(m) - np.round(f * 3).astype(np.int64)], axis=1)
        return [out, iout]
    return Case(k, 2, 32, make, ref, outs=[2, 3], tol=1e-12)


@case
def bit_intrinsics():
    @cuda.jit
    def k(u, w, f, g, out, fo):
        i = cuda.grid(1)
        if i < u.size:
            out[i, 0] = cuda.popc(u[i])
            out[i, 1] = cuda.clz(u[i])
            out[i, 2] = cuda.ffs(u[i])
            out[i, 3] = cuda.brev(u[i])
            out[i, 4] = cuda.popc(w[i])
            out[i, 5] = cuda.selp(u[i] > w[i], 1, -1)
            fo[i, 0] = cuda.fma(f[i], g[i], 1.0)
            fo[i, 1] = cuda.cbrt(abs(f[i]))

    def make(rng):
        n = 64
        u = rng.integers(0, 2**32, n, dtype=np.uint32)
        u[0] = 0
        u[1] = 1 << 31
        return [u, rng.integers(0, 2**62, n, dtype=np.int64), rng.standard_normal(n),
                rng.standard_normal(n), np.zeros((n, 6), np.int64), np.zeros((n, 2))]

    def ref(a):
        u, w, f, g = a[:4]

        def ffs(v):
            return 0 if v == 0 else (v & -v).bit_length()

        def brev(v):
            return int("{:032b}".format(v)[::-1], 2)
        out = np.array([[bin(int(v)).count("1"), 32 - int(v).bit_length(), ffs(int(v)),
                         brev(int(v)), bin(int(x)).count("1"), 1 if int(v) > int(x) else -1]
                        for v, x in zip(u, w)], np.int64)
        return [out, np.stack([f * g + 1.0, np.cbrt(np.abs(f))], axis=1)]
    return Case(k, 2, 32, make, ref, outs=[4, 5], tol=1e-12)


# ---------------------------------------------------------------- control flow

@case
def ranges_with_negative_steps():
    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            n = x.shape[1]
            acc = 0.0
            for j in range(n - 1, -1, -1):
                acc = acc * 0.5 + x[i, j]
            cnt = 0
            for s in range(10, 0, -3):
                cnt += s
            for s in range(i, i - 5):
                cnt += 1000
            for s in range(n, 0, -(i % 3 + 1)):
                cnt += 1
            out[i, 0] = acc
            out[i, 1] = cnt

    def make(rng):
        return [rng.standard_normal((30, 9)), np.zeros((30, 2))]

    def ref(a):
        x = a[0]
        out = np.zeros((30, 2))
        for i in range(30):
            acc = 0.0
            for j in range(8, -1, -1):
                acc = acc * 0.5 + x[i, j]
            out[i] = acc, 22 + len(range(9, 0, -(i % 3 + 1)))
        return [out]
    return Case(k, 1, 32, make, ref, outs=[1], tol=1e-12)


@case
def for_else_and_while_break_continue():
    @cuda.jit
    def k(x, thresh, first, steps):
        i = cuda.grid(1)
        if i >= x.shape[0]:
            return
        for j in range(x.shape[1]):
            if x[i, j] > thresh:
                first[i] = j
                break
        else:
            first[i] = -1
        n = i + 1
        count = 0
        while True:
            if n == 1:
                break
            count += 1
            if n % 2 == 0:
                n //= 2
                continue
            n = 3 * n + 1
        steps[i] = count

    def make(rng):
        return [rng.standard_normal((50, 12)), 1.6, np.zeros(50, np.int64),
                np.zeros(50, np.int32)]

    def ref(a):
        x, t = a[0], a[1]
        first = np.array([int(np.argmax(r > t)) if (r > t).any() else -1 for r in x])
        steps = []
        for i in range(50):
            n, c = i + 1, 0
            while n != 1:
                n = n // 2 if n % 2 == 0 else 3 * n + 1
                c += 1
            steps.append(c)
        return [first, np.array(steps)]
    return Case(k, 2, 32, make, ref, outs=[2, 3])


# ---------------------------------------------------------------- device functions

@case
def nested_device_functions():
    @cuda.jit(device=True)
    def sq(v):
        return v * v

    @cuda.jit(device=True)
    def norm2(a, b):
        return sq(a) + sq(b)

    @cuda.jit(device=True)
    def scaled_norm(a, b, s):
        if s == 0:
            return 0.0
        return math.sqrt(norm2(a, b)) * s

    @cuda.jit
    def k(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = scaled_norm(a[i], b[i], i % 3)

    def make(rng):
        return [rng.standard_normal(40), rng.standard_normal(40), np.zeros(40)]

    def ref(x):
        return [np.hypot(x[0], x[1]) * (np.arange(40) % 3)]
    return Case(k, 2, 32, make, ref, outs=[2])


@case
def self_recursive_device_function():
    @cuda.jit("int64(int64)", device=True)
    def fib(n):
        if n < 2:
            return n
        return fib(n - 1) + fib(n - 2)

    @cuda.jit
    def k(ns, out):
        i = cuda.grid(1)
        if i < ns.size:
            out[i] = fib(ns[i])

    def make(rng):
        return [rng.integers(0, 16, 20), np.zeros(20, np.int64)]

    def ref(a):
        f = [0, 1]
        for _ in range(20):
            f.append(f[-1] + f[-2])
        return [np.array([f[v] for v in a[0]])]
    return Case(k, 1, 32, make, ref, outs=[1])


@case
def device_function_defaults_and_keywords():
    @cuda.jit(device=True)
    def lerp(a, b, t=0.5, clamp=False):
        v = a + (b - a) * t
        if clamp:
            v = min(max(v, a), b) if a <= b else min(max(v, b), a)
        return v

    @cuda.jit
    def k(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i, 0] = lerp(a[i], b[i])
            out[i, 1] = lerp(a[i], b[i], t=0.25)
            out[i, 2] = lerp(a[i], b[i], clamp=True, t=1.5)
            out[i, 3] = lerp(b=a[i], a=b[i], t=-0.5)

    def make(rng):
        return [rng.standard_normal(40), rng.standard_normal(40), np.zeros((40, 4))]

    def ref(x):
        a, b = x[0], x[1]
        return [np.stack([a + (b - a) * 0.5, a + (b - a) * 0.25, b, b + (a - b) * -0.5], axis=1)]
    return Case(k, 2, 32, make, ref, outs=[2], tol=1e-12,
                sim="the simulator passes no keyword arguments to device functions")


@case
def device_function_respecialized_by_types():
    @cuda.jit(device=True)
    def sq_plus(a, b):
        return a * a + b

    @cuda.jit
    def k_int(n, out):
        i = cuda.grid(1)
        if i < n.size:
            out[i] = sq_plus(n[i], 3)

    @cuda.jit
    def k_mixed(f, g, out):
        i = cuda.grid(1)
        if i < f.size:
            out[i] = sq_plus(f[i], g[i]) + sq_plus(g[i], 1)

    def make(rng):
        return [rng.integers(-1000, 1000, 40, dtype=np.int32), np.zeros(40, np.int64),
                rng.standard_normal(40).astype(np.float32), rng.standard_normal(40),
                np.zeros(40, np.float32)]

    def run(a):
        k_int[2, 32](a[0], a[1])
        k_mixed[2, 32](a[2], a[3], a[4])

    def ref(a):
        n = a[0].astype(np.int64)
        f = a[2].astype(np.float64)
        g = a[3]
        return [n * n + 3, (f * f + g + g * g + 1).astype(np.float32)]
    return Case(k_int, 2, 32, make, ref, outs=[1, 4], run=run, kernels=[k_int, k_mixed],
                tol=1e-5)


# ---------------------------------------------------------------- globals, closures

@case
def module_globals_as_constants():
    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        n = x.shape[0]
        if i < n:
            acc = 0.0
            for t in range(len(TAPS)):
                j = min(max(i + t - 1, 0), n - 1)
                acc += TAPS[t] * x[j]
            out[i] = acc * GAIN + LUT[i % NBINS] + OFFSETS2D[i % 3, 1]

    def make(rng):
        return [rng.standard_normal(77), np.zeros(77)]

    def ref(a):
        x = a[0]
        xp = np.concatenate([[x[0]], x, [x[-1]]])
        acc = 0.25 * xp[:-2] + 0.5 * xp[1:-1] + 0.25 * xp[2:]
        i = np.arange(77)
        return [acc * GAIN + LUT[i % NBINS] + OFFSETS2D[i % 3, 1]]
    return Case(k, 3, 32, make, ref, outs=[1], tol=1e-6)


@case
def closures_over_constants():
    def make_affine(scale, offset, powers):
        @cuda.jit
        def affine(x, out):
            i = cuda.grid(1)
            if i < x.size:
                v = x[i] * scale + offset
                for p in powers:
                    v += x[i] ** p
                out[i] = v
        return affine

    k = make_affine(3.0, -1, (2, 3))

    def make(rng):
        return [rng.standard_normal(50), np.zeros(50)]

    def ref(a):
        x = a[0]
        return [x * 3.0 - 1 + x ** 2 + x ** 3]
    return Case(k, 2, 32, make, ref, outs=[1], tol=1e-12)


# ---------------------------------------------------------------- memories

@case
def shared_arrays_2d_3d_dtypes():
    @cuda.jit
    def k(a, out, sums):
        tile = cuda.shared.array((8, 9), dtype=np.float32)
        acc = cuda.shared.array(shape=(2, 8, 8), dtype="int32")
        wide = cuda.shared.array((8,), cuda.float64)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        x = cuda.blockIdx.x * 8 + tx
        y = cuda.blockIdx.y * 8 + ty
        tile[ty, tx] = a[y, x]
        acc[0, ty, tx] = ty
        acc[1, ty, tx] = tx
        cuda.syncthreads()
        ox = cuda.blockIdx.y * 8 + tx
        oy = cuda.blockIdx.x * 8 + ty
        out[oy, ox] = tile[tx, ty]
        if tx == 0:
            s = 0.0
            for j in range(8):
                s += tile[ty, j]
            wide[ty] = s
        cuda.syncthreads()
        if tx == 0 and ty == 0:
            t = 0.0
            for j in range(8):
                t += wide[j]
            c = 0
            for d in range(2):
                for u in range(8):
                    for v in range(8):
                        c += acc[d, u, v]
            sums[cuda.blockIdx.y, cuda.blockIdx.x] = t + c

    def make(rng):
        return [rng.standard_normal((16, 24)).astype(np.float32), np.zeros((24, 16), np.float32),
                np.zeros((2, 3))]

    def ref(x):
        a = x[0]
        blocks = a.astype(np.float64).reshape(2, 8, 3, 8).sum(axis=(1, 3))
        return [a.T, blocks + 2 * 8 * 28]
    return Case(k, (3, 2), (8, 8), make, ref, outs=[1, 2], tol=1e-5, threads=True,
                sim="the simulator's cuda module has no numba types (cuda.float64)")


@case
def dynamic_shared_two_views():
    @cuda.jit
    def k(x, rev, bits):
        fbuf = cuda.shared.array(0, dtype=np.float32)
        ibuf = cuda.shared.array(0, dtype=np.int32)
        t = cuda.threadIdx.x
        n = cuda.blockDim.x
        i = cuda.blockIdx.x * n + t
        fbuf[t] = x[i]
        cuda.syncthreads()
        rev[i] = fbuf[n - 1 - t]
        bits[i] = ibuf[n - 1 - t]

    def make(rng):
        return [rng.standard_normal(128).astype(np.float32), np.zeros(128, np.float32),
                np.zeros(128, np.int32)]

    def ref(a):
        r = a[0].reshape(2, 64)[:, ::-1].ravel()
        return [r, r.view(np.int32)]
    return Case(k, 2, 64, make, ref, outs=[1, 2], shared=64 * 4, threads=True,
                sim="the simulator's dynamic shared array takes no NumPy scalar type")


@case
def local_array_2d():
    @cuda.jit
    def k(m, det, tr):
        i = cuda.grid(1)
        if i < m.shape[0]:
            a = cuda.local.array((3, 3), dtype=np.float64)
            for r in range(3):
                for c in range(3):
                    a[r, c] = m[i, r * 3 + c]
            d = (a[0, 0] * (a[1, 1] * a[2, 2] - a[1, 2] * a[2, 1])
                 - a[0, 1] * (a[1, 0] * a[2, 2] - a[1, 2] * a[2, 0])
                 + a[0, 2] * (a[1, 0] * a[2, 1] - a[1, 1] * a[2, 0]))
            det[i] = d
            idx = cuda.local.array(3, "int64")
            for r in range(3):
                idx[r] = r
            t = 0.0
            for r in idx:
                t += a[r, r]
            tr[i] = t

    def make(rng):
        return [rng.standard_normal((30, 9)), np.zeros(30), np.zeros(30)]

    def ref(a):
        m = a[0].reshape(30, 3, 3)
        return [np.linalg.det(m), np.trace(m, axis1=1, axis2=2)]
    return Case(k, 1, 32, make, ref, outs=[1, 2], tol=1e-9)


# ---------------------------------------------------------------- arrays

@case
def array_attributes():
    @cuda.jit
    def k(a, out):
        out[0] = a.shape[0]
        out[1] = a.shape[1]
        out[2] = a.size
        out[3] = a.ndim
        out[4] = a.strides[0]
        out[5] = a.strides[1]
        out[6] = len(a)
        out[7] = a.itemsize
        out[8] = a.nbytes

    def make(rng):
        return [rng.standard_normal((5, 7)).astype(np.float32), np.zeros(9, np.int64)]

    def ref(x):
        a = x[0]
        return [np.array([5, 7, 35, 2, a.strides[0], a.strides[1], 5, 4, 140])]
    return Case(k, 1, 1, make, ref, outs=[1])


@case
def slices_and_views_in_kernel():
    @cuda.jit
    def k(a, rows, cols, evens, tr):
        i = cuda.grid(1)
        if i < a.shape[0]:
            row = a[i, :]
            s = 0.0
            for v in row[::2]:
                s += v
            rows[i] = s
            back = row[::-1]
            evens[i] = back[0] - row[row.shape[0] - 1] + row[1:4].sum()
        if i < a.shape[1]:
            col = a[:, i]
            c = 0.0
            for j in range(col.shape[0]):
                c += col[j] * j
            cols[i] = c
            at = a.T
            tr[i] = at[i, 0] + at[i, -1]

    def make(rng):
        return [rng.standard_normal((20, 10)), np.zeros(20), np.zeros(10), np.zeros(20),
                np.zeros(10)]

    def ref(x):
        a = x[0]
        return [a[:, ::2].sum(axis=1), (a * np.arange(20)[:, None]).sum(axis=0),
                a[:, 1:4].sum(axis=1), a[0, :] + a[-1, :]]
    return Case(k, 1, 32, make, ref, outs=[1, 2, 3, 4], tol=1e-12)


@case
def array_methods_in_kernel():
    @cuda.jit
    def k(a, stats, bits):
        i = cuda.grid(1)
        if i < a.shape[0]:
            row = a[i]
            stats[i, 0] = row.sum()
            stats[i, 1] = row.prod()
            stats[i, 2] = row.std() + row.var()
            stats[i, 3] = row.mean()
            stats[i, 4] = row.argmax() * 10 + row.argmin()
            stats[i, 5] = row.any() + 2 * row.all()
            u = row.view(np.uint32)
            bits[i] = u[0]

    def make(rng):
        return [rng.standard_normal((24, 6)).astype(np.float32), np.zeros((24, 6)),
                np.zeros(24, np.uint32)]

    def ref(x):
        a = x[0]
        a64 = a.astype(np.float64)
        st = np.stack([a64.sum(axis=1), a64.prod(axis=1), a64.std(axis=1) + a64.var(axis=1),
                       a64.mean(axis=1), a.argmax(axis=1) * 10 + a.argmin(axis=1),
                       a.any(axis=1) + 2 * a.all(axis=1)], axis=1)
        return [st, a[:, 0].view(np.uint32)]
    return Case(k, 1, 32, make, ref, outs=[1, 2], tol=1e-5)


@case
def noncontiguous_and_fortran_inputs():
    @cuda.jit
    def k(a, b, out):
        i, j = cuda.grid(2)
        if i < out.shape[0] and j < out.shape[1]:
            out[i, j] = a[i, j] * 2.0 + b[i, j]

    def make(rng):
        base = rng.standard_normal((12, 20))
        other = rng.standard_normal((10, 12))
        return [base, other, np.asfortranarray(np.zeros((12, 10)))]

    def run(args):
        d = cuda.to_device(args[0])
        k[(2, 2), (8, 8)](d[:, ::2], args[1].T, args[2])

    def ref(x):
        return [x[0][:, ::2] * 2.0 + x[1].T]
    return Case(k, (2, 2), (8, 8), make, ref, outs=[2], run=run, tol=1e-12)


@case
def zero_dim_arrays():
    @cuda.jit
    def k(x, scale, total):
        t = 0.0
        for v in x:
            t += v
        total[()] = t * scale[()]

    def make(rng):
        return [rng.standard_normal(33), np.array(rng.random() + 0.5), np.array(0.0)]

    def ref(a):
        return [np.array(a[0].sum() * a[1][()])]
    return Case(k, 1, 1, make, ref, outs=[2], tol=1e-12)


@case
def mixed_scalar_argument_kinds():
    @cuda.jit
    def k(x, out, n, s, f32, flag, c, i8):
        i = cuda.grid(1)
        if i < x.size:
            v = x[i] * s + n
            if flag:
                v = -v
            out[i, 0] = v + f32 * i8
            out[i, 1] = (c * x[i]).imag + abs(c)

    def make(rng):
        return [rng.standard_normal(40), np.zeros((40, 2)), int(rng.integers(-5, 5)),
                float(rng.random()), np.float32(rng.random()), True,
                complex(rng.random(), rng.random()), np.int8(rng.integers(-100, 100))]

    def ref(a):
        x, n, s, f32, flag, c, i8 = a[0], a[2], a[3], a[4], a[5], a[6], a[7]
        v = x * s + n
        v = -v if flag else v
        return [np.stack([v + np.float64(f32) * int(i8), (c * x).imag + abs(c)], axis=1)]
    return Case(k, 2, 32, make, ref, outs=[1], tol=1e-6)


# ---------------------------------------------------------------- atomics

@case
def atomics_on_2d_with_old_values():
    @cuda.jit
    def k(rows, cols, vals, hist, olds, mx, mn):
        i = cuda.grid(1)
        if i < rows.size:
            r = rows[i]
            c = cols[i]
            olds[i] = cuda.atomic.add(hist, (r, c), 1)
            cuda.atomic.max(mx, (r, c), vals[i])
            cuda.atomic.min(mn, (r, c), vals[i])

    def make(rng):
        n = 300
        return [rng.integers(0, 4, n), rng.integers(0, 3, n), rng.standard_normal(n),
                np.zeros((4, 3), np.int32), np.zeros(n, np.int32), np.full((4, 3), -np.inf),
                np.full((4, 3), np.inf)]

    def check(before, after):
        r, c, v = before[:3]
        hist = np.zeros((4, 3), np.int32)
        np.add.at(hist, (r, c), 1)
        np.testing.assert_array_equal(after[3], hist)
        for a in range(4):
            for b in range(3):
                sel = (r == a) & (c == b)
                np.testing.assert_array_equal(np.sort(after[4][sel]), np.arange(sel.sum()))
                if sel.any():
                    assert after[5][a, b] == v[sel].max()
                    assert after[6][a, b] == v[sel].min()
    return Case(k, 10, 32, make, check=check)


@case
def atomic_cas_inc_and_sub():
    @cuda.jit
    def k(flags, owner, ring, counter):
        i = cuda.grid(1)
        if i < owner.size:
            slot = i % flags.size
            old = cuda.atomic.compare_and_swap(flags[slot:slot + 1], 0, i + 1)
            if old == 0:
                owner[i] = 1
            cuda.atomic.inc(ring, 0, np.uint32(9))
            cuda.atomic.sub(counter, (0, 1), 2)

    def make(rng):
        return [np.zeros(16, np.int32), np.zeros(100, np.int32), np.zeros(1, np.uint32),
                np.zeros((1, 2), np.int64)]

    def check(before, after):
        flags, owner = after[0], after[1]
        assert (flags > 0).all()
        for s in range(16):
            winners = np.nonzero(owner[s::16])[0]
            assert len(winners) == 1
            assert flags[s] == s + 16 * winners[0] + 1
        assert after[2][0] == 100 % 10
        np.testing.assert_array_equal(after[3], [[0, -200]])
    return Case(k, 4, 32, make, check=check)


@case
def threadfence_last_block_sum():
    @cuda.jit
    def k(x, partial, count, total):
        buf = cuda.shared.array(64, np.float64)
        is_last = cuda.shared.array(1, np.int32)
        t = cuda.threadIdx.x
        i = cuda.grid(1)
        buf[t] = x[i] if i < x.size else 0.0
        cuda.syncthreads()
        s = 32
        while s > 0:
            if t < s:
                buf[t] += buf[t + s]
            cuda.syncthreads()
            s //= 2
        if t == 0:
            partial[cuda.blockIdx.x] = buf[0]
            cuda.threadfence()
            ticket = cuda.atomic.add(count, 0, 1)
            is_last[0] = ticket == cuda.gridDim.x - 1
        cuda.syncthreads()
        if is_last[0] and t == 0:
            acc = 0.0
            for b in range(cuda.gridDim.x):
                acc += partial[b]
            total[0] = acc

    def make(rng):
        return [rng.standard_normal(500), np.zeros(8), np.zeros(1, np.int32), np.zeros(1)]

    def ref(a):
        return [np.array([a[0].sum()])]
    return Case(k, 8, 64, make, ref, outs=[3], tol=1e-10, threads=True)


# ---------------------------------------------------------------- warps, blocks

@case
def warp_shuffles():
    @cuda.jit
    def k(x, total, bcast, scan, butterfly):
        i = cuda.grid(1)
        lane = cuda.laneid
        v = x[i]
        s = v
        off = 16
        while off > 0:
            s += cuda.shfl_down_sync(0xFFFFFFFF, s, off)
            off //= 2
        s = cuda.shfl_sync(0xFFFFFFFF, s, 0)
        total[i] = s
        bcast[i] = cuda.shfl_sync(0xFFFFFFFF, v, 31 - lane)
        p = v
        d = 1
        while d < 32:
            up = cuda.shfl_up_sync(0xFFFFFFFF, p, d)
            if lane >= d:
                p += up
            d *= 2
        scan[i] = p
        b = v
        for m in (1, 2, 4, 8, 16):
            b = max(b, cuda.shfl_xor_sync(0xFFFFFFFF, b, m))
        butterfly[i] = b

    def make(rng):
        n = 128
        return [rng.integers(-100, 100, n).astype(np.int32), np.zeros(n, np.int32),
                np.zeros(n, np.int32), np.zeros(n, np.int32), np.zeros(n, np.int32)]

    def ref(a):
        w = a[0].reshape(4, 32).astype(np.int64)
        return [np.repeat(w.sum(axis=1), 32), w[:, ::-1].ravel(), np.cumsum(w, axis=1).ravel(),
                np.repeat(w.max(axis=1), 32)]
    return Case(k, 2, 64, make, ref, outs=[1, 2, 3, 4], threads=True,
                sim="the simulator has no shfl_*_sync")


@case
def warp_votes_and_match():
    @cuda.jit
    def k(x, keys, ballots, same, act, votes):
        i = cuda.grid(1)
        ballots[i] = cuda.ballot_sync(0xFFFFFFFF, x[i] > 0)
        same[i] = cuda.match_any_sync(0xFFFFFFFF, keys[i])
        act[i] = cuda.activemask()
        votes[i] = (cuda.all_sync(0xFFFFFFFF, x[i] > -10) * 1
                    + cuda.any_sync(0xFFFFFFFF, x[i] > 2.5) * 2
                    + cuda.eq_sync(0xFFFFFFFF, keys[i] >= 0) * 4)

    def make(rng):
        n = 64
        return [rng.standard_normal(n), rng.integers(0, 4, n).astype(np.int32),
                np.zeros(n, np.uint32), np.zeros(n, np.uint32), np.zeros(n, np.uint32),
                np.zeros(n, np.int32)]

    def ref(a):
        x = a[0].reshape(2, 32)
        keys = a[1].reshape(2, 32)
        weights = (np.uint64(1) << np.arange(32, dtype=np.uint64))
        ball = np.repeat(((x > 0) * weights).sum(axis=1), 32)
        same = np.array([[((keys[w] == keys[w, l]) * weights).sum() for l in range(32)]
                         for w in range(2)]).ravel()
        votes = np.repeat((x > -10).all(axis=1) * 1 + (x > 2.5).any(axis=1) * 2 + 4, 32)
        return [ball.astype(np.uint32), same.astype(np.uint32),
                np.full(64, 0xFFFFFFFF, np.uint32), votes]
    return Case(k, 2, 32, make, ref, outs=[2, 3, 4, 5], threads=True,
                sim="the simulator has no ballot_sync / match_any_sync")


@case
def syncthreads_count_and_or():
    @cuda.jit
    def k(x, out):
        t = cuda.threadIdx.x
        i = cuda.grid(1)
        v = x[i]
        cnt = cuda.syncthreads_count(1 if v > 0 else 0)
        every = cuda.syncthreads_and(int(v > -10))
        some = cuda.syncthreads_or(np.int32(v > 2.5))
        if t == 0:
            b = cuda.blockIdx.x
            out[b, 0] = cnt
            out[b, 1] = every != 0
            out[b, 2] = some != 0

    def make(rng):
        return [rng.standard_normal(384), np.zeros((3, 3), np.int32)]

    def ref(a):
        x = a[0].reshape(3, 128)
        return [np.stack([(x > 0).sum(axis=1), (x > -10).all(axis=1), (x > 2.5).any(axis=1)],
                         axis=1)]
    return Case(k, 3, 128, make, ref, outs=[1], threads=True)


@case
def laneid_warpsize_and_2d_blocks():
    @cuda.jit
    def k(out):
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        flat = ty * cuda.blockDim.x + tx
        b = cuda.blockIdx.x
        g = b * cuda.blockDim.x * cuda.blockDim.y + flat
        out[g, 0] = cuda.laneid
        out[g, 1] = flat // cuda.warpsize
        out[g, 2] = cuda.blockDim.x * 100 + cuda.gridDim.x

    def make(rng):
        return [np.zeros((2 * 16 * 6, 3), np.int32)]

    def ref(a):
        g = np.arange(2 * 96)
        flat = g % 96
        return [np.stack([flat % 32, flat // 32, np.full(192, 1602)], axis=1)]
    return Case(k, 2, (16, 6), make, ref, outs=[0])


@case
def grid_2d_3d_and_gridsize():
    @cuda.jit
    def k2(a, out):
        x, y = cuda.grid(2)
        sx, sy = cuda.gridsize(2)
        for i in range(x, a.shape[0], sx):
            for j in range(y, a.shape[1], sy):
                out[i, j] = a[i, j] * 2 + i - j

    @cuda.jit
    def k3(vol):
        i, j, k = cuda.grid(3)
        n = cuda.gridsize(3)
        if i < vol.shape[0] and j < vol.shape[1] and k < vol.shape[2]:
            vol[i, j, k] = i * 10000 + j * 100 + k + n[0] + n[1] + n[2]

    def make(rng):
        return [rng.standard_normal((37, 45)), np.zeros((37, 45)), np.zeros((5, 6, 7), np.int64)]

    def run(a):
        k2[(2, 2), (8, 4)](a[0], a[1])
        k3[(2, 2, 2), (4, 4, 4)](a[2])

    def ref(x):
        a = x[0]
        i, j = np.indices(a.shape)
        ii, jj, kk = np.indices((5, 6, 7))
        return [a * 2 + i - j, ii * 10000 + jj * 100 + kk + 8 + 8 + 8]
    return Case(k2, None, None, make, ref, outs=[1, 2], run=run, kernels=[k2, k3], tol=1e-12)


# ---------------------------------------------------------------- print, assert

@case
def print_in_kernel():
    @cuda.jit
    def k(x, n):
        i = cuda.grid(1)
        if i < n:
            print("item", i, "value", x[i], "twice", x[i] * 2)

    def make(rng):
        return [rng.integers(-50, 50, 6).astype(np.float64) / 4, 4]

    def printed(a):
        return [["item", i, "value", a[0][i], "twice", a[0][i] * 2] for i in range(4)]
    return Case(k, 1, 8, make, ref=lambda a: [], printed=printed)


@case
def assert_with_debug():
    @cuda.jit(debug=True, opt=False)
    def k(x, out):
        i = cuda.grid(1)
        if i < x.size:
            assert x[i] >= 0.0, "negative input"
            out[i] = math.sqrt(x[i])

    def make(rng):
        return [rng.random(50) * 9, np.zeros(50)]

    def ref(a):
        return [np.sqrt(a[0])]
    return Case(k, 2, 32, make, ref, outs=[1], tol=1e-12)


# ---------------------------------------------------------------- launch forms

@case
def forall_launch():
    @cuda.jit
    def k(x, y, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] * y[i] - 1.0

    def make(rng):
        return [rng.standard_normal(1000), rng.standard_normal(1000), np.zeros(1000)]

    def run(a):
        k.forall(a[0].size)(*a)

    def ref(a):
        return [a[0] * a[1] - 1.0]
    return Case(k, None, None, make, ref, outs=[2], run=run, tol=1e-12)


@case
def specialize_then_launch():
    @cuda.jit
    def k(x, out, s):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] + s

    def make(rng):
        return [rng.integers(-100, 100, 50).astype(np.int16), np.zeros(50, np.int32),
                np.int16(7)]

    launched = [k]

    def run(a):
        ks = k.specialize(*a)
        launched.append(ks)
        ks[2, 32](*a)

    def ref(a):
        return [a[0].astype(np.int32) + 7]
    return Case(k, None, None, make, ref, outs=[1], run=run, kernels=launched)


@case
def eager_signature_list():
    @cuda.jit(["void(float32[:], float32[:], float32)", "void(float64[:], float64[:], float64)"])
    def k(x, out, c):
        i = cuda.grid(1)
        if i < x.shape[0]:
            out[i] = x[i] * c + 1

    def make(rng):
        return [rng.standard_normal(40).astype(np.float32), np.zeros(40, np.float32),
                rng.standard_normal(40), np.zeros(40)]

    def run(a):
        k[2, 32](a[0], a[1], 0.5)
        k[2, 32](a[2], a[3], 1.5)

    def ref(a):
        return [a[0] * np.float32(0.5) + 1, a[2] * 1.5 + 1]
    return Case(k, None, None, make, ref, outs=[1, 3], run=run, tol=1e-6)


# ---------------------------------------------------------------- second batch

BLOCK = 32
LOCAL_SHAPE = (2, 3)
WEIGHTS = np.array([0.5, 1.5, -2.0, 3.0], dtype=np.float64)


@case
def const_memory_and_captured_device_array():
    table = cuda.to_device(np.arange(10, dtype=np.float32) * 0.5)

    @cuda.jit
    def k(idx, out):
        w = cuda.const.array_like(WEIGHTS)
        i = cuda.grid(1)
        if i < idx.size:
            j = idx[i]
            out[i] = w[j % 4] * table[j] + w[3]

    def make(rng):
        return [rng.integers(0, 10, 60), np.zeros(60)]

    def ref(a):
        j = a[0]
        return [WEIGHTS[j % 4] * (np.arange(10, dtype=np.float32) * 0.5)[j] + WEIGHTS[3]]
    return Case(k, 2, BLOCK, make, ref, outs=[1], tol=1e-6)


@case
def streams_and_device_arrays():
    @cuda.jit
    def k(x, y, out):
        start = cuda.grid(1)
        stride = cuda.gridsize(1)
        i = start
        while i < x.shape[0]:
            out[i] = x[i] * 2.0 - y[i]
            i += stride

    def make(rng):
        return [rng.standard_normal(1000).astype(np.float32),
                rng.standard_normal(1000).astype(np.float32), np.zeros(1000, np.float32)]

    def run(a):
        stream = cuda.stream()
        dx = cuda.to_device(a[0], stream=stream)
        dy = cuda.to_device(a[1], stream=stream)
        dout = cuda.device_array_like(a[2], stream=stream)
        k[4, 64, stream](dx, dy, dout)
        dout.copy_to_host(a[2], stream=stream)
        stream.synchronize()

    def ref(a):
        return [a[0] * np.float32(2.0) - a[1]]
    return Case(k, None, None, make, ref, outs=[2], run=run, tol=1e-6)


@case
def jit_options_fastmath_inline_lineinfo():
    @cuda.jit(device=True, inline=True)
    def softplus(v):
        return math.log(1.0 + math.exp(v))

    @cuda.jit("void(float32[:], float32[:])", fastmath=True, lineinfo=True, max_registers=64)
    def k(x, out):
        i = cuda.grid(1)
        if i < x.shape[0]:
            out[i] = softplus(x[i]) + math.sqrt(abs(x[i])) / 3.0

    def make(rng):
        return [rng.standard_normal(100).astype(np.float32), np.zeros(100, np.float32)]

    def ref(a):
        x = a[0].astype(np.float64)
        return [np.log1p(np.exp(x)) + np.sqrt(np.abs(x)) / 3.0]
    return Case(k, 4, 32, make, ref, outs=[1], tol=1e-4,
                sim="an eager signature compiles at once (a driver is needed)")


@case
def nested_tuples_from_device_function():
    @cuda.jit(device=True)
    def split(v):
        whole = math.floor(v)
        return (whole, v - whole), v < 0

    @cuda.jit
    def k(x, out, neg):
        i = cuda.grid(1)
        if i < x.size:
            (w, f), n = split(x[i])
            pair, _ = split(x[i] * 2.0)
            out[i, 0] = w
            out[i, 1] = f
            out[i, 2] = pair[0] + pair[1]
            neg[i] = n

    def make(rng):
        return [rng.standard_normal(50) * 5, np.zeros((50, 3)), np.zeros(50, np.bool_)]

    def ref(a):
        x = a[0]
        w = np.floor(x)
        return [np.stack([w, x - w, 2 * x], axis=1), x < 0]
    return Case(k, 2, 32, make, ref, outs=[1, 2], tol=1e-12)


@case
def enumerate_zip_and_tuple_iteration():
    @cuda.jit
    def k(a, b, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            s = 0.0
            for j, v in enumerate(a[i]):
                s += j * v
            p = 0.0
            for u, w in zip(a[i], b[i]):
                p += u * w
            m = 0
            for c in (3, 1, 4, 1, 5):
                m = m * 10 + c
            out[i, 0] = s
            out[i, 1] = p
            out[i, 2] = m

    def make(rng):
        return [rng.standard_normal((25, 6)), rng.standard_normal((25, 6)), np.zeros((25, 3))]

    def ref(x):
        a, b = x[0], x[1]
        return [np.stack([(a * np.arange(6)).sum(axis=1), (a * b).sum(axis=1),
                          np.full(25, 31415.0)], axis=1)]
    return Case(k, 1, 32, make, ref, outs=[2], tol=1e-12)


@case
def augmented_assignments_on_elements():
    @cuda.jit
    def k(n, f, u):
        i = cuda.grid(1)
        if i < n.size:
            n[i] += 3
            n[i] *= 2
            n[i] //= 3
            n[i] %= 1000
            n[i] -= i
            f[i] **= 2
            f[i] /= 4
            f[i] += n[i]
            u[i] >>= 1
            u[i] |= 0x100
            u[i] ^= 0x0F
            u[i] &= 0xFFF

    def make(rng):
        return [rng.integers(-5000, 5000, 70).astype(np.int32), rng.standard_normal(70),
                rng.integers(0, 2**16, 70).astype(np.uint16)]

    def ref(a):
        n = a[0].astype(np.int64)
        n = ((n + 3) * 2) // 3 % 1000 - np.arange(70)
        f = a[1] ** 2 / 4 + n
        u = a[2].astype(np.int64)
        u = (((u >> 1) | 0x100) ^ 0x0F) & 0xFFF
        return [n.astype(np.int32), f, u.astype(np.uint16)]
    return Case(k, 3, 32, make, ref, outs=[0, 1, 2], tol=1e-12)


@case
def chained_compares_ternaries_and_constants():
    @cuda.jit
    def k(x, lo, hi, out, flags):
        i = cuda.grid(1)
        if 0 <= i < x.size:
            v = x[i]
            inside = lo < v <= hi
            out[i, 0] = v if inside else (lo if v <= lo else hi)
            out[i, 1] = math.pi * v + math.e - (math.inf if v > 100 else 0.0)
            out[i, 2] = 1 if v > 0 else -1.5
            flags[i] = (inside and v != 0) or (v < lo - 1 and not v > hi)

    def make(rng):
        return [rng.standard_normal(64) * 3, -1.0, 2.0, np.zeros((64, 3)),
                np.zeros(64, np.bool_)]

    def ref(a):
        x, lo, hi = a[0], a[1], a[2]
        inside = (lo < x) & (x <= hi)
        return [np.stack([np.clip(x, lo, hi), math.pi * x + math.e, np.where(x > 0, 1, -1.5)],
                         axis=1), (inside & (x != 0)) | ((x < lo - 1) & ~(x > hi))]
    return Case(k, 2, 32, make, ref, outs=[3, 4], tol=1e-12)


@case
def atomic_exch_bitwise_and_nanmax():
    @cuda.jit
    def k(vals, bits, ands, ors, xors, last, nmax):
        i = cuda.grid(1)
        if i < vals.size:
            cuda.atomic.and_(ands, 0, bits[i])
            cuda.atomic.or_(ors, 0, bits[i])
            cuda.atomic.xor(xors, 0, bits[i])
            cuda.atomic.exch(last, i % 2, np.int32(7))
            cuda.atomic.nanmax(nmax, 0, vals[i])

    def make(rng):
        v = rng.standard_normal(100)
        v[[5, 17]] = np.nan
        return [v, rng.integers(0, 2**31, 100, dtype=np.uint32).astype(np.uint32),
                np.full(1, 0xFFFFFFFF, np.uint32), np.zeros(1, np.uint32), np.zeros(1, np.uint32),
                np.zeros(2, np.int32), np.full(1, -np.inf)]

    def ref(a):
        b = a[1]
        return [np.array([np.bitwise_and.reduce(b)], np.uint32),
                np.array([np.bitwise_or.reduce(b)], np.uint32),
                np.array([np.bitwise_xor.reduce(b)], np.uint32),
                np.array([7, 7], np.int32), np.array([np.nanmax(a[0])])]
    return Case(k, 4, 32, make, ref, outs=[2, 3, 4, 5, 6])


@case
def local_array_with_global_shape_and_negative_indices():
    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.shape[0]:
            buf = cuda.local.array(LOCAL_SHAPE, np.float32)
            for r in range(LOCAL_SHAPE[0]):
                for c in range(LOCAL_SHAPE[1]):
                    buf[r, c] = x[i, r * LOCAL_SHAPE[1] + c]
            out[i, 0] = buf[-1, -1] - buf[0, -2]
            out[i, 1] = x[i, -1] + x[-1, 0] + x.shape[-1]

    def make(rng):
        return [rng.standard_normal((20, 6)).astype(np.float32), np.zeros((20, 2))]

    def ref(a):
        x = a[0].astype(np.float64)
        return [np.stack([x[:, 5] - x[:, 1], x[:, -1] + x[-1, 0] + 6], axis=1)]
    return Case(k, 1, 32, make, ref, outs=[1], tol=1e-6,
                sim="the simulator's arrays take no negative index into .shape")


@case
def inner_function_and_star_args_device_function():
    @cuda.jit(device=True)
    def total(*vals):
        s = 0.0
        for v in vals:
            s += v
        return s

    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)

        def scaled(v, s=2.0):
            return v * s + i

        if i < a.shape[0]:
            out[i] = total(a[i, 0], a[i, 1], a[i, 2]) + scaled(a[i, 0]) + scaled(1.0, s=0.5)

    def make(rng):
        return [rng.standard_normal((40, 3)), np.zeros(40)]

    def ref(x):
        a = x[0]
        i = np.arange(40)
        return [a.sum(axis=1) + a[:, 0] * 2.0 + i + 0.5 + i]
    return Case(k, 2, 32, make, ref, outs=[1], tol=1e-12)


@case
def fences_syncwarp_and_fp16_math():
    @cuda.jit
    def k(h, out, ok):
        i = cuda.grid(1)
        v = h[i]
        cuda.threadfence_block()
        out[i, 0] = cuda.fp16.hsqrt(cuda.fp16.habs(v))
        out[i, 1] = cuda.fp16.hexp(cuda.fp16.hmul(v, np.float16(0.5)))
        out[i, 2] = cuda.fp16.hmin(v, np.float16(0.25))
        cuda.syncwarp()
        cuda.threadfence_system()
        ok[i] = cuda.fp16.heq(v, v)

    def make(rng):
        n = 64
        return [rng.uniform(-3, 3, n).astype(np.float16), np.zeros((n, 3), np.float16),
                np.zeros(n, np.bool_)]

    def check(before, after):
        v = before[0].astype(np.float32)
        want = np.stack([np.sqrt(np.abs(v)), np.exp(v * 0.5), np.minimum(v, 0.25)], axis=1)
        np.testing.assert_allclose(after[1].astype(np.float32), want, rtol=3e-3, atol=3e-3)
        assert after[2].all()
    return Case(k, 2, 32, make, check=check, threads=True,
                sim="the simulator has no cuda.fp16.hsqrt / hexp")


@case
def device_function_with_explicit_signature_converting():
    @cuda.jit("float32(float32, float32)", device=True)
    def blend(a, b):
        return a * np.float32(0.75) + b * np.float32(0.25)

    @cuda.jit("boolean(int64)", device=True)
    def is_odd(n):
        return n % 2 == 1

    @cuda.jit
    def k(x, y, out, odd):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = blend(x[i], y[i])
            odd[i] = is_odd(i)

    def make(rng):
        return [rng.standard_normal(50), rng.standard_normal(50), np.zeros(50),
                np.zeros(50, np.bool_)]

    def ref(a):
        x = a[0].astype(np.float32)
        y = a[1].astype(np.float32)
        return [(x * np.float32(0.75) + y * np.float32(0.25)).astype(np.float64),
                np.arange(50) % 2 == 1]
    return Case(k, 2, 32, make, ref, outs=[2, 3], tol=1e-6)


# ---------------------------------------------------------------- third batch

@case
def tuple_builtins_and_concatenation():
    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.shape[0]:
            head = (x[i, 0], x[i, 1])
            whole = head + (x[i, 2], 0.25)
            out[i, 0] = min(whole) + max(head)
            out[i, 1] = sum(whole) + sum(head, 100.0)
            out[i, 2] = len(whole) + whole[2] + max(x.shape)

    def make(rng):
        return [rng.standard_normal((30, 3)), np.zeros((30, 3))]

    def ref(a):
        x = a[0]
        w = np.concatenate([x, np.full((30, 1), 0.25)], axis=1)
        return [np.stack([w.min(axis=1) + x[:, :2].max(axis=1),
                          w.sum(axis=1) + x[:, :2].sum(axis=1) + 100.0, 4 + x[:, 2] + 30],
                         axis=1)]
    return Case(k, 1, 32, make, ref, outs=[1], tol=1e-12)


@case
def numpy_complex_helpers_on_numbers():
    @cuda.jit
    def k(z, x, prod, out):
        i = cuda.grid(1)
        if i < z.size:
            prod[i] = z[i] * np.conj(z[i]) + np.conjugate(x[i])
            out[i, 0] = np.angle(z[i]) - np.angle(x[i])
            out[i, 1] = np.real(z[i]) * np.imag(z[i])

    def make(rng):
        return [rng.standard_normal(48) + 1j * rng.standard_normal(48), rng.standard_normal(48),
                np.zeros(48, np.complex128), np.zeros((48, 2))]

    def ref(a):
        z, x = a[0], a[1]
        return [z * np.conj(z) + x, np.stack([np.angle(z) - np.angle(x), z.real * z.imag], axis=1)]
    return Case(k, 2, 32, make, ref, outs=[2, 3], tol=1e-12)


@case
def records_updated_in_device_functions():
    @cuda.jit(device=True)
    def kick(p, dt):
        for d in range(3):
            p.vel[d] += dt * d
        p.mass = p.mass * 0.5

    @cuda.jit(device=True)
    def fill_row(buf, base):
        for j in range(buf.size):
            buf[j] = base + j

    @cuda.jit
    def k(parts, copies, out):
        i = cuda.grid(1)
        if i < parts.size:
            kick(parts[i], 0.5)
            copies[parts.size - 1 - i] = parts[i]
            tmp = cuda.local.array(3, np.float64)
            fill_row(tmp, parts[i].id)
            out[i] = tmp[0] + tmp[2]

    def make(rng):
        a = np.zeros(40, PARTICLE)
        a["id"] = rng.integers(-50, 50, 40)
        a["mass"] = rng.random(40) + 0.5
        a["vel"] = rng.standard_normal((40, 3))
        return [a, np.zeros(40, PARTICLE), np.zeros(40)]

    def check(before, after):
        p = before[0]
        vel = p["vel"] + 0.5 * np.arange(3, dtype=np.float32)
        np.testing.assert_allclose(after[0]["vel"], vel, rtol=1e-6)
        np.testing.assert_allclose(after[0]["mass"], p["mass"] * 0.5, rtol=1e-12)
        np.testing.assert_array_equal(after[1]["id"], p["id"][::-1])
        np.testing.assert_allclose(after[1]["vel"], vel[::-1], rtol=1e-6)
        np.testing.assert_allclose(after[2], 2.0 * p["id"] + 2, rtol=1e-12)
    return Case(k, 2, 32, make, check=check,
                sim="the simulator cannot store a whole record into a record array")


@case
def booleans_added_as_counts():
    @cuda.jit
    def k(a, b, hits):
        i = cuda.grid(1)
        if i < a.size:
            hits[i] = (a[i] > 0) + (b[i] > 0) + (a[i] > b[i])

    def make(rng):
        return [rng.standard_normal(64), rng.standard_normal(64), np.zeros(64, np.int64)]

    def ref(x):
        a, b = x[0], x[1]
        return [(a > 0).astype(np.int64) + (b > 0) + (a > b)]
    return Case(k, 2, 32, make, ref, outs=[2],
                sim="the simulator adds NumPy's booleans (a logical or); Numba types "
                    "bool + bool as int64")


@case
def tuple_of_arrays_iterated_and_reversed_indices():
    @cuda.jit
    def k(arrs, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            s = 0.0
            for a in arrs:
                s += a[i, 0]
            for j in range(len(arrs)):
                s += arrs[j][-i - 1, 1] * j
            out[i] = s

    def make(rng):
        return [tuple(rng.standard_normal((10, 2)) for _ in range(3)), np.zeros(10)]

    def ref(x):
        a, b, c = x[0]
        return [a[:, 0] + b[:, 0] + c[:, 0] + b[::-1, 1] + 2 * c[::-1, 1]]
    return Case(k, 1, 32, make, ref, outs=[1], tol=1e-12)
