"""Real-world-style cupyx.jit kernels, written the way users write them for
``from cupyx import jit`` with CuPy arrays (grid-stride loops, shared-memory
reductions with atomics, scans, histograms, stencils, tiled matmul, warp
shuffles, cub block/warp reductions, cooperative groups, device functions and
their factories, dtype casts, NumPy/CuPy constants, every launch form, streams,
complex / float16 / strided / 0-d / 3-d arrays).

The module imports neither cujit nor CuPy: each case is a function
``build(jit, cupy)`` (``jit``: cupyx.jit or cujit's ``jit``; ``cupy``: the
module the kernels read as ``cupy.float32``, ``cupy.pi``, ``cupy.sqrt`` --
CuPy itself where it is installed, else NumPy) returning a ``Case``:

  inputs(rng)   -> dict of NumPy arrays and scalars (seeded, never zeros)
  run(xp, d)    -> launches the kernels on d (the inputs, arrays moved to the
                   device by xp.asarray) and returns the dict of arrays to check
  ref(h)        -> the NumPy reference of those arrays, from the host inputs

``xp`` is the array adapter of the test: ``asarray``, ``asnumpy``, ``Stream()``
and ``sync()``.  The semantics are cupyx.jit's (Python's // and %, a store
converts with same_kind casting, Python scalars arguments typed int64 /
float64); the references allow float rounding where cupyx.jit and cujit may
compute in another precision.

tests/gpu/test_unseen_cupyx.py runs every case under cujit and, where CuPy is
installed, under cupyx.jit; tests/test_unseen_cupyx_nogpu.py compiles them
here and runs on the CPU those whose meaning needs no threads running
together."""
import math

import numpy

TPB = 16                 # tile side of the shared-memory matrix multiply
BLOCK = 128              # threads per block of the block reductions
NBINS = 64               # histogram bins
SCALE = 2.5              # a module constant read by kernels
EPS = 1e-6
FULL_MASK = 0xffffffff

CASES = {}


class Case:
    """What one case gives its test (see the module's docstring).
    canon: name -> function applied to both result and reference before
    comparing (sorting an order that atomics leave open)."""

    def __init__(self, inputs, run, ref, rtol=1e-6, atol=0.0, canon=None, cooperative=False):
        self.inputs, self.run, self.ref = inputs, run, ref
        self.rtol, self.atol = rtol, atol
        self.canon = canon or {}
        self.cooperative = cooperative


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def blocks_for(n, threads):
    return (n + threads - 1) // threads


# ---------------------------------------------------------------- elementwise

@case
def saxpy_grid_stride(jit, cupy):
    @jit.rawkernel()
    def saxpy(a, x, y, out, n):
        tid = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x
        ntid = jit.gridDim.x * jit.blockDim.x
        for i in range(tid, n, ntid):
            out[i] = a * x[i] + y[i]

    def inputs(rng):
        n = 5000
        return dict(a=numpy.float32(rng.uniform(0.5, 2.0)),
                    x=rng.standard_normal(n).astype(numpy.float32),
                    y=rng.standard_normal(n).astype(numpy.float32),
                    out=numpy.full(n, numpy.nan, numpy.float32), n=n)

    def run(xp, d):
        saxpy[8, 128](d["a"], d["x"], d["y"], d["out"], d["n"])
        return {"out": d["out"]}

    # the GPU fuses a * x + y into one rounding, NumPy rounds twice: near 0 only atol holds
    return Case(inputs, run, lambda h: {"out": h["a"] * h["x"] + h["y"]}, rtol=1e-5, atol=1e-6)


@case
def tuple_launch_python_scalars(jit, cupy):
    @jit.rawkernel()
    def affine(x, out, scale, shift, n):
        i = jit.grid(1)
        if i < n:
            out[i] = x[i] * scale + shift

    def inputs(rng):
        n = 1000
        return dict(x=rng.standard_normal(n), out=numpy.full(n, numpy.nan),
                    scale=float(rng.uniform(1, 3)), shift=float(rng.uniform(-1, 1)), n=n)

    def run(xp, d):
        n = d["n"]
        affine((blocks_for(n, 256),), (256,), (d["x"], d["out"], d["scale"], d["shift"], n))
        return {"out": d["out"]}

    return Case(inputs, run, lambda h: {"out": h["x"] * h["scale"] + h["shift"]})


@case
def strided_view_scale(jit, cupy):
    @jit.rawkernel()
    def scale_inplace(a, factor):
        i = jit.grid(1)
        if i < a.size:
            a[i] = a[i] * factor

    def inputs(rng):
        return dict(a=rng.uniform(1, 2, 3001).astype(numpy.float32), factor=numpy.float32(3.0))

    def run(xp, d):
        a = d["a"]
        view = a[::2]
        scale_inplace[blocks_for(view.size, 64), 64](view, d["factor"])
        return {"a": a}

    def ref(h):
        a = h["a"].copy()
        a[::2] *= h["factor"]
        return {"a": a}

    return Case(inputs, run, ref, rtol=1e-6)


@case
def transposed_view_copy(jit, cupy):
    @jit.rawkernel()
    def copy2d(src, dst, rows, cols):
        r, c = jit.grid(2)
        if r < rows and c < cols:
            dst[r, c] = src[r, c] + 1

    def inputs(rng):
        return dict(a=rng.integers(-100, 100, (37, 53)).astype(numpy.int32),
                    out=numpy.zeros((53, 37), numpy.int32))

    def run(xp, d):
        at = d["a"].T
        copy2d[(blocks_for(53, 16), blocks_for(37, 16)), (16, 16)](at, d["out"], 53, 37)
        return {"out": d["out"]}

    return Case(inputs, run, lambda h: {"out": h["a"].T + 1})


@case
def relu_float16(jit, cupy):
    @jit.rawkernel()
    def relu(x, y):
        i = jit.grid(1)
        if i < x.size:
            v = x[i]
            if v < cupy.float16(0):
                v = cupy.float16(0)
            y[i] = v

    def inputs(rng):
        n = 777
        return dict(x=rng.standard_normal(n).astype(numpy.float16),
                    y=numpy.full(n, 7, numpy.float16))

    def run(xp, d):
        relu[blocks_for(777, 128), 128](d["x"], d["y"])
        return {"y": d["y"]}

    return Case(inputs, run, lambda h: {"y": numpy.maximum(h["x"], numpy.float16(0))})


@case
def half_to_float_mixed(jit, cupy):
    @jit.rawkernel()
    def widen(h, f, out, n):
        i = jit.grid(1)
        if i < n:
            out[i] = cupy.float32(h[i]) * f[i] + 0.5

    def inputs(rng):
        n = 600
        return dict(h=rng.uniform(-4, 4, n).astype(numpy.float16),
                    f=rng.uniform(-2, 2, n).astype(numpy.float32),
                    out=numpy.full(n, numpy.nan, numpy.float32))

    def run(xp, d):
        widen[5, 128](d["h"], d["f"], d["out"], 600)
        return {"out": d["out"]}

    return Case(inputs, run,
                lambda h: {"out": h["h"].astype(numpy.float32) * h["f"] + numpy.float32(0.5)},
                rtol=1e-5, atol=1e-6)


@case
def complex_multiply(jit, cupy):
    @jit.rawkernel()
    def cmul(a, b, out, alpha):
        i = jit.grid(1)
        if i < out.size:
            out[i] = a[i] * b[i] + alpha

    def inputs(rng):
        n = 513
        a = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(numpy.complex64)
        b = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(numpy.complex64)
        return dict(a=a, b=b, out=numpy.zeros(n, numpy.complex64),
                    alpha=numpy.complex64(0.5 - 0.25j))

    def run(xp, d):
        cmul[blocks_for(513, 64), 64](d["a"], d["b"], d["out"], d["alpha"])
        return {"out": d["out"]}

    return Case(inputs, run, lambda h: {"out": h["a"] * h["b"] + h["alpha"]}, rtol=1e-5,
                atol=1e-6)


@case
def complex128_conj_ufunc(jit, cupy):
    @jit.rawkernel()
    def corr(a, b, out):
        i = jit.grid(1)
        if i < out.size:
            out[i] = a[i] * cupy.conj(b[i])

    def inputs(rng):
        n = 300
        a = rng.standard_normal(n) + 1j * rng.standard_normal(n)
        b = rng.standard_normal(n) + 1j * rng.standard_normal(n)
        return dict(a=a, b=b, out=numpy.zeros(n, numpy.complex128))

    def run(xp, d):
        corr[3, 128](d["a"], d["b"], d["out"])
        return {"out": d["out"]}

    return Case(inputs, run, lambda h: {"out": h["a"] * numpy.conj(h["b"])}, rtol=1e-12)


@case
def cupy_ufuncs_in_kernel(jit, cupy):
    @jit.rawkernel()
    def softplus_like(x, y, n):
        i = jit.grid(1)
        if i < n:
            v = x[i]
            y[i] = cupy.log1p(cupy.exp(-cupy.abs(v))) + cupy.maximum(v, 0.0)

    def inputs(rng):
        n = 1024
        return dict(x=rng.uniform(-5, 5, n), y=numpy.full(n, numpy.nan))

    def run(xp, d):
        softplus_like[4, 256](d["x"], d["y"], 1024)
        return {"y": d["y"]}

    def ref(h):
        x = h["x"]
        return {"y": numpy.log1p(numpy.exp(-numpy.abs(x))) + numpy.maximum(x, 0.0)}

    return Case(inputs, run, ref, rtol=1e-12)


@case
def exp_sqrt_float32(jit, cupy):
    @jit.rawkernel()
    def gauss(x, y, mu, sigma):
        i = jit.grid(1)
        if i < x.size:
            z = (x[i] - mu) / sigma
            y[i] = cupy.exp(-0.5 * z * z) / (sigma * math.sqrt(2.0 * math.pi))

    def inputs(rng):
        n = 900
        return dict(x=rng.uniform(-3, 3, n).astype(numpy.float32),
                    y=numpy.full(n, numpy.nan, numpy.float32),
                    mu=numpy.float32(0.25), sigma=numpy.float32(1.5))

    def run(xp, d):
        gauss[blocks_for(900, 128), 128](d["x"], d["y"], d["mu"], d["sigma"])
        return {"y": d["y"]}

    def ref(h):
        z = (h["x"].astype(numpy.float64) - 0.25) / 1.5
        return {"y": numpy.exp(-0.5 * z * z) / (1.5 * math.sqrt(2 * math.pi))}

    return Case(inputs, run, ref, rtol=1e-5, atol=1e-7)


@case
def module_constants_and_pi(jit, cupy):
    @jit.rawkernel()
    def polar_area(r, out):
        i = jit.grid(1)
        if i < r.size:
            out[i] = cupy.pi * r[i] * r[i] * SCALE + numpy.e + EPS

    def inputs(rng):
        n = 400
        return dict(r=rng.uniform(0.1, 3.0, n), out=numpy.full(n, numpy.nan))

    def run(xp, d):
        polar_area[4, 128](d["r"], d["out"])
        return {"out": d["out"]}

    return Case(inputs, run,
                lambda h: {"out": numpy.pi * h["r"] * h["r"] * SCALE + numpy.e + EPS}, rtol=1e-12)


@case
def fill_inf_nan_dtype_type(jit, cupy):
    dt = numpy.dtype(numpy.float32)

    @jit.rawkernel()
    def mark(x, flags):
        i = jit.grid(1)
        if i < x.size:
            if flags[i] == 1:
                x[i] = cupy.dtype(dt).type(cupy.inf)
            elif flags[i] == 2:
                x[i] = dt.type(-cupy.inf)
            elif flags[i] == 3:
                x[i] = numpy.float32(cupy.nan)

    def inputs(rng):
        n = 500
        return dict(x=rng.standard_normal(n).astype(numpy.float32),
                    flags=rng.integers(0, 4, n).astype(numpy.int8))

    def run(xp, d):
        mark[4, 128](d["x"], d["flags"])
        return {"x": d["x"]}

    def ref(h):
        x = h["x"].copy()
        f = h["flags"]
        x[f == 1] = numpy.inf
        x[f == 2] = -numpy.inf
        x[f == 3] = numpy.nan
        return {"x": x}

    return Case(inputs, run, ref)


@case
def numpy_scalar_arguments(jit, cupy):
    @jit.rawkernel()
    def clamp(x, out, lo, hi, offset):
        i = jit.grid(1)
        if i < x.size:
            v = x[i] + offset
            if v < lo:
                v = lo
            if v > hi:
                v = hi
            out[i] = v

    def inputs(rng):
        n = 1000
        return dict(x=rng.integers(-1000, 1000, n).astype(numpy.int32),
                    out=numpy.zeros(n, numpy.int32), lo=numpy.int32(-300),
                    hi=numpy.int32(450), offset=numpy.int32(17))

    def run(xp, d):
        clamp[8, 128](d["x"], d["out"], d["lo"], d["hi"], d["offset"])
        return {"out": d["out"]}

    return Case(inputs, run, lambda h: {"out": numpy.clip(h["x"] + 17, -300, 450)})


@case
def cupy_namespace_scalar_args(jit, cupy):
    @jit.rawkernel()
    def weighted(x, w, out, bias, count):
        i = jit.grid(1)
        if i < count:
            out[i] = x[i] * w + bias

    def inputs(rng):
        n = 333
        return dict(x=rng.standard_normal(n).astype(numpy.float32),
                    out=numpy.full(n, numpy.nan, numpy.float32))

    def run(xp, d):
        weighted[3, 128](d["x"], cupy.float32(1.75), d["out"], cupy.float32(-0.5),
                         cupy.uint32(333))
        return {"out": d["out"]}

    return Case(inputs, run,
                lambda h: {"out": h["x"] * numpy.float32(1.75) - numpy.float32(0.5)},
                rtol=1e-6, atol=1e-6)     # an fma on the GPU, two roundings in NumPy


@case
def python_int_div_mod(jit, cupy):
    @jit.rawkernel()
    def divmod_kernel(a, q, r, d, n):
        i = jit.grid(1)
        if i < n:
            q[i] = a[i] // d
            r[i] = a[i] % d

    def inputs(rng):
        n = 700
        return dict(a=rng.integers(-10000, 10000, n).astype(numpy.int64),
                    q=numpy.zeros(n, numpy.int64), r=numpy.zeros(n, numpy.int64))

    def run(xp, d):
        divmod_kernel[6, 128](d["a"], d["q"], d["r"], -7, 700)
        return {"q": d["q"], "r": d["r"]}

    return Case(inputs, run, lambda h: {"q": h["a"] // -7, "r": h["a"] % -7})


@case
def mixed_int_float_arith(jit, cupy):
    @jit.rawkernel()
    def mean3(a, b, c, out):
        i = jit.grid(1)
        if i < out.size:
            out[i] = (a[i] + b[i] + c[i]) / 3 + i % 4

    def inputs(rng):
        n = 512
        return dict(a=rng.integers(0, 100, n).astype(numpy.int32),
                    b=rng.integers(0, 100, n).astype(numpy.int16),
                    c=rng.uniform(0, 1, n), out=numpy.full(n, numpy.nan))

    def run(xp, d):
        mean3[2, 256](d["a"], d["b"], d["c"], d["out"])
        return {"out": d["out"]}

    def ref(h):
        i = numpy.arange(512)
        return {"out": (h["a"] + h["b"].astype(numpy.int64) + h["c"]) / 3 + i % 4}

    return Case(inputs, run, ref, rtol=1e-12)


@case
def early_return_bounds(jit, cupy):
    @jit.rawkernel()
    def square_diff(x, y, out, n):
        i = jit.grid(1)
        if i >= n:
            return
        d = x[i] - y[i]
        out[i] = d * d

    def inputs(rng):
        n = 999
        return dict(x=rng.standard_normal(n), y=rng.standard_normal(n),
                    out=numpy.full(n + 5, -1.0))

    def run(xp, d):
        square_diff[4, 256](d["x"], d["y"], d["out"], 999)
        return {"out": d["out"]}

    def ref(h):
        out = numpy.full(1004, -1.0)
        out[:999] = (h["x"] - h["y"]) ** 2
        return {"out": out}

    return Case(inputs, run, ref, rtol=1e-12)


@case
def builtin_min_max(jit, cupy):
    @jit.rawkernel()
    def spread(x, y, z, out):
        i = jit.blockDim.x * jit.blockIdx.x + jit.threadIdx.x
        if i < out.size:
            out[i] = max(x[i], y[i], z[i]) - min(x[i], y[i], z[i]) + cupy.abs(x[i] - z[i])

    def inputs(rng):
        n = 1024
        return dict(x=rng.integers(-50, 50, n).astype(numpy.int32),
                    y=rng.integers(-50, 50, n).astype(numpy.int32),
                    z=rng.integers(-50, 50, n).astype(numpy.int32),
                    out=numpy.zeros(n, numpy.int32))

    def run(xp, d):
        spread((8,), (128,), (d["x"], d["y"], d["z"], d["out"]))
        return {"out": d["out"]}

    def ref(h):
        x, y, z = h["x"], h["y"], h["z"]
        return {"out": numpy.maximum(numpy.maximum(x, y), z) - numpy.minimum(numpy.minimum(x, y), z)
                + numpy.abs(x - z)}

    return Case(inputs, run, ref)


@case
def while_loop_collatz(jit, cupy):
    @jit.rawkernel()
    def collatz_steps(start, steps, n):
        i = jit.grid(1)
        if i < n:
            v = start[i]
            count = 0
            while v != 1:
                if v % 2 == 0:
                    v = v // 2
                else:
                    v = 3 * v + 1
                count += 1
                if count > 1000:
                    break
            steps[i] = count

    def inputs(rng):
        n = 256
        return dict(start=rng.integers(1, 5000, n).astype(numpy.int64),
                    steps=numpy.full(n, -1, numpy.int64))

    def run(xp, d):
        collatz_steps[2, 128](d["start"], d["steps"], 256)
        return {"steps": d["steps"]}

    def ref(h):
        out = []
        for v in h["start"].tolist():
            c = 0
            while v != 1 and c <= 1000:
                v = v // 2 if v % 2 == 0 else 3 * v + 1
                c += 1
            out.append(c)
        return {"steps": numpy.array(out, numpy.int64)}

    return Case(inputs, run, ref)


@case
def bool_mask_threshold(jit, cupy):
    @jit.rawkernel()
    def threshold(x, mask, keep, t):
        i = jit.grid(1)
        if i < x.size:
            m = x[i] > t
            mask[i] = m
            if m and keep[i]:
                x[i] = t

    def inputs(rng):
        n = 800
        return dict(x=rng.standard_normal(n), mask=numpy.zeros(n, numpy.bool_),
                    keep=rng.integers(0, 2, n).astype(numpy.bool_), t=0.3)

    def run(xp, d):
        threshold[4, 256](d["x"], d["mask"], d["keep"], d["t"])
        return {"x": d["x"], "mask": d["mask"]}

    def ref(h):
        x = h["x"].copy()
        m = x > 0.3
        x[m & h["keep"]] = 0.3
        return {"x": x, "mask": m}

    return Case(inputs, run, ref)


@case
def unrolled_poly_horner(jit, cupy):
    @jit.rawkernel()
    def horner(x, coeffs, y):
        i = jit.grid(1)
        if i < x.size:
            acc = 0.0
            v = x[i]
            for k in jit.range(6, unroll=True):
                acc = acc * v + coeffs[5 - k]
            y[i] = acc

    def inputs(rng):
        n = 640
        return dict(x=rng.uniform(-2, 2, n), c=rng.uniform(-1, 1, 6), y=numpy.full(n, numpy.nan))

    def run(xp, d):
        horner[5, 128](d["x"], d["c"], d["y"])
        return {"y": d["y"]}

    def ref(h):
        return {"y": numpy.polyval(h["c"][::-1], h["x"])}

    return Case(inputs, run, ref, rtol=1e-12, atol=1e-12)


@case
def gridsize_2d_loops(jit, cupy):
    @jit.rawkernel()
    def outer_add(u, v, out, rows, cols):
        x0, y0 = jit.grid(2)
        sx, sy = jit.gridsize(2)
        for r in range(x0, rows, sx):
            for c in range(y0, cols, sy):
                out[r, c] = u[r] + v[c]

    def inputs(rng):
        return dict(u=rng.standard_normal(70).astype(numpy.float32),
                    v=rng.standard_normal(90).astype(numpy.float32),
                    out=numpy.full((70, 90), numpy.nan, numpy.float32))

    def run(xp, d):
        outer_add[(2, 2), (8, 8)](d["u"], d["v"], d["out"], 70, 90)
        return {"out": d["out"]}

    return Case(inputs, run, lambda h: {"out": h["u"][:, None] + h["v"][None, :]}, rtol=1e-6)


@case
def rgb_to_gray_3d(jit, cupy):
    @jit.rawkernel()
    def gray(img, out, h, w):
        y, x = jit.grid(2)
        if y < h and x < w:
            r = cupy.float32(img[y, x, 0])
            g = cupy.float32(img[y, x, 1])
            b = cupy.float32(img[y, x, 2])
            out[y, x] = 0.299 * r + 0.587 * g + 0.114 * b

    def inputs(rng):
        return dict(img=rng.integers(0, 256, (30, 45, 3)).astype(numpy.uint8),
                    out=numpy.full((30, 45), numpy.nan, numpy.float32))

    def run(xp, d):
        gray[(4, 6), (8, 8)](d["img"], d["out"], 30, 45)
        return {"out": d["out"]}

    def ref(h):
        f = h["img"].astype(numpy.float64)
        return {"out": 0.299 * f[..., 0] + 0.587 * f[..., 1] + 0.114 * f[..., 2]}

    return Case(inputs, run, ref, rtol=1e-5)


@case
def zero_d_arrays(jit, cupy):
    @jit.rawkernel()
    def scale_by_0d(x, s, out, last):
        i = jit.grid(1)
        if i < x.size:
            out[i] = x[i] * s[()]
        if i == x.size - 1:
            last[()] = x[i]

    def inputs(rng):
        n = 300
        return dict(x=rng.standard_normal(n), s=numpy.array(rng.uniform(1, 2)),
                    out=numpy.full(n, numpy.nan), last=numpy.array(0.0))

    def run(xp, d):
        scale_by_0d[3, 128](d["x"], d["s"], d["out"], d["last"])
        return {"out": d["out"], "last": d["last"]}

    return Case(inputs, run, lambda h: {"out": h["x"] * h["s"], "last": numpy.array(h["x"][-1])},
                rtol=1e-12)


# ------------------------------------------------------------ device functions

@case
def device_function_helpers(jit, cupy):
    @jit.rawkernel(device=True)
    def lerp(a, b, t):
        return a + (b - a) * t

    @jit.rawkernel(device=True)
    def smoothstep(t):
        if t < 0.0:
            return 0.0
        if t > 1.0:
            return 1.0
        return t * t * (3.0 - 2.0 * t)

    @jit.rawkernel()
    def blend(a, b, t, out):
        i = jit.grid(1)
        if i < out.size:
            out[i] = lerp(a[i], b[i], smoothstep(t[i]))

    def inputs(rng):
        n = 500
        return dict(a=rng.standard_normal(n), b=rng.standard_normal(n),
                    t=rng.uniform(-0.5, 1.5, n), out=numpy.full(n, numpy.nan))

    def run(xp, d):
        blend[4, 128](d["a"], d["b"], d["t"], d["out"])
        return {"out": d["out"]}

    def ref(h):
        t = numpy.clip(h["t"], 0, 1)
        s = t * t * (3 - 2 * t)
        return {"out": h["a"] + (h["b"] - h["a"]) * s}

    return Case(inputs, run, ref, rtol=1e-12, atol=1e-14)


@case
def device_function_factory(jit, cupy):
    def make_affine(mul, add):
        @jit.rawkernel(device=True)
        def affine(v):
            return v * mul + add
        return affine

    double_plus_one = make_affine(2, 1)
    negate = make_affine(-1, 0)

    @jit.rawkernel()
    def apply_both(x, y, z):
        tid = jit.threadIdx.x + jit.blockIdx.x * jit.blockDim.x
        if tid < x.size:
            y[tid] = double_plus_one(x[tid])
            z[tid] = negate(x[tid]) + make_affine(3, 7)(x[tid])

    def inputs(rng):
        n = 256
        return dict(x=rng.integers(-1000, 1000, n).astype(numpy.int32),
                    y=numpy.zeros(n, numpy.int32), z=numpy.zeros(n, numpy.int32))

    def run(xp, d):
        apply_both[2, 128](d["x"], d["y"], d["z"])
        return {"y": d["y"], "z": d["z"]}

    return Case(inputs, run, lambda h: {"y": h["x"] * 2 + 1, "z": -h["x"] + h["x"] * 3 + 7})


@case
def device_function_tuple_return(jit, cupy):
    @jit.rawkernel(device=True)
    def to_polar(x, y):
        return cupy.sqrt(x * x + y * y), cupy.arctan2(y, x)

    @jit.rawkernel()
    def polar(xs, ys, rs, ts):
        i = jit.grid(1)
        if i < xs.size:
            r, t = to_polar(xs[i], ys[i])
            rs[i] = r
            ts[i] = t

    def inputs(rng):
        n = 400
        return dict(xs=rng.standard_normal(n), ys=rng.standard_normal(n),
                    rs=numpy.full(n, numpy.nan), ts=numpy.full(n, numpy.nan))

    def run(xp, d):
        polar[4, 128](d["xs"], d["ys"], d["rs"], d["ts"])
        return {"rs": d["rs"], "ts": d["ts"]}

    return Case(inputs, run, lambda h: {"rs": numpy.hypot(h["xs"], h["ys"]),
                                        "ts": numpy.arctan2(h["ys"], h["xs"])}, rtol=1e-12)


@case
def device_function_writes_array(jit, cupy):
    @jit.rawkernel(device=True)
    def bump(arr, idx, amount):
        arr[idx] += amount
        return arr[idx]

    @jit.rawkernel()
    def bump_all(a, seen, amount):
        i = jit.grid(1)
        if i < a.size:
            seen[i] = bump(a, i, amount) * 2

    def inputs(rng):
        n = 200
        return dict(a=rng.integers(0, 100, n).astype(numpy.int64),
                    seen=numpy.zeros(n, numpy.int64))

    def run(xp, d):
        bump_all[2, 128](d["a"], d["seen"], 5)
        return {"a": d["a"], "seen": d["seen"]}

    return Case(inputs, run, lambda h: {"a": h["a"] + 5, "seen": (h["a"] + 5) * 2})


@case
def recursive_factory_tree_sum(jit, cupy):
    def halve(step):
        @jit.rawkernel(device=True)
        def stage(buf):
            if step >= 1:
                tid = jit.threadIdx.x
                if tid < step:
                    buf[tid] += buf[tid + step]
                jit.syncthreads()
                halve(step // 2)(buf)
        return stage

    @jit.rawkernel()
    def block_total(x, out):
        tid = jit.threadIdx.x
        buf = jit.shared_memory(numpy.int64, 256)
        buf[tid] = x[jit.blockIdx.x * 256 + tid]
        jit.syncthreads()
        halve(128)(buf)
        if tid == 0:
            out[jit.blockIdx.x] = buf[0]

    def inputs(rng):
        return dict(x=rng.integers(-1000, 1000, 4 * 256).astype(numpy.int64),
                    out=numpy.zeros(4, numpy.int64))

    def run(xp, d):
        block_total[4, 256](d["x"], d["out"])
        return {"out": d["out"]}

    return Case(inputs, run, lambda h: {"out": h["x"].reshape(4, 256).sum(axis=1)})


# --------------------------------------------------- reductions and atomics

@case
def block_sum_shared_atomic(jit, cupy):
    @jit.rawkernel()
    def total(x, out, n):
        cache = jit.shared_memory(cupy.float32, BLOCK)
        tid = jit.threadIdx.x
        i = jit.blockIdx.x * jit.blockDim.x + tid
        stride = jit.gridDim.x * jit.blockDim.x
        acc = cupy.float32(0)
        while i < n:
            acc += x[i]
            i += stride
        cache[tid] = acc
        jit.syncthreads()
        s = BLOCK // 2
        while s > 0:
            if tid < s:
                cache[tid] += cache[tid + s]
            jit.syncthreads()
            s //= 2
        if tid == 0:
            jit.atomic_add(out, 0, cache[0])

    def inputs(rng):
        n = 10000
        return dict(x=rng.uniform(0, 1, n).astype(numpy.float32),
                    out=numpy.zeros(1, numpy.float32), n=n)

    def run(xp, d):
        total[16, BLOCK](d["x"], d["out"], d["n"])
        return {"out": d["out"]}

    return Case(inputs, run, lambda h: {"out": numpy.array([h["x"].sum(dtype=numpy.float64)])},
                rtol=1e-4)


@case
def dot_dynamic_shared(jit, cupy):
    @jit.rawkernel()
    def dot(a, b, out, n):
        partial = jit.shared_memory(cupy.float64, None)
        tid = jit.threadIdx.x
        i = jit.grid(1)
        v = 0.0
        if i < n:
            v = a[i] * b[i]
        partial[tid] = v
        jit.syncthreads()
        if tid == 0:
            s = 0.0
            for k in range(jit.blockDim.x):
                s += partial[k]
            jit.atomic_add(out, 0, s)

    def inputs(rng):
        n = 3000
        return dict(a=rng.standard_normal(n), b=rng.standard_normal(n),
                    out=numpy.zeros(1))

    def run(xp, d):
        threads = 64
        dot((blocks_for(3000, threads),), (threads,), (d["a"], d["b"], d["out"], 3000),
            shared_mem=threads * 8)
        return {"out": d["out"]}

    return Case(inputs, run, lambda h: {"out": numpy.array([h["a"] @ h["b"]])}, rtol=1e-9)


@case
def histogram_global_atomic(jit, cupy):
    @jit.rawkernel()
    def hist(data, bins, lo, width, n):
        i = jit.grid(1)
        if i < n:
            b = int((data[i] - lo) / width)
            if b >= NBINS:
                b = NBINS - 1
            if b < 0:
                b = 0
            jit.atomic_add(bins, b, 1)

    def inputs(rng):
        n = 20000
        return dict(data=rng.uniform(0, 10, n).astype(numpy.float32),
                    bins=numpy.zeros(NBINS, numpy.int32))

    def run(xp, d):
        hist[blocks_for(20000, 256), 256](d["data"], d["bins"], numpy.float32(0.0),
                                          numpy.float32(10.0 / NBINS), 20000)
        return {"bins": d["bins"]}

    def ref(h):
        x = h["data"]
        b = ((x - numpy.float32(0)) / numpy.float32(10.0 / NBINS)).astype(numpy.int64)
        b = numpy.clip(b, 0, NBINS - 1)
        return {"bins": numpy.bincount(b, minlength=NBINS).astype(numpy.int32)}

    return Case(inputs, run, ref)


@case
def histogram_shared_privatized(jit, cupy):
    @jit.rawkernel()
    def hist_smem(data, bins, n):
        local = jit.shared_memory(numpy.uint32, 256)
        t = jit.threadIdx.x
        local[t] = 0
        jit.syncthreads()
        i = jit.grid(1)
        step = jit.gridsize(1)
        while i < n:
            jit.atomic_add(local, data[i], 1)
            i += step
        jit.syncthreads()
        jit.atomic_add(bins, t, local[t])

    def inputs(rng):
        n = 50000
        return dict(data=rng.integers(0, 256, n).astype(numpy.uint8),
                    bins=numpy.zeros(256, numpy.uint32))

    def run(xp, d):
        hist_smem[8, 256](d["data"], d["bins"], 50000)
        return {"bins": d["bins"]}

    return Case(inputs, run,
                lambda h: {"bins": numpy.bincount(h["data"], minlength=256).astype(numpy.uint32)})


@case
def atomic_min_max_counter(jit, cupy):
    @jit.rawkernel()
    def stats(x, lo, hi, count, limit):
        i = jit.grid(1)
        if i < x.size:
            v = x[i]
            jit.atomic_min(lo, 0, v)
            jit.atomic_max(hi, 0, v)
            if v > limit:
                jit.atomic_inc(count, 0, numpy.uint32(0xffffffff))

    def inputs(rng):
        n = 4000
        return dict(x=rng.integers(-100000, 100000, n).astype(numpy.int32),
                    lo=numpy.array([2 ** 31 - 1], numpy.int32),
                    hi=numpy.array([-2 ** 31], numpy.int32),
                    count=numpy.zeros(1, numpy.uint32))

    def run(xp, d):
        stats[16, 256](d["x"], d["lo"], d["hi"], d["count"], 5000)
        return {"lo": d["lo"], "hi": d["hi"], "count": d["count"]}

    return Case(inputs, run, lambda h: {"lo": h["x"].min(keepdims=True),
                                        "hi": h["x"].max(keepdims=True),
                                        "count": numpy.array([(h["x"] > 5000).sum()],
                                                             numpy.uint32)})


@case
def stream_compaction(jit, cupy):
    @jit.rawkernel()
    def compact(x, out, counter, cut):
        i = jit.grid(1)
        if i < x.size:
            if x[i] > cut:
                slot = jit.atomic_add(counter, 0, 1)
                out[slot] = x[i]

    def inputs(rng):
        n = 3000
        return dict(x=rng.standard_normal(n), out=numpy.full(n, numpy.inf),
                    counter=numpy.zeros(1, numpy.int32))

    def run(xp, d):
        compact[blocks_for(3000, 128), 128](d["x"], d["out"], d["counter"], 0.5)
        return {"out": d["out"], "counter": d["counter"]}

    def ref(h):
        keep = numpy.sort(h["x"][h["x"] > 0.5])
        out = numpy.full(3000, numpy.inf)
        out[:keep.size] = keep
        return {"out": out, "counter": numpy.array([keep.size], numpy.int32)}

    return Case(inputs, run, ref, canon={"out": numpy.sort})


@case
def atomic_cas_first_writer(jit, cupy):
    @jit.rawkernel()
    def claim(keys, owner, nslots):
        i = jit.grid(1)
        if i < keys.size:
            slot = keys[i] % nslots
            jit.atomic_cas(owner, slot, -1, i)

    def inputs(rng):
        n = 2000
        return dict(keys=rng.integers(0, 1 << 20, n).astype(numpy.int32),
                    owner=numpy.full(97, -1, numpy.int32))

    def run(xp, d):
        claim[8, 256](d["keys"], d["owner"], 97)
        return {"owner": d["owner"]}

    def claimed(owner):
        return owner >= 0        # which thread wins is open; that a slot is taken is not

    def ref(h):
        out = numpy.full(97, -1, numpy.int32)
        out[numpy.unique(h["keys"] % 97)] = 0
        return {"owner": out}

    return Case(inputs, run, ref, canon={"owner": claimed})


# ------------------------------------------------------------- scans, warps

@case
def block_scan_hillis_steele(jit, cupy):
    @jit.rawkernel()
    def scan(x, y):
        buf = jit.shared_memory(numpy.int32, 2 * BLOCK)
        tid = jit.threadIdx.x
        base = jit.blockIdx.x * BLOCK
        src = 0
        buf[tid] = x[base + tid]
        jit.syncthreads()
        offset = 1
        while offset < BLOCK:
            dst = 1 - src
            v = buf[src * BLOCK + tid]
            if tid >= offset:
                v += buf[src * BLOCK + tid - offset]
            buf[dst * BLOCK + tid] = v
            jit.syncthreads()
            src = dst
            offset *= 2
        y[base + tid] = buf[src * BLOCK + tid]

    def inputs(rng):
        return dict(x=rng.integers(-50, 50, 4 * BLOCK).astype(numpy.int32),
                    y=numpy.zeros(4 * BLOCK, numpy.int32))

    def run(xp, d):
        scan[4, BLOCK](d["x"], d["y"])
        return {"y": d["y"]}

    return Case(inputs, run,
                lambda h: {"y": numpy.cumsum(h["x"].reshape(4, BLOCK), axis=1,
                                             dtype=numpy.int32).ravel()})


@case
def warp_reduce_shfl_down(jit, cupy):
    @jit.rawkernel()
    def warp_sums(x, out):
        i = jit.grid(1)
        v = x[i]
        offset = 16
        while offset > 0:
            v += jit.shfl_down_sync(FULL_MASK, v, offset)
            offset //= 2
        if jit.laneid() == 0:
            out[i // jit.warpsize] = v

    def inputs(rng):
        return dict(x=rng.uniform(-1, 1, 512).astype(numpy.float32),
                    out=numpy.full(16, numpy.nan, numpy.float32))

    def run(xp, d):
        warp_sums[4, 128](d["x"], d["out"])
        return {"out": d["out"]}

    return Case(inputs, run, lambda h: {"out": h["x"].reshape(16, 32).sum(axis=1)},
                rtol=1e-5, atol=1e-5)


@case
def warp_butterfly_xor(jit, cupy):
    @jit.rawkernel()
    def allreduce_max(x, out):
        i = jit.grid(1)
        v = x[i]
        for k in range(5):
            other = jit.shfl_xor_sync(FULL_MASK, v, 1 << k)
            if other > v:
                v = other
        out[i] = v

    def inputs(rng):
        return dict(x=rng.integers(-10 ** 6, 10 ** 6, 256).astype(numpy.int64),
                    out=numpy.zeros(256, numpy.int64))

    def run(xp, d):
        allreduce_max[2, 128](d["x"], d["out"])
        return {"out": d["out"]}

    return Case(inputs, run,
                lambda h: {"out": numpy.repeat(h["x"].reshape(8, 32).max(axis=1), 32)})


@case
def warp_scan_shfl_up_broadcast(jit, cupy):
    @jit.rawkernel()
    def warp_scan(x, incl, first):
        i = jit.grid(1)
        lane = jit.threadIdx.x % 32
        v = x[i]
        d = 1
        while d < 32:
            up = jit.shfl_up_sync(FULL_MASK, v, d)
            if lane >= d:
                v += up
            d *= 2
        incl[i] = v
        first[i] = jit.shfl_sync(FULL_MASK, x[i], 0)

    def inputs(rng):
        return dict(x=rng.integers(-100, 100, 192).astype(numpy.int32),
                    incl=numpy.zeros(192, numpy.int32), first=numpy.zeros(192, numpy.int32))

    def run(xp, d):
        warp_scan[3, 64](d["x"], d["incl"], d["first"])
        return {"incl": d["incl"], "first": d["first"]}

    def ref(h):
        w = h["x"].reshape(6, 32)
        return {"incl": numpy.cumsum(w, axis=1, dtype=numpy.int32).ravel(),
                "first": numpy.repeat(w[:, 0], 32)}

    return Case(inputs, run, ref)


@case
def syncwarp_shared_reduce(jit, cupy):
    @jit.rawkernel()
    def tile_sum(x, out):
        s = jit.shared_memory(numpy.float64, 32)
        lane = jit.threadIdx.x
        s[lane] = x[jit.blockIdx.x * 32 + lane]
        jit.syncwarp()
        width = 16
        while width > 0:
            if lane < width:
                s[lane] += s[lane + width]
            jit.syncwarp()
            width //= 2
        if lane == 0:
            out[jit.blockIdx.x] = s[0]

    def inputs(rng):
        return dict(x=rng.standard_normal(32 * 10), out=numpy.full(10, numpy.nan))

    def run(xp, d):
        tile_sum[10, 32](d["x"], d["out"])
        return {"out": d["out"]}

    return Case(inputs, run, lambda h: {"out": h["x"].reshape(10, 32).sum(axis=1)}, rtol=1e-12,
                atol=1e-12)


@case
def cub_block_reduce_sum(jit, cupy):
    @jit.rawkernel()
    def block_sum(x, out):
        BlockReduce = jit.cub.BlockReduce[numpy.float32, BLOCK]
        temp = jit.shared_memory(BlockReduce.TempStorage, 1)
        i = jit.grid(1)
        v = x[i]
        total = BlockReduce(temp[0]).Sum(v)
        if jit.threadIdx.x == 0:
            out[jit.blockIdx.x] = total

    def inputs(rng):
        return dict(x=rng.uniform(-1, 1, 6 * BLOCK).astype(numpy.float32),
                    out=numpy.full(6, numpy.nan, numpy.float32))

    def run(xp, d):
        block_sum[6, BLOCK](d["x"], d["out"])
        return {"out": d["out"]}

    return Case(inputs, run, lambda h: {"out": h["x"].reshape(6, BLOCK).sum(axis=1)},
                rtol=1e-5, atol=1e-5)


@case
def cub_warp_reduce_max(jit, cupy):
    @jit.rawkernel()
    def warp_max(x, out):
        WarpReduce = jit.cub.WarpReduce[numpy.int32]
        temp = jit.shared_memory(WarpReduce.TempStorage, 4)
        warp = jit.threadIdx.x // 32
        v = x[jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x]
        best = WarpReduce(temp[warp]).Reduce(v, jit.cub.Max())
        if jit.laneid() == 0:
            out[jit.blockIdx.x * 4 + warp] = best

    def inputs(rng):
        return dict(x=rng.integers(-10 ** 6, 10 ** 6, 2 * 128).astype(numpy.int32),
                    out=numpy.zeros(8, numpy.int32))

    def run(xp, d):
        warp_max[2, 128](d["x"], d["out"])
        return {"out": d["out"]}

    return Case(inputs, run, lambda h: {"out": h["x"].reshape(8, 32).max(axis=1)})


@case
def cg_thread_block_reduce(jit, cupy):
    @jit.rawkernel()
    def block_max(x, out):
        block = jit.cg.this_thread_block()
        buf = jit.shared_memory(numpy.float32, 64)
        r = block.thread_rank()
        buf[r] = x[jit.blockIdx.x * 64 + r]
        block.sync()
        half = 32
        while half > 0:
            if r < half:
                if buf[r + half] > buf[r]:
                    buf[r] = buf[r + half]
            jit.cg.sync(block)
            half //= 2
        if r == 0:
            out[jit.blockIdx.x] = buf[0]
            out[jit.blockIdx.x + 5] = block.size()

    def inputs(rng):
        return dict(x=rng.standard_normal(5 * 64).astype(numpy.float32),
                    out=numpy.full(10, numpy.nan, numpy.float32))

    def run(xp, d):
        block_max[5, 64](d["x"], d["out"])
        return {"out": d["out"]}

    def ref(h):
        return {"out": numpy.concatenate([h["x"].reshape(5, 64).max(axis=1),
                                          numpy.full(5, 64, numpy.float32)])}

    return Case(inputs, run, ref)


@case
def cg_grid_sync_two_phase(jit, cupy):
    @jit.rawkernel()
    def normalize(x, partial, out, n):
        g = jit.cg.this_grid()
        i = jit.grid(1)
        if jit.threadIdx.x == 0:
            s = 0.0
            start = jit.blockIdx.x * jit.blockDim.x
            for k in range(start, min(start + jit.blockDim.x, n)):
                s += x[k]
            partial[jit.blockIdx.x] = s
        g.sync()
        total = 0.0
        for b in range(jit.gridDim.x):
            total += partial[b]
        if i < n:
            out[i] = x[i] / total

    def inputs(rng):
        n = 1000
        return dict(x=rng.uniform(0.5, 1.5, n), partial=numpy.zeros(8),
                    out=numpy.full(n, numpy.nan))

    def run(xp, d):
        normalize[8, 128](d["x"], d["partial"], d["out"], 1000)
        return {"out": d["out"]}

    return Case(inputs, run, lambda h: {"out": h["x"] / h["x"].sum()}, rtol=1e-12,
                cooperative=True)


# ------------------------------------------------------------ stencils, matmul

@case
def stencil_2d_laplacian(jit, cupy):
    @jit.rawkernel()
    def laplace(u, out, h, w):
        i, j = jit.grid(2)
        if i < h and j < w:
            if i == 0 or j == 0 or i == h - 1 or j == w - 1:
                out[i, j] = u[i, j]
            else:
                out[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])

    def inputs(rng):
        return dict(u=rng.standard_normal((40, 50)), out=numpy.full((40, 50), numpy.nan))

    def run(xp, d):
        laplace[(3, 4), (16, 16)](d["u"], d["out"], 40, 50)
        return {"out": d["out"]}

    def ref(h):
        u = h["u"]
        out = u.copy()
        out[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        return {"out": out}

    return Case(inputs, run, ref, rtol=1e-12, atol=1e-14)


@case
def stencil_3d_seven_point(jit, cupy):
    @jit.rawkernel()
    def diffuse(u, out, nz, ny, nx, alpha):
        x = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x
        y = jit.blockIdx.y * jit.blockDim.y + jit.threadIdx.y
        z = jit.blockIdx.z * jit.blockDim.z + jit.threadIdx.z
        if x >= 1 and y >= 1 and z >= 1:
            if x < nx - 1 and y < ny - 1 and z < nz - 1:
                c = u[z, y, x]
                lap = (u[z - 1, y, x] + u[z + 1, y, x] + u[z, y - 1, x] + u[z, y + 1, x]
                       + u[z, y, x - 1] + u[z, y, x + 1] - 6 * c)
                out[z, y, x] = c + alpha * lap

    def inputs(rng):
        u = rng.standard_normal((10, 12, 14)).astype(numpy.float32)
        return dict(u=u, out=u.copy())

    def run(xp, d):
        diffuse[(2, 2, 3), (8, 8, 4)](d["u"], d["out"], 10, 12, 14, numpy.float32(0.1))
        return {"out": d["out"]}

    def ref(h):
        u = h["u"]
        out = u.copy()
        c = u[1:-1, 1:-1, 1:-1]
        lap = (u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] + u[1:-1, :-2, 1:-1] + u[1:-1, 2:, 1:-1]
               + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:] - 6 * c)
        out[1:-1, 1:-1, 1:-1] = c + numpy.float32(0.1) * lap
        return {"out": out}

    return Case(inputs, run, ref, rtol=1e-5, atol=1e-5)


@case
def matmul_naive(jit, cupy):
    @jit.rawkernel()
    def matmul(a, b, c, m, n, k):
        row, col = jit.grid(2)
        if row < m and col < n:
            acc = 0.0
            for t in range(k):
                acc += a[row, t] * b[t, col]
            c[row, col] = acc

    def inputs(rng):
        return dict(a=rng.standard_normal((33, 20)), b=rng.standard_normal((20, 27)),
                    c=numpy.full((33, 27), numpy.nan))

    def run(xp, d):
        matmul[(3, 2), (16, 16)](d["a"], d["b"], d["c"], 33, 27, 20)
        return {"c": d["c"]}

    return Case(inputs, run, lambda h: {"c": h["a"] @ h["b"]}, rtol=1e-12, atol=1e-12)


@case
def matmul_tiled_shared(jit, cupy):
    @jit.rawkernel()
    def tiled(a, b, c, n):
        sa = jit.shared_memory(cupy.float32, TPB * TPB)
        sb = jit.shared_memory(cupy.float32, TPB * TPB)
        tx = jit.threadIdx.x
        ty = jit.threadIdx.y
        row = jit.blockIdx.y * TPB + ty
        col = jit.blockIdx.x * TPB + tx
        acc = cupy.float32(0.0)
        for tile in range((n + TPB - 1) // TPB):
            ka = tile * TPB + tx
            kb = tile * TPB + ty
            sa[ty * TPB + tx] = 0
            sb[ty * TPB + tx] = 0
            if row < n and ka < n:
                sa[ty * TPB + tx] = a[row, ka]
            if col < n and kb < n:
                sb[ty * TPB + tx] = b[kb, col]
            jit.syncthreads()
            for k in range(TPB):
                acc += sa[ty * TPB + k] * sb[k * TPB + tx]
            jit.syncthreads()
        if row < n and col < n:
            c[row, col] = acc

    def inputs(rng):
        n = 45
        return dict(a=rng.standard_normal((n, n)).astype(numpy.float32),
                    b=rng.standard_normal((n, n)).astype(numpy.float32),
                    c=numpy.full((n, n), numpy.nan, numpy.float32))

    def run(xp, d):
        g = blocks_for(45, TPB)
        tiled[(g, g), (TPB, TPB)](d["a"], d["b"], d["c"], 45)
        return {"c": d["c"]}

    return Case(inputs, run, lambda h: {"c": h["a"].astype(numpy.float64) @ h["b"]},
                rtol=1e-4, atol=1e-4)


# ------------------------------------------------------------ streams, thrust

@case
def two_kernels_on_a_stream(jit, cupy):
    @jit.rawkernel()
    def square(x, y):
        i = jit.grid(1)
        if i < x.size:
            y[i] = x[i] * x[i]

    @jit.rawkernel()
    def add_into(y, z):
        i = jit.grid(1)
        if i < y.size:
            z[i] += y[i]

    def inputs(rng):
        n = 2048
        return dict(x=rng.standard_normal(n).astype(numpy.float32),
                    y=numpy.zeros(n, numpy.float32),
                    z=rng.standard_normal(n).astype(numpy.float32))

    def run(xp, d):
        s = xp.Stream()
        square((8,), (256,), (d["x"], d["y"]), stream=s)
        add_into[8, 256](d["y"], d["z"], stream=s)
        s.synchronize()
        return {"y": d["y"], "z": d["z"]}

    return Case(inputs, run, lambda h: {"y": h["x"] * h["x"], "z": h["z"] + h["x"] * h["x"]},
                rtol=1e-6)


@case
def thrust_sort_rows(jit, cupy):
    @jit.rawkernel()
    def sort_rows(x):
        i = jit.threadIdx.x
        row = x[i]
        jit.thrust.sort(jit.thrust.seq, row.begin(), row.end())

    def inputs(rng):
        return dict(x=rng.integers(-1000, 1000, (32, 40)).astype(numpy.int32))

    def run(xp, d):
        sort_rows[1, 32](d["x"])
        return {"x": d["x"]}

    return Case(inputs, run, lambda h: {"x": numpy.sort(h["x"], axis=1)})


# ------------------------------------------------------- more user patterns

@case
def bitset_atomic_or(jit, cupy):
    @jit.rawkernel()
    def mark_bits(keys, bits, n):
        i = jit.grid(1)
        if i < n:
            k = keys[i]
            jit.atomic_or(bits, k // 32, numpy.uint32(1) << numpy.uint32(k % 32))

    def inputs(rng):
        n = 3000
        return dict(keys=rng.integers(0, 32 * 40, n).astype(numpy.uint32),
                    bits=numpy.zeros(40, numpy.uint32))

    def run(xp, d):
        mark_bits[blocks_for(3000, 256), 256](d["keys"], d["bits"], 3000)
        return {"bits": d["bits"]}

    def ref(h):
        bits = numpy.zeros(40, numpy.uint32)
        for k in numpy.unique(h["keys"]).tolist():
            bits[k // 32] |= numpy.uint32(1 << (k % 32))
        return {"bits": bits}

    return Case(inputs, run, ref)


@case
def transpose_shared_tile(jit, cupy):
    TILE = 16

    @jit.rawkernel()
    def transpose(src, dst, rows, cols):
        tile = jit.shared_memory(numpy.float32, TILE * (TILE + 1))
        tx = jit.threadIdx.x
        ty = jit.threadIdx.y
        c = jit.blockIdx.x * TILE + tx
        r = jit.blockIdx.y * TILE + ty
        if r < rows and c < cols:
            tile[ty * (TILE + 1) + tx] = src[r, c]
        jit.syncthreads()
        c2 = jit.blockIdx.y * TILE + tx
        r2 = jit.blockIdx.x * TILE + ty
        if r2 < cols and c2 < rows:
            dst[r2, c2] = tile[tx * (TILE + 1) + ty]

    def inputs(rng):
        return dict(a=rng.standard_normal((35, 50)).astype(numpy.float32),
                    out=numpy.full((50, 35), numpy.nan, numpy.float32))

    def run(xp, d):
        transpose[(blocks_for(50, TILE), blocks_for(35, TILE)), (TILE, TILE)](
            d["a"], d["out"], 35, 50)
        return {"out": d["out"]}

    return Case(inputs, run, lambda h: {"out": h["a"].T.copy()})


@case
def row_sums_len_idiom(jit, cupy):
    @jit.rawkernel()
    def row_sums(m, out):
        r = jit.grid(1)
        if r < len(m):
            ncol = m.size // len(m)
            s = 0
            for c in range(ncol):
                s += m[r, c]
            out[r] = s

    def inputs(rng):
        return dict(m=rng.integers(-100, 100, (77, 31)).astype(numpy.int32),
                    out=numpy.zeros(77, numpy.int64))

    def run(xp, d):
        row_sums[2, 64](d["m"], d["out"])
        return {"out": d["out"]}

    return Case(inputs, run, lambda h: {"out": h["m"].sum(axis=1, dtype=numpy.int64)})


@case
def fnv_hash_uint32(jit, cupy):
    @jit.rawkernel()
    def fnv1a(words, out, n):
        i = jit.grid(1)
        if i < n:
            h = numpy.uint32(2166136261)
            for k in range(4):
                byte = (words[i] >> numpy.uint32(8 * k)) & numpy.uint32(0xff)
                h = (h ^ byte) * numpy.uint32(16777619)
            out[i] = h

    def inputs(rng):
        n = 1000
        return dict(words=rng.integers(0, 2 ** 32, n, dtype=numpy.uint64).astype(numpy.uint32),
                    out=numpy.zeros(n, numpy.uint32))

    def run(xp, d):
        fnv1a[4, 256](d["words"], d["out"], 1000)
        return {"out": d["out"]}

    def ref(h):
        w = h["words"].astype(numpy.uint64)
        hs = numpy.full(w.size, 2166136261, numpy.uint64)
        for k in range(4):
            byte = (w >> numpy.uint64(8 * k)) & numpy.uint64(0xff)
            hs = ((hs ^ byte) * numpy.uint64(16777619)) & numpy.uint64(0xffffffff)
        return {"out": hs.astype(numpy.uint32)}

    return Case(inputs, run, ref)


@case
def int_bit_ops(jit, cupy):
    @jit.rawkernel()
    def bits(a, b, out):
        i = jit.grid(1)
        if i < a.size:
            x = a[i]
            y = b[i]
            out[i, 0] = (x << 3) ^ y
            out[i, 1] = (x >> 2) | (y & 0xff)
            out[i, 2] = ~x
            out[i, 3] = -x % 7

    def inputs(rng):
        n = 500
        return dict(a=rng.integers(-100000, 100000, n).astype(numpy.int32),
                    b=rng.integers(-100000, 100000, n).astype(numpy.int32),
                    out=numpy.zeros((n, 4), numpy.int32))

    def run(xp, d):
        bits[2, 256](d["a"], d["b"], d["out"])
        return {"out": d["out"]}

    def ref(h):
        a, b = h["a"], h["b"]
        return {"out": numpy.stack([(a << 3) ^ b, (a >> 2) | (b & 0xff), ~a, -a % 7],
                                   axis=1).astype(numpy.int32)}

    return Case(inputs, run, ref)


@case
def conditional_expression(jit, cupy):
    @jit.rawkernel()
    def leaky(x, y, slope):
        i = jit.grid(1)
        if i < x.size:
            v = x[i]
            y[i] = v if v > 0 else v * slope

    def inputs(rng):
        n = 600
        return dict(x=rng.standard_normal(n), y=numpy.full(n, numpy.nan))

    def run(xp, d):
        leaky[3, 256](d["x"], d["y"], 0.125)
        return {"y": d["y"]}

    return Case(inputs, run, lambda h: {"y": numpy.where(h["x"] > 0, h["x"], h["x"] * 0.125)},
                rtol=1e-15)


@case
def unroll_runtime_count(jit, cupy):
    @jit.rawkernel()
    def window_sum(x, out, width):
        i = jit.grid(1)
        if i < out.size:
            s = 0.0
            for k in jit.range(width, unroll=4):
                s += x[i + k]
            out[i] = s

    def inputs(rng):
        return dict(x=rng.standard_normal(520), out=numpy.full(500, numpy.nan))

    def run(xp, d):
        window_sum[2, 256](d["x"], d["out"], 21)
        return {"out": d["out"]}

    def ref(h):
        c = numpy.concatenate([[0.0], numpy.cumsum(h["x"])])
        return {"out": c[21:521] - c[:500]}

    return Case(inputs, run, ref, rtol=1e-9, atol=1e-12)


@case
def float16_atomic_add(jit, cupy):
    @jit.rawkernel()
    def accumulate(labels, weights, totals):
        i = jit.grid(1)
        if i < labels.size:
            jit.atomic_add(totals, labels[i], weights[i])

    def inputs(rng):
        n = 2000
        return dict(labels=rng.integers(0, 16, n).astype(numpy.int32),
                    weights=rng.integers(1, 4, n).astype(numpy.float16),
                    totals=numpy.zeros(16, numpy.float16))

    def run(xp, d):
        accumulate[8, 256](d["labels"], d["weights"], d["totals"])
        return {"totals": d["totals"]}

    def ref(h):
        t = numpy.bincount(h["labels"], weights=h["weights"].astype(numpy.float64), minlength=16)
        return {"totals": t.astype(numpy.float16)}

    return Case(inputs, run, ref)       # small integer sums: exact in float16


@case
def grid3d_fill(jit, cupy):
    @jit.rawkernel()
    def coords(out, nz, ny, nx):
        x, y, z = jit.grid(3)
        if x < nx and y < ny and z < nz:
            out[z, y, x] = z * 10000 + y * 100 + x

    def inputs(rng):
        return dict(out=numpy.full((6, 20, 30), -1, numpy.int64))

    def run(xp, d):
        coords[(4, 3, 2), (8, 8, 4)](d["out"], 6, 20, 30)
        return {"out": d["out"]}

    def ref(h):
        z, y, x = numpy.indices((6, 20, 30))
        return {"out": (z * 10000 + y * 100 + x).astype(numpy.int64)}

    return Case(inputs, run, ref)


@case
def atomic_inc_ring_and_exch(jit, cupy):
    @jit.rawkernel()
    def ring(ctr, last, n):
        i = jit.grid(1)
        if i < n:
            jit.atomic_inc(ctr, 0, numpy.uint32(9))
            jit.atomic_exch(last, 0, numpy.uint32(7))

    def inputs(rng):
        return dict(ctr=numpy.zeros(1, numpy.uint32), last=numpy.zeros(1, numpy.uint32))

    def run(xp, d):
        ring[5, 256](d["ctr"], d["last"], 1234)
        return {"ctr": d["ctr"], "last": d["last"]}

    return Case(inputs, run, lambda h: {"ctr": numpy.array([1234 % 10], numpy.uint32),
                                        "last": numpy.array([7], numpy.uint32)})


@case
def same_array_twice(jit, cupy):
    @jit.rawkernel()
    def axpy_inplace(a, x, y):
        i = jit.grid(1)
        if i < y.size:
            y[i] = a * x[i] + y[i]

    def inputs(rng):
        return dict(v=rng.standard_normal(700))

    def run(xp, d):
        v = d["v"]
        axpy_inplace[3, 256](2.0, v, v)
        return {"v": v}

    return Case(inputs, run, lambda h: {"v": 3.0 * h["v"]}, rtol=1e-15)


@case
def device_function_shared_and_sync(jit, cupy):
    @jit.rawkernel(device=True)
    def block_sum(buf, value):
        t = jit.threadIdx.x
        buf[t] = value
        jit.syncthreads()
        stride = jit.blockDim.x // 2
        while stride > 0:
            if t < stride:
                buf[t] += buf[t + stride]
            jit.syncthreads()
            stride //= 2
        total = buf[0]
        jit.syncthreads()
        return total

    @jit.rawkernel()
    def center(x, out):
        buf = jit.shared_memory(numpy.float64, 128)
        i = jit.grid(1)
        mean = block_sum(buf, x[i]) / jit.blockDim.x
        out[i] = x[i] - mean

    def inputs(rng):
        return dict(x=rng.uniform(0, 10, 4 * 128), out=numpy.full(4 * 128, numpy.nan))

    def run(xp, d):
        center[4, 128](d["x"], d["out"])
        return {"out": d["out"]}

    def ref(h):
        x = h["x"].reshape(4, 128)
        return {"out": (x - x.mean(axis=1, keepdims=True)).ravel()}

    return Case(inputs, run, ref, rtol=1e-9, atol=1e-12)


@case
def bitonic_sort_shared(jit, cupy):
    N = 256

    @jit.rawkernel()
    def bitonic(x):
        s = jit.shared_memory(numpy.float32, N)
        t = jit.threadIdx.x
        base = jit.blockIdx.x * N
        s[t] = x[base + t]
        jit.syncthreads()
        k = 2
        while k <= N:
            j = k // 2
            while j > 0:
                p = t ^ j
                if p > t:
                    up = (t & k) == 0
                    a = s[t]
                    b = s[p]
                    if (a > b) == up:
                        s[t] = b
                        s[p] = a
                jit.syncthreads()
                j //= 2
            k *= 2
        x[base + t] = s[t]

    def inputs(rng):
        return dict(x=rng.standard_normal(3 * N).astype(numpy.float32))

    def run(xp, d):
        bitonic[3, N](d["x"])
        return {"x": d["x"]}

    return Case(inputs, run, lambda h: {"x": numpy.sort(h["x"].reshape(3, N), axis=1).ravel()})


@case
def softmax_rows(jit, cupy):
    THREADS = 64

    @jit.rawkernel()
    def softmax(x, out, ncols):
        row = jit.blockIdx.x
        t = jit.threadIdx.x
        red = jit.shared_memory(numpy.float32, THREADS)
        m = -cupy.inf
        for c in range(t, ncols, THREADS):
            m = max(m, x[row, c])
        red[t] = m
        jit.syncthreads()
        step = THREADS // 2
        while step > 0:
            if t < step:
                red[t] = max(red[t], red[t + step])
            jit.syncthreads()
            step //= 2
        row_max = red[0]
        jit.syncthreads()
        s = cupy.float32(0)
        for c in range(t, ncols, THREADS):
            e = cupy.exp(x[row, c] - row_max)
            out[row, c] = e
            s += e
        red[t] = s
        jit.syncthreads()
        step = THREADS // 2
        while step > 0:
            if t < step:
                red[t] += red[t + step]
            jit.syncthreads()
            step //= 2
        total = red[0]
        for c in range(t, ncols, THREADS):
            out[row, c] = out[row, c] / total

    def inputs(rng):
        return dict(x=(rng.standard_normal((12, 300)) * 3).astype(numpy.float32),
                    out=numpy.full((12, 300), numpy.nan, numpy.float32))

    def run(xp, d):
        softmax[12, THREADS](d["x"], d["out"], 300)
        return {"out": d["out"]}

    def ref(h):
        x = h["x"].astype(numpy.float64)
        e = numpy.exp(x - x.max(axis=1, keepdims=True))
        return {"out": e / e.sum(axis=1, keepdims=True)}

    return Case(inputs, run, ref, rtol=1e-4, atol=1e-7)


@case
def complex_shared_reduce(jit, cupy):
    @jit.rawkernel()
    def csum(z, out):
        s = jit.shared_memory(numpy.complex64, 64)
        t = jit.threadIdx.x
        s[t] = z[jit.blockIdx.x * 64 + t]
        jit.syncthreads()
        if t == 0:
            acc = s[0]
            for k in range(1, 64):
                acc += s[k]
            out[jit.blockIdx.x] = acc

    def inputs(rng):
        z = (rng.standard_normal(5 * 64) + 1j * rng.standard_normal(5 * 64)).astype(
            numpy.complex64)
        return dict(z=z, out=numpy.zeros(5, numpy.complex64))

    def run(xp, d):
        csum[5, 64](d["z"], d["out"])
        return {"out": d["out"]}

    return Case(inputs, run, lambda h: {"out": h["z"].reshape(5, 64).sum(axis=1)}, rtol=1e-5,
                atol=1e-5)


@case
def fortran_order_input(jit, cupy):
    @jit.rawkernel()
    def scale_cols(m, w, out, rows, cols):
        r, c = jit.grid(2)
        if r < rows and c < cols:
            out[r, c] = m[r, c] * w[c]

    def inputs(rng):
        return dict(m=numpy.asfortranarray(rng.standard_normal((40, 24))),
                    w=rng.uniform(0.5, 2, 24), out=numpy.full((40, 24), numpy.nan))

    def run(xp, d):
        scale_cols[(3, 2), (16, 16)](d["m"], d["w"], d["out"], 40, 24)
        return {"out": d["out"]}

    return Case(inputs, run, lambda h: {"out": h["m"] * h["w"][None, :]}, rtol=1e-15)


@case
def reversed_view(jit, cupy):
    @jit.rawkernel()
    def copy_from(src, dst):
        i = jit.grid(1)
        if i < dst.size:
            dst[i] = src[i] * 2

    def inputs(rng):
        return dict(a=rng.integers(-1000, 1000, 321).astype(numpy.int64),
                    out=numpy.zeros(321, numpy.int64))

    def run(xp, d):
        copy_from[2, 256](d["a"][::-1], d["out"])
        return {"out": d["out"]}

    return Case(inputs, run, lambda h: {"out": h["a"][::-1] * 2})


@case
def histogram_2d_tuple_index(jit, cupy):
    @jit.rawkernel()
    def hist2d(xs, ys, counts, nbins):
        i = jit.grid(1)
        if i < xs.size:
            bx = min(int(xs[i] * nbins), nbins - 1)
            by = min(int(ys[i] * nbins), nbins - 1)
            jit.atomic_add(counts, (by, bx), 1)

    def inputs(rng):
        n = 5000
        return dict(xs=rng.uniform(0, 1, n), ys=rng.uniform(0, 1, n),
                    counts=numpy.zeros((8, 8), numpy.int32))

    def run(xp, d):
        hist2d[blocks_for(5000, 256), 256](d["xs"], d["ys"], d["counts"], 8)
        return {"counts": d["counts"]}

    def ref(h):
        bx = numpy.minimum((h["xs"] * 8).astype(numpy.int64), 7)
        by = numpy.minimum((h["ys"] * 8).astype(numpy.int64), 7)
        c = numpy.zeros((8, 8), numpy.int32)
        numpy.add.at(c, (by, bx), 1)
        return {"counts": c}

    return Case(inputs, run, ref)


@case
def three_pass_scan(jit, cupy):
    B = 128

    @jit.rawkernel()
    def scan_blocks(x, y, sums, n):
        s = jit.shared_memory(numpy.int64, B)
        t = jit.threadIdx.x
        i = jit.blockIdx.x * B + t
        s[t] = x[i] if i < n else 0
        jit.syncthreads()
        d = 1
        while d < B:
            v = s[t]
            if t >= d:
                v += s[t - d]
            jit.syncthreads()
            s[t] = v
            jit.syncthreads()
            d *= 2
        if i < n:
            y[i] = s[t]
        if t == B - 1:
            sums[jit.blockIdx.x] = s[t]

    @jit.rawkernel()
    def scan_sums(sums, nblocks):
        if jit.threadIdx.x == 0:
            acc = 0
            for b in range(nblocks):
                acc += sums[b]
                sums[b] = acc

    @jit.rawkernel()
    def add_offsets(y, sums, n):
        i = jit.grid(1)
        if i < n and jit.blockIdx.x > 0:
            y[i] += sums[jit.blockIdx.x - 1]

    def inputs(rng):
        n = 1000
        return dict(x=rng.integers(-20, 20, n).astype(numpy.int64),
                    y=numpy.zeros(n, numpy.int64), sums=numpy.zeros(8, numpy.int64))

    def run(xp, d):
        n = 1000
        nb = blocks_for(n, B)
        scan_blocks[nb, B](d["x"], d["y"], d["sums"], n)
        scan_sums[1, 32](d["sums"], nb)
        add_offsets[nb, B](d["y"], d["sums"], n)
        return {"y": d["y"]}

    return Case(inputs, run, lambda h: {"y": numpy.cumsum(h["x"])})


@case
def python_bool_flag(jit, cupy):
    @jit.rawkernel()
    def maybe_negate(x, out, negate, bias):
        i = jit.grid(1)
        if i < x.size:
            v = x[i] + bias
            if negate:
                v = -v
            out[i] = v

    def inputs(rng):
        n = 300
        return dict(x=rng.integers(-50, 50, n).astype(numpy.int32),
                    out1=numpy.zeros(n, numpy.int64), out2=numpy.zeros(n, numpy.int64))

    def run(xp, d):
        maybe_negate[2, 256](d["x"], d["out1"], True, 3)
        maybe_negate[2, 256](d["x"], d["out2"], numpy.bool_(False), 3)
        return {"out1": d["out1"], "out2": d["out2"]}

    return Case(inputs, run, lambda h: {"out1": -(h["x"].astype(numpy.int64) + 3),
                                        "out2": h["x"].astype(numpy.int64) + 3})


@case
def numpy_int_launch_and_list_args(jit, cupy):
    @jit.rawkernel()
    def offset_copy(src, dst, n, offset):
        i = jit.grid(1)
        if i < n:
            dst[i] = src[i] + offset

    def inputs(rng):
        n = 1500
        return dict(src=rng.integers(0, 1000, n).astype(numpy.int32),
                    dst=numpy.zeros(n, numpy.int32))

    def run(xp, d):
        n = numpy.uint32(1500)
        threads = numpy.int32(128)
        blocks = (n + threads - 1) // threads            # a NumPy integer
        offset_copy((blocks,), (threads,), [d["src"], d["dst"], n, numpy.int32(9)])
        return {"dst": d["dst"]}

    return Case(inputs, run, lambda h: {"dst": h["src"] + 9})


@case
def control_flow_odds_and_ends(jit, cupy):
    @jit.rawkernel()
    def odd(x, out, n):
        i = jit.grid(1)
        if i < n:
            total = 0.0
            for k in range(5):
                if k == 2:
                    continue
                total += x[i] ** 2 + k
            out[i, 0] = total + k                   # the loop's last k
            steps = 0
            v = x[i] ** 0.5
            while True:
                v = v * 0.5
                steps += 1
                if v < 0.01:
                    break
            out[i, 1] = steps
            if not (x[i] > 1.0):
                out[i, 2] = -x[i]
            else:
                out[i, 2] = x[i]

    def inputs(rng):
        n = 400
        return dict(x=rng.uniform(0.01, 4, n), out=numpy.full((n, 3), numpy.nan))

    def run(xp, d):
        odd[2, 256](d["x"], d["out"], 400)
        return {"out": d["out"]}

    def ref(h):
        x = h["x"]
        total = sum(x ** 2 + k for k in (0, 1, 3, 4)) + 4
        steps = []
        for v in numpy.sqrt(x).tolist():
            s = 0
            while True:
                v *= 0.5
                s += 1
                if v < 0.01:
                    break
            steps.append(s)
        third = numpy.where(x > 1.0, x, -x)
        return {"out": numpy.stack([total, numpy.array(steps, float), third], axis=1)}

    return Case(inputs, run, ref, rtol=1e-12)


@case
def one_kernel_three_dtypes(jit, cupy):
    @jit.rawkernel()
    def axpb(x, y, a, b):
        i = jit.grid(1)
        if i < x.size:
            y[i] = x[i] * a + b

    def inputs(rng):
        n = 400
        return dict(f4=rng.standard_normal(n).astype(numpy.float32),
                    f8=rng.standard_normal(n),
                    i4=rng.integers(-1000, 1000, n).astype(numpy.int32),
                    o4=numpy.zeros(n, numpy.float32), o8=numpy.zeros(n),
                    oi=numpy.zeros(n, numpy.int32))

    def run(xp, d):
        axpb[2, 256](d["f4"], d["o4"], numpy.float32(1.5), numpy.float32(-2))
        axpb[2, 256](d["f8"], d["o8"], 1.5, -2.0)
        axpb[2, 256](d["i4"], d["oi"], numpy.int32(3), numpy.int32(-7))
        return {"o4": d["o4"], "o8": d["o8"], "oi": d["oi"]}

    return Case(inputs, run, lambda h: {"o4": h["f4"] * numpy.float32(1.5) - numpy.float32(2),
                                        "o8": h["f8"] * 1.5 - 2.0,
                                        "oi": h["i4"] * 3 - 7},
                rtol=1e-6, atol=1e-6)     # an fma on the GPU, two roundings in NumPy


@case
def float16_scalar_argument(jit, cupy):
    @jit.rawkernel()
    def scale_half(x, out, s):
        i = jit.grid(1)
        if i < x.size:
            out[i] = x[i] * s

    def inputs(rng):
        n = 300
        return dict(x=rng.uniform(-4, 4, n).astype(numpy.float16),
                    out=numpy.zeros(n, numpy.float16))

    def run(xp, d):
        scale_half[2, 256](d["x"], d["out"], numpy.float16(0.75))
        return {"out": d["out"]}

    return Case(inputs, run, lambda h: {"out": h["x"] * numpy.float16(0.75)}, rtol=1e-3)


@case
def device_function_defined_after(jit, cupy):
    @jit.rawkernel()
    def apply(x, out):
        i = jit.grid(1)
        if i < x.size:
            out[i] = later(x[i], 3)
            bump(out, i)

    @jit.rawkernel(device=True)
    def later(a, b):
        return a * b - 1

    @jit.rawkernel(device=True)
    def bump(arr, i):
        arr[i] += 100

    def inputs(rng):
        n = 250
        return dict(x=rng.integers(-500, 500, n).astype(numpy.int64),
                    out=numpy.zeros(n, numpy.int64))

    def run(xp, d):
        apply[1, 256](d["x"], d["out"])
        return {"out": d["out"]}

    return Case(inputs, run, lambda h: {"out": h["x"] * 3 - 1 + 100})


@case
def reverse_range_single_thread(jit, cupy):
    @jit.rawkernel()
    def suffix_horner(x, out, n):
        if jit.threadIdx.x == 0 and jit.blockIdx.x == 0:
            acc = 0
            for k in range(n - 1, -1, -1):
                acc = acc * 3 + x[k]
                out[k] = acc

    def inputs(rng):
        n = 30
        return dict(x=rng.integers(-5, 5, n).astype(numpy.int64), out=numpy.zeros(n, numpy.int64))

    def run(xp, d):
        suffix_horner[2, 32](d["x"], d["out"], 30)
        return {"out": d["out"]}

    def ref(h):
        out, acc = [], 0
        for v in h["x"].tolist()[::-1]:
            acc = acc * 3 + v
            out.append(acc)
        return {"out": numpy.array(out[::-1], numpy.int64)}

    return Case(inputs, run, ref)


@case
def small_ints_and_uint64_atomics(jit, cupy):
    @jit.rawkernel()
    def mix(a, b, out, total):
        i = jit.grid(1)
        if i < a.size:
            v = a[i] * b[i]                 # int8 * uint16: int32
            out[i] = v
            jit.atomic_add(total, 0, numpy.uint64(numpy.int64(a[i]) + 128))

    def inputs(rng):
        n = 700
        return dict(a=rng.integers(-128, 128, n).astype(numpy.int8),
                    b=rng.integers(0, 60000, n).astype(numpy.uint16),
                    out=numpy.zeros(n, numpy.int64), total=numpy.zeros(1, numpy.uint64))

    def run(xp, d):
        mix[3, 256](d["a"], d["b"], d["out"], d["total"])
        return {"out": d["out"], "total": d["total"]}

    def ref(h):
        a = h["a"].astype(numpy.int64)
        return {"out": a * h["b"].astype(numpy.int64),
                "total": numpy.array([(a + 128).sum()], numpy.uint64)}

    return Case(inputs, run, ref)
