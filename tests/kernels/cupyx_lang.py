"""cupyx.jit's language features: jit.range(..., unroll=), if on a
compile-time constant (the branch not taken is never compiled), return None,
device functions made by factories and closures, calls of captured dtypes and
types (dtype.type(x), numpy.dtype(t).type(numpy.inf), cupy.float32(x)) and
the atomics on every dtype CUDA has them for."""
import numpy as np

from cujit import jit

from ._common import poison, rand

N_TAPS = 8
DEBUG = False


@jit.rawkernel()
def unrolled_sums(x, out, n):
    """Four loops: unroll=True, unroll=4, unroll=False and no pragma."""
    i = jit.grid(1)
    if i < out.size:
        s = 0.0
        for j in jit.range(N_TAPS, unroll=True):
            s += x[i * N_TAPS + j]
        for j in jit.range(0, n, unroll=4):
            s += 2 * x[i * N_TAPS + j]
        for j in jit.range(n - 1, -1, -2, unroll=False):
            s += 3 * x[i * N_TAPS + j]
        for j in jit.range(1, n, 3):
            s += 4 * x[i * N_TAPS + j]
        out[i] = s


def _unrolled_ref(x, out, n):
    t = x.reshape(-1, N_TAPS).astype(np.float64)
    s = t.sum(1) + 2 * t[:, :n].sum(1) + 3 * t[:, n - 1::-2].sum(1) + 4 * t[:, 1:n:3].sum(1)
    return {1: s}


@jit.rawkernel()
def constant_branches(x, out):
    """The branches not taken name things that do not exist: never read."""
    i = jit.grid(1)
    if i < x.size:
        if DEBUG:
            print("debug", no_such_name)       # noqa: F821
        if N_TAPS > 4 and not DEBUG:
            v = x[i] * 2
        else:
            v = no_such_function(x[i])         # noqa: F821
        if N_TAPS < 2:
            w = 1
        elif N_TAPS == 8:
            w = 2
        else:
            w = x[i].no_such_attribute
        out[i] = v + w


@jit.rawkernel(device=True)
def _clamp_store(out, i, v):
    if v < 0:
        out[i] = 0
        return None
    out[i] = v
    return


@jit.rawkernel()
def return_none(x, out):
    i = jit.grid(1)
    if i >= x.size:
        return None
    _clamp_store(out, i, x[i])
    return None


def _offset_adder(const):
    """A factory: every product is a device function named f."""
    @jit.rawkernel(device=True)
    def f(x, y):
        return x + y + const
    return f


@jit.rawkernel()
def factory_products(x, y, z):
    tid = jit.grid(1)
    if tid < z.size:
        z[tid] = _offset_adder(10)(x[tid], y[tid])
        z[tid] += _offset_adder(20)(x[tid], y[tid])
        z[tid] += _offset_adder(30)(x[tid], y[tid])


def _tree_step(step):
    """A factory whose product calls the next product until step reaches
    256: the constant-false branch must not be compiled, or it never ends."""
    @jit.rawkernel(device=True)
    def f(x):
        if step < 256:
            tid = jit.threadIdx.x
            if tid % (step * 2) == 0:
                x[tid] += x[tid + step]
            jit.syncthreads()
            _tree_step(step * 2)(x)
    return f


@jit.rawkernel()
def factory_tree_sum(x, y):
    tid = jit.threadIdx.x
    y[tid] = x[tid]
    jit.syncthreads()
    _tree_step(1)(y)


sq = jit.rawkernel(device=True)(lambda v: v * v); cube = jit.rawkernel(device=True)(lambda v: v * v * v)  # noqa: E702,E501


@jit.rawkernel()
def two_lambdas_one_line(x, out):
    i = jit.grid(1)
    if i < x.size:
        out[i] = sq(x[i]) + cube(x[i])


def _clip_kernel(dtype, hi):
    """Closure-captured dtype and type: dtype.type(x), numpy.dtype(t).type(hi)
    (hi is numpy.inf for floats; NumPy refuses to make an integer of it)."""
    t = dtype.type

    @jit.rawkernel()
    def clip_cast(x, lo, out):
        i = jit.grid(1)
        if i < x.size:
            v = dtype.type(x[i])
            out[i] = max(min(v, np.dtype(t).type(hi)), t(lo))
    return clip_cast


clip_cast_f32 = _clip_kernel(np.dtype(np.float32), np.inf)
clip_cast_i16 = _clip_kernel(np.dtype(np.int16), 5)


def _add_kernel(c):
    """A kernel factory: both products are kernels named add_c."""
    @jit.rawkernel()
    def add_c(x, out):
        i = jit.grid(1)
        if i < x.size:
            out[i] = x[i] + c
    return add_c


add_one, add_two = _add_kernel(1), _add_kernel(2)


@jit.rawkernel()
def half_histogram(vals, w, hist):
    """float16 atomics in shared memory, then into global memory."""
    local = jit.shared_memory(np.float16, 8)
    t = jit.threadIdx.x
    if t < 8:
        local[t] = 0
    jit.syncthreads()
    i = jit.grid(1)
    if i < vals.size:
        jit.atomic_add(local, vals[i], w[i])
    jit.syncthreads()
    if t < 8:
        jit.atomic_add(hist, t, local[t])


def _half_hist_ref(vals, w, hist):
    out = hist.astype(np.float64)
    np.add.at(out, vals, w.astype(np.float64))
    return {2: out}


def _check_tree(got, x):
    assert got[0] == x.sum(), (got[0], x.sum())



@jit.rawkernel()
def assigned_on_some_paths(x, out):
    """value is assigned for even i only: an odd i reads it as zero (cupyx.jit
    and Numba compile such kernels; cujit warns at the read)"""
    i = jit.grid(1)
    if i < out.size:
        if i % 2 == 0:
            value = x[i]
        out[i] = value + 1


def _some_paths_ref(x, out):
    want = np.ones_like(out)
    want[::2] = x[::2] + 1
    return {1: want}


CASES = [
    (unrolled_sums, (rand(64 * N_TAPS, np.float32), poison(64, np.float32), np.int32(5)),
     [("#pragma unroll\n", True), ("#pragma unroll(4)\n", True),
      ("#pragma unroll(1)\n", True)]),
    (constant_branches, (rand(32, np.float32), poison(32, np.float32)),
     [("no_such", False), ("print", False), ("w = 2", True)]),
    (return_none, (rand(32, np.float32), poison(32, np.float32)), [("return;", True)]),
    (factory_products, (rand(32, np.int32), rand(32, np.int32), poison(32, np.int32)),
     [("x + y + 10", True), ("x + y + 20", True), ("x + y + 30", True)]),
    (factory_tree_sum, (rand(256, np.int32), poison(256, np.int32)),
     [("step", False), ("(int)256LL", True), ("512", False)]),
    (two_lambdas_one_line, (rand(32, np.int32), poison(32, np.int32)),
     [("return v * v;", True), ("return v * v * v;", True)]),
    (clip_cast_f32, (rand(32, np.float64), np.int32(-3), poison(32, np.float32)),
     [("CJ_INF", True)]),
    (clip_cast_i16, (rand(32, np.float64), np.int32(-3), poison(32, np.int16))),
    (add_one, (rand(32, np.float32), poison(32, np.float32)), [("+ 1.0f", True)]),
    (half_histogram, (rand(300, np.int32, 0, 7), rand(300, np.float16, -4, 4).round(),
                      np.zeros(8, np.float16)), [("atom.add.noftz.f16", True)]),
    (add_two, (rand(32, np.float32), poison(32, np.float32)), [("+ 2.0f", True)]),
]

RUN = [
    (unrolled_sums, 2, 32,
     lambda: (rand(64 * N_TAPS, np.float32), poison(64, np.float32), np.int32(7)),
     _unrolled_ref, {"rtol": 1e-5, "atol": 1e-4}),
    (constant_branches, 1, 32, lambda: (rand(32, np.float32), poison(32, np.float32)),
     lambda x, out: {1: x * 2 + 2}),
    (return_none, 1, 64, lambda: (rand(40, np.float32), rand(64, np.float32)),
     lambda x, out: {1: np.concatenate([np.maximum(x, 0), out[40:]])}),
    (factory_products, 1, 32,
     lambda: (rand(30, np.int32), rand(30, np.int32), poison(30, np.int32)),
     lambda x, y, z: {2: (x + y) * 3 + 60}),
    (factory_tree_sum, 1, 256, lambda: (rand(256, np.int32), poison(256, np.int32)),
     lambda x, y: {1: lambda got: _check_tree(got, x)}),
    (two_lambdas_one_line, 1, 32, lambda: (rand(32, np.int32), poison(32, np.int32)),
     lambda x, out: {1: x * x + x * x * x}),
    (clip_cast_f32, 1, 64, lambda: (rand(64, np.float64), np.int32(-3), poison(64, np.float32)),
     lambda x, lo, out: {2: np.maximum(x.astype(np.float32), np.float32(lo))}),
    (clip_cast_i16, 1, 64, lambda: (rand(64, np.float64), np.int32(-3), poison(64, np.int16)),
     lambda x, lo, out: {2: np.clip(x.astype(np.int16), np.int16(lo), np.int16(5))}),
    (add_one, 1, 32, lambda: (rand(32, np.float32), poison(32, np.float32)),
     lambda x, out: {1: x + 1}),
    (half_histogram, 3, 128, lambda: (rand(300, np.int32, 0, 7),
                                      rand(300, np.float16, -4, 4).round(),
                                      rand(8, np.float16, -4, 4).round()), _half_hist_ref),
    (add_two, 1, 32, lambda: (rand(32, np.float32), poison(32, np.float32)),
     lambda x, out: {1: x + 2}),
    (assigned_on_some_paths, 1, 64, lambda: (rand(50, np.float32), poison(50, np.float32)),
     _some_paths_ref),
]
