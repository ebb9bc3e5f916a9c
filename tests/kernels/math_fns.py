"""The math module: every function of the kernel language on float32 and
float64 (and ints, which compute in float64), and its constants."""
import math

import numpy as np

from cujit import jit

from ._common import poison, rand

UNARY = ["sqrt", "exp", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan",
         "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "floor",
         "ceil", "trunc", "fabs", "erf", "erfc", "gamma", "lgamma"]


@jit.rawkernel()
def math_unary(x, p, u, out):
    # x: any real in [-3, 3]; p: positive in [0.1, 10]; u: inside (-1, 1)
    i = jit.grid(1)
    if i < x.size:
        out[i, 0] = math.sqrt(p[i])
        out[i, 1] = math.exp(x[i])
        out[i, 2] = math.expm1(x[i])
        out[i, 3] = math.log(p[i])
        out[i, 4] = math.log1p(p[i])
        out[i, 5] = math.log2(p[i])
        out[i, 6] = math.log10(p[i])
        out[i, 7] = math.sin(x[i])
        out[i, 8] = math.cos(x[i])
        out[i, 9] = math.tan(u[i])
        out[i, 10] = math.asin(u[i])
        out[i, 11] = math.acos(u[i])
        out[i, 12] = math.atan(x[i])
        out[i, 13] = math.sinh(x[i])
        out[i, 14] = math.cosh(x[i])
        out[i, 15] = math.tanh(x[i])
        out[i, 16] = math.asinh(x[i])
        out[i, 17] = math.acosh(p[i] + 1)
        out[i, 18] = math.atanh(u[i])
        out[i, 19] = math.floor(x[i])
        out[i, 20] = math.ceil(x[i])
        out[i, 21] = math.trunc(x[i])
        out[i, 22] = math.fabs(x[i])
        out[i, 23] = math.erf(x[i])
        out[i, 24] = math.erfc(x[i])
        out[i, 25] = math.gamma(p[i])
        out[i, 26] = math.lgamma(p[i])


def _unary_ref(x, p, u, out):
    arg = {"sqrt": p, "log": p, "log1p": p, "log2": p, "log10": p, "gamma": p, "lgamma": p,
           "tan": u, "asin": u, "acos": u, "atanh": u, "acosh": p + 1}
    cols = []
    for name in UNARY:
        a = arg.get(name, x).astype(np.float64)
        cols.append([getattr(math, name)(v) for v in a.tolist()])
    return {3: np.array(cols, np.float64).T.astype(out.dtype)}


def _unary_args(dt):
    def make():
        n = 64
        return (rand(n, dt, -3, 3), rand(n, dt, 0.1, 10), rand(n, dt, -0.95, 0.95),
                poison((n, len(UNARY)), dt))
    return make


@jit.rawkernel()
def math_binary(x, y, p, out):
    i = jit.grid(1)
    if i < x.size:
        out[i, 0] = math.pow(p[i], x[i])
        out[i, 1] = math.atan2(x[i], y[i])
        out[i, 2] = math.hypot(x[i], y[i])
        out[i, 3] = math.fmod(x[i], y[i])          # C semantics: sign of x
        out[i, 4] = math.copysign(p[i], x[i])
        out[i, 5] = math.log(p[i], 2)              # log with a base


def _binary_ref(x, y, p, out):
    rows = [[math.pow(c, a), math.atan2(a, b), math.hypot(a, b), math.fmod(a, b),
             math.copysign(c, a), math.log(c, 2)]
            for a, b, c in zip(x.astype(np.float64).tolist(), y.astype(np.float64).tolist(),
                               p.astype(np.float64).tolist())]
    return {3: np.array(rows).astype(out.dtype)}


def _binary_args(dt):
    def make():
        n = 64
        y = rand(n, dt, -3, 3)
        y[np.abs(y) < 0.1] = 0.5
        return rand(n, dt, -3, 3), y, rand(n, dt, 0.1, 4), poison((n, 6), dt)
    return make


@jit.rawkernel()
def math_predicates(x, out):
    i = jit.grid(1)
    if i < x.size:
        out[i, 0] = math.isnan(x[i])
        out[i, 1] = math.isinf(x[i])
        out[i, 2] = math.isfinite(x[i])


def _predicate_args(dt):
    def make():
        x = rand(32, dt)
        x[::3] = np.nan
        x[1::5] = np.inf
        x[2::7] = -np.inf
        return x, poison((32, 3), np.bool_)
    return make


@jit.rawkernel()
def math_constants(out):
    if jit.grid(1) == 0:
        out[0] = math.pi
        out[1] = math.e
        out[2] = math.inf
        out[3] = -math.inf
        out[4] = math.nan
        out[5] = 2 * math.pi


@jit.rawkernel()
def scale_by_pi(x, out):
    i = jit.grid(1)
    if i < x.size:
        out[i] = x[i] * math.pi + math.e      # Python floats are weak: float32 stays


@jit.rawkernel()
def math_on_ints(k, out):
    i = jit.grid(1)
    if i < k.size:
        out[i, 0] = math.sqrt(k[i])           # int -> float64, as in Python
        out[i, 1] = math.exp(k[i] / 10)
        out[i, 2] = math.floor(k[i] / 3)


def _ints_ref(k, out):
    rows = [[math.sqrt(v), math.exp(v / 10), math.floor(v / 3)] for v in k.tolist()]
    return {1: np.array(rows)}


_F32 = {"rtol": 2e-5, "atol": 2e-6}
_F64 = {"rtol": 1e-11, "atol": 1e-13}

CASES = [
    (math_unary, _unary_args(np.float32)()),
    (math_unary, _unary_args(np.float64)()),
    (math_binary, _binary_args(np.float32)()),
    (math_binary, _binary_args(np.float64)()),
    (math_predicates, _predicate_args(np.float32)()),
    (math_predicates, _predicate_args(np.float64)()),
    (math_predicates, _predicate_args(np.float16)()),
    (math_constants, (poison(6, np.float64),)),
    (math_constants, (poison(6, np.float32),)),
    (scale_by_pi, (rand(16, np.float32), poison(16, np.float32)), [("double", False)]),
    (math_on_ints, (rand(16, np.int32, 0, 50), poison((16, 3), np.float64))),
]

RUN = [
    (math_unary, 1, 64, _unary_args(np.float32), _unary_ref, _F32),
    (math_unary, 1, 64, _unary_args(np.float64), _unary_ref, _F64),
    (math_binary, 1, 64, _binary_args(np.float32), _binary_ref, _F32),
    (math_binary, 1, 64, _binary_args(np.float64), _binary_ref, _F64),
    (math_predicates, 1, 32, _predicate_args(np.float32),
     lambda x, out: {1: np.stack([np.isnan(x), np.isinf(x), np.isfinite(x)], axis=1)}),
    (math_predicates, 1, 32, _predicate_args(np.float64),
     lambda x, out: {1: np.stack([np.isnan(x), np.isinf(x), np.isfinite(x)], axis=1)}),
    (math_constants, 1, 1, lambda: (poison(6, np.float64),),
     lambda out: {0: np.array([math.pi, math.e, math.inf, -math.inf, math.nan, 2 * math.pi])}),
    (scale_by_pi, 1, 16, lambda: (rand(16, np.float32), poison(16, np.float32)),
     lambda x, out: {1: x * np.float32(math.pi) + np.float32(math.e)}),
    (math_on_ints, 1, 16, lambda: (rand(16, np.int32, 0, 50), poison((16, 3), np.float64)),
     _ints_ref),
]
