"""Language features numba-cuda kernels use: device functions given what is
known only while the kernel compiles (a dtype, a shared-array size or
shape, a function, a jit builtin such as cuda.atomic.add, a cast), read once
per distinct set of them; a kernel called from a kernel (a device function
that returns a value); *args and default values; for loops over arrays,
tuples, enumerate() and zip() (nested, range() inside); for ... else and
while ... else; a tuple indexed by a variable; print() of tuples; device
functions that call themselves; functions defined inside a kernel.
Each has a NumPy reference on fresh random data; those needing threads
that run together (shared memory) run on the GPU only, the rest on the CPU
host shim as well."""
import math

import numpy as np

from cujit import cuda
from cujit.cuda import float64, int64, uint32

from ._common import poison, rand

NBINS = 16
SCALES = (0.5, 2, 3.25)


# ---- compile-time arguments ----

@cuda.jit(device=True)
def cast_none(v):
    return v


@cuda.jit(device=True)
def shared_count(out, vals, dtype, nbins, op, cast, wrap):
    # nbins sizes the shared array: a constant only because the caller passes one
    tid = cuda.threadIdx.x
    sm = cuda.shared.array(nbins, dtype)
    if tid < nbins:
        sm[tid] = 0
    cuda.syncthreads()
    b = cast(vals[tid] % nbins)
    if wrap:
        b = b % nbins
    op(sm, b, 1)
    cuda.syncthreads()
    if tid < nbins:
        out[tid] = sm[tid]


@cuda.jit
def histograms(vals, h1, h2):
    # the same device function with two dtypes, sizes, atomics and casts
    shared_count(h1, vals, uint32, NBINS, cuda.atomic.add, cast_none, False)
    shared_count(h2, vals, int64, NBINS // 2, cuda.atomic.add, uint32, True)


def _hist_ref(vals, h1, h2):
    return {1: np.bincount(vals % NBINS, minlength=NBINS).astype(np.uint32),
            2: np.bincount(vals % (NBINS // 2), minlength=NBINS // 2).astype(np.int64)}


@cuda.jit(device=True)
def tile_sum(x, shape, dtype):
    # a tuple shape of a local array, passed by the caller
    t = cuda.local.array(shape, dtype)
    for a in range(shape[0]):
        for b in range(shape[1]):
            t[a, b] = x[a * shape[1] + b]
    s = 0
    for a in range(shape[0]):
        for b in range(shape[1]):
            s += t[a, b] * (a + 1)
    return s


@cuda.jit
def local_tiles(x, out):
    i = cuda.grid(1)
    if i == 0:
        out[0] = tile_sum(x, (2, 3), float64)
        out[1] = tile_sum(x, (3, 2), float64)


def _tiles_ref(x, out):
    r = out.copy()
    r[0] = sum(x[a * 3 + b] * (a + 1) for a in range(2) for b in range(3))
    r[1] = sum(x[a * 2 + b] * (a + 1) for a in range(3) for b in range(2))
    return {1: r}


@cuda.jit(device=True)
def square(v):
    return v * v


@cuda.jit(device=True)
def apply(f, v):
    return f(v)


@cuda.jit(device=True)
def apply_twice(f, g, v):
    return apply(f, apply(g, v))


@cuda.jit
def passed_functions(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = apply(square, x[i])
        out[i, 1] = apply(math.floor, x[i])
        out[i, 2] = apply(abs, x[i])
        out[i, 3] = apply_twice(square, math.fabs, x[i])
        out[i, 4] = apply(int64, x[i] * 3)


def _functions_ref(x, out):
    r = np.empty_like(out)
    r[:, 0] = x * x
    r[:, 1] = np.floor(x)
    r[:, 2] = np.abs(x)
    r[:, 3] = np.abs(x) ** 2
    r[:, 4] = np.trunc(x * 3)
    return {1: r}


# ---- a kernel called from a kernel; *args; defaults ----

@cuda.jit
def plus_one(v):
    return v + 1        # numba-cuda: a kernel called from a kernel is a device function


@cuda.jit(device=True)
def consumer(func, *args):
    return func(*args)


@cuda.jit(device=True)
def total(*vals):
    s = 0.0
    for v in vals:
        s += v
    return s


@cuda.jit(device=True)
def scaled(v, k=2.5, bias=1):
    return v * k + bias


@cuda.jit
def calls(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = plus_one(x[i])
        out[i, 1] = consumer(square, x[i])
        out[i, 2] = consumer(math.atan2, x[i], 2.0)
        out[i, 3] = total(x[i], 1, 2.5)
        out[i, 4] = total()
        out[i, 5] = scaled(x[i]) + scaled(x[i], 4.0) + scaled(x[i], bias=-2)


def _calls_ref(x, out):
    r = np.empty_like(out)
    r[:, 0] = x + 1
    r[:, 1] = x * x
    r[:, 2] = np.arctan2(x, 2.0)
    r[:, 3] = x + 3.5
    r[:, 4] = 0
    r[:, 5] = (x * 2.5 + 1) + (x * 4 + 1) + (x * 2.5 - 2)
    return {1: r}


@cuda.jit
def inner_functions(x, out):
    i = cuda.grid(1)
    scale = 3                   # a constant local: the functions below may read it

    def helper(v, k=2):
        return v * scale + k

    def twice(f, v):
        return f(f(v))

    if i < x.size:
        out[i, 0] = helper(x[i])
        out[i, 1] = consumer(helper, x[i], 5)
        out[i, 2] = twice(helper, x[i])


def _inner_ref(x, out):
    r = np.empty_like(out)
    r[:, 0] = x * 3 + 2
    r[:, 1] = x * 3 + 5
    r[:, 2] = (x * 3 + 2) * 3 + 2
    return {1: r}


@cuda.jit
def inner_captures(x, y, out, n):
    i = cuda.grid(1)
    base = 0.5

    def mix(j):                 # reads the kernel's arrays and variables
        return x[j] * y[j] + base

    sq = lambda t: t * t + n    # noqa: E731  (a lambda is a function too)

    def bump(j):
        out[j, 2] = x[j] - n    # writes through a captured array

    if i < x.size:
        base = x[i] * 2         # late binding: the value at the call
        out[i, 0] = mix(i)
        out[i, 1] = sq(y[i])
        bump(i)


def _captures_ref(x, y, out, n):
    r = np.empty_like(out)
    r[:, 0] = x * y + x * 2
    r[:, 1] = y * y + n
    r[:, 2] = x - n
    return {2: r}


# ---- for loops over more than range() ----

@cuda.jit
def loops(x, y, out):
    if cuda.grid(1) != 0:
        return
    s = 0.0
    for v in x:
        s += v
    out[0] = s
    s = 0.0
    for k, v in enumerate(x, 1):
        s += k * v
    out[1] = s
    s = 0.0
    for a, b in zip(x, y):
        s += a * b
    out[2] = s
    s = 0.0
    for (k, a), b in zip(enumerate(x), y):
        s += k * a - b
    out[3] = s
    s = 0.0
    for k, (a, b) in enumerate(zip(x, y)):
        s += k + a + b
    out[4] = s
    s = 0.0
    for k, j in enumerate(range(x.size - 1, 0, -3)):
        s += (k + 1) * x[j]
    out[5] = s
    s = 0.0
    for c in SCALES:
        for v in x:
            s += c * v
    out[6] = s
    s = 0.0
    for c in (x[0], x[1], 2):
        s += c
    out[7] = s


def _loops_ref(x, y, out):
    r = out.copy()
    r[0] = x.sum()
    r[1] = sum((k + 1) * v for k, v in enumerate(x))
    r[2] = (x[:9] * y).sum()
    r[3] = sum(k * a - b for k, (a, b) in enumerate(zip(x, y)))
    r[4] = sum(k + a + b for k, (a, b) in enumerate(zip(x, y)))
    r[5] = sum((k + 1) * x[j] for k, j in enumerate(range(x.size - 1, 0, -3)))
    r[6] = sum(c * x.sum() for c in SCALES)
    r[7] = x[0] + x[1] + 2
    return {2: r}


@cuda.jit
def loop_else(x, found, steps):
    i = cuda.grid(1)
    if i < x.shape[0]:
        for j in range(x.shape[1]):
            if x[i, j] < 0:
                where = j
                break
        else:
            where = -1
        found[i] = where
        n = 0
        k = 0
        while k < x.shape[1]:
            if x[i, k] > 8:
                break
            n += 1
            k += 1
        else:
            n += 100
        steps[i] = n


def _loop_else_ref(x, found, steps):
    f = np.full(found.shape, -1, found.dtype)
    s = np.empty_like(steps)
    for i in range(x.shape[0]):
        neg = np.nonzero(x[i] < 0)[0]
        if neg.size:
            f[i] = neg[0]
        big = np.nonzero(x[i] > 8)[0]
        s[i] = big[0] if big.size else x.shape[1] + 100
    return {1: f, 2: s}


def _loop_else_args():
    x = rand((64, 6), np.int64, -3, 10)
    x[::5] = np.abs(x[::5])         # rows without a negative: the else runs
    return x, poison(64, np.int64), poison(64, np.int64)


@cuda.jit
def tuple_by_index(x, out):
    i = cuda.grid(1)
    if i < out.size:
        t = (x[0], x[1], x[2], 7)
        out[i] = t[i % 4]


def _tuple_index_ref(x, out):
    t = np.array([x[0], x[1], x[2], 7], out.dtype)
    return {1: t[np.arange(out.size) % 4]}


@cuda.jit("int64(int64)", device=True)
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


@cuda.jit(device=True)
def gcd(a, b):
    if b == 0:
        return a
    return gcd(b, a % b)


@cuda.jit
def recursion(n, a, b, out):
    i = cuda.grid(1)
    if i < n.size:
        out[i, 0] = fib(n[i])
        out[i, 1] = gcd(a[i], b[i])
        out[i, 2] = fib(12)


def _fib(k):
    return k if k < 2 else _fib(k - 1) + _fib(k - 2)


def _recursion_ref(n, a, b, out):
    r = np.empty_like(out)
    r[:, 0] = [_fib(int(k)) for k in n]
    r[:, 1] = np.gcd(a, b)
    r[:, 2] = _fib(12)
    return {3: r}


def _recursion_args():
    return (rand(40, np.int64, 0, 15), rand(40, np.int64, 1, 10 ** 6),
            rand(40, np.int64, 1, 10 ** 6), poison((40, 3), np.int64))


@cuda.jit
def print_tuples(k):
    if cuda.grid(1) == 0:
        print((k, 2.5), (k,), ((1, 2), True))


def _print_tuples_out(out):
    assert "(42, 2.500000) (42,) ((1, 2), True)\n" in out, out


CASES = [
    (histograms, (rand(64, np.int64, 0, 1000), poison(NBINS, np.uint32),
                  poison(NBINS // 2, np.int64)),
     [("cj_dev_shared_count_", True), ("__shared__ unsigned int sm[16]", True),
      ("__shared__ long long sm[8]", True)]),
    (passed_functions, (rand(8), poison((8, 5), np.float32)), [("floor", True)]),
    (calls, (rand(8, np.float64), poison((8, 6), np.float64)), [("cj_dev_plus_one", True)]),
    (loops, (rand(9, np.float64), rand(9, np.float64), poison(8, np.float64)), []),
    (loop_else, _loop_else_args(), [("goto cj_brk", True)]),
    (tuple_by_index, (rand(3, np.int32), poison(10, np.int32)), []),
    (print_tuples, (42,), [("printf", True)]),
    (recursion, _recursion_args(), [("__noinline__", True)]),
    (inner_functions, (rand(8, np.int64), poison((8, 3), np.int64)), [("cj_dev_helper", True)]),
    (inner_captures, (rand(8, np.float64), rand(8, np.float64), poison((8, 3), np.float64), 3),
     [("cj_dev_mix", True), ("cj_dev_lambda", True)]),
]

RUN = [
    (histograms, 1, 64, lambda: (rand(64, np.int64, 0, 1000), poison(NBINS, np.uint32),
                                 poison(NBINS // 2, np.int64)), _hist_ref),
    (local_tiles, 1, 32, lambda: (rand(6, np.float64), poison(2, np.float64)), _tiles_ref),
    (passed_functions, 2, 32, lambda: (rand(50, np.float32), poison((50, 5), np.float32)),
     _functions_ref),
    (calls, 2, 32, lambda: (rand(40, np.float64), poison((40, 6), np.float64)), _calls_ref),
    (loops, 1, 32, lambda: (rand(11, np.float64), rand(9, np.float64), poison(8, np.float64)),
     _loops_ref),
    (loop_else, 2, 32, _loop_else_args, _loop_else_ref),
    (tuple_by_index, 1, 32, lambda: (rand(3, np.int32), poison(21, np.int32)), _tuple_index_ref),
    (print_tuples, 1, 32, lambda: (42,), lambda k: {}, {"stdout": _print_tuples_out}),
    (recursion, 2, 32, _recursion_args, _recursion_ref),
    (inner_functions, 2, 32, lambda: (rand(50, np.int64), poison((50, 3), np.int64)), _inner_ref),
    (inner_captures, 2, 32, lambda: (rand(50, np.float64), rand(50, np.float64),
                                     poison((50, 3), np.float64), 7), _captures_ref),
]
