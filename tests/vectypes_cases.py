"""Kernels over every CUDA vector type (cujit.cuda.vector_types: int8x1 ...
float64x4), shared by tests/test_vectypes_nogpu.py (they compile to PTX)
and tests/gpu/test_vectypes_gpu.py (run against NumPy on random data).

`make(vt)` gives (kernel, expected) for vector type vt: the kernel reads
row i of x (4 values of vt's element type) as a, b, c, d, makes vectors of
vt from numbers and from smaller vectors of the same element type (the
constructors Numba accepts), and writes their lanes into row i of out;
`expected(x)` is the rows NumPy gives.  The constructors and the element
type are closure values, as in Numba's own test_vector_type.py."""
import numpy as np

from cujit import cuda


def _ctors(vt):
    stem = vt.name[:-1]            # "float32x"
    return [getattr(cuda, f"{stem}{n}") for n in (1, 2, 3, 4)]


def _make1(vt):
    v1, _, _, _ = _ctors(vt)
    ctor = vt.user_facing_object

    def k(x, out):
        i = cuda.grid(1)
        if i < x.shape[0]:
            p = ctor(x[i, 0])
            q = ctor(v1(x[i, 1]))
            out[i, 0] = p.x
            out[i, 1] = q.x

    return k, [0, 1]


def _make2(vt):
    v1, v2, _, _ = _ctors(vt)
    ctor = vt.user_facing_object

    def k(x, out):
        i = cuda.grid(1)
        if i < x.shape[0]:
            a, b, c, d = x[i, 0], x[i, 1], x[i, 2], x[i, 3]
            p = ctor(a, b)
            q = ctor(v1(b), a)
            r = ctor(v2(c, d))
            out[i, 0] = p.x
            out[i, 1] = p.y
            out[i, 2] = q.x
            out[i, 3] = q.y
            out[i, 4] = r.x
            out[i, 5] = r.y

    return k, [0, 1, 1, 0, 2, 3]


def _make3(vt):
    v1, v2, v3, _ = _ctors(vt)
    ctor = vt.user_facing_object

    def k(x, out):
        i = cuda.grid(1)
        if i < x.shape[0]:
            a, b, c, d = x[i, 0], x[i, 1], x[i, 2], x[i, 3]
            vs = (ctor(a, b, c), ctor(v2(b, c), a), ctor(d, v2(a, b)),
                  ctor(v1(c), v1(d), v1(a)), ctor(v3(d, c, b)))
            for j in range(5):
                v = vs[j]
                out[i, 3 * j] = v.x
                out[i, 3 * j + 1] = v.y
                out[i, 3 * j + 2] = v.z

    return k, [0, 1, 2, 1, 2, 0, 3, 0, 1, 2, 3, 0, 3, 2, 1]


def _make4(vt):
    v1, v2, v3, v4 = _ctors(vt)
    ctor = vt.user_facing_object

    def k(x, out):
        i = cuda.grid(1)
        if i < x.shape[0]:
            a, b, c, d = x[i, 0], x[i, 1], x[i, 2], x[i, 3]
            vs = (ctor(a, b, c, d), ctor(v2(b, a), v2(d, c)), ctor(v3(c, d, a), b),
                  ctor(d, v3(a, b, c)), ctor(v1(a), v2(c, b), d), ctor(v4(d, c, b, a)),
                  ctor(a, v1(b), v2(c, d)))
            for j in range(7):
                v = vs[j]
                out[i, 4 * j] = v.x
                out[i, 4 * j + 1] = v.y
                out[i, 4 * j + 2] = v.z
                out[i, 4 * j + 3] = v.w

    return k, [0, 1, 2, 3, 1, 0, 3, 2, 2, 3, 0, 1, 3, 0, 1, 2, 0, 2, 1, 3, 3, 2, 1, 0,
               0, 1, 2, 3]


def make(vt):
    """(cuda.jit kernel, column order): out[:, j] == x[:, order[j]]"""
    k, order = {1: _make1, 2: _make2, 3: _make3, 4: _make4}[vt.num_elements](vt)
    return cuda.jit(k), order


def data(vt, n, rng):
    """random rows of 4 values of vt's element type, never all equal"""
    dt = np.dtype(str(vt.base_type))
    if dt.kind == "f":
        return rng.uniform(-100, 100, (n, 4)).astype(dt)
    lo = 0 if dt.kind == "u" else -100
    return rng.integers(lo, 100, (n, 4), endpoint=True).astype(dt)
