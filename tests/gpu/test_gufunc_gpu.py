"""@guvectorize on the GPU, against NumPy computed directly on fresh random
data: dot "(n),(n)->()", matmul "(m,n),(n,p)->(m,p)", loop broadcasting,
strided and F-order inputs, out=, float32 / float64 / int64, lazy typing,
numbers as "()" inputs and several outputs.  The staged entry (inputs'
contiguous core blocks copied to shared memory first, core outputs it
allocates written there and copied out, GUFunc.last_launch says which
entry ran): float32 / float64 / int32 / int16 / complex64, core sizes 1,
3, 64 and 1000, instance counts that leave a partial block, and the layouts
that must take the plain entry (broadcast, strided, F order, out=).

Each case is a plain function (CASES); tests/fakecuda/gufunc_scenarios.py
runs the same ones without a GPU, through the fake libcuda with the
kernels compiled for the host (tests/test_gufunc_nogpu.py)."""
import math

import numpy as np
import pytest

import cujit
from cujit import jit

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()


def rand(shape, dtype=np.float32):
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-50, 50, size=shape).astype(dtype)
    if np.dtype(dtype).kind == "c":
        return (rng.uniform(-2.0, 2.0, size=shape)
                + 1j * rng.uniform(-2.0, 2.0, size=shape)).astype(dtype)
    return rng.uniform(-2.0, 2.0, size=shape).astype(dtype)


def host(x):
    return x if isinstance(x, np.ndarray) else cujit.asnumpy(x)


def close(got, want, dtype):
    got = host(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == np.dtype(dtype), (got.dtype, dtype)
    if np.dtype(dtype).kind in "iu":
        np.testing.assert_array_equal(got, want)
    else:
        tol = 1e-4 if np.dtype(dtype) == np.float32 else 1e-10
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


# signatures are tried in order (NumPy's rule for a ufunc's loops): the
# first one every input casts to safely
@cujit.guvectorize(["void(int64[:], int64[:], int64[:])",
                    "void(float32[:], float32[:], float32[:])",
                    "void(float64[:], float64[:], float64[:])"], "(n),(n)->()")
def dot(a, b, out):
    acc = a[0] * b[0]
    for i in range(1, a.shape[0]):
        acc += a[i] * b[i]
    out[0] = acc


@cujit.guvectorize("(m,n),(n,p)->(m,p)", target="cuda")
def matmul(a, b, c):
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            s = a[i, 0] * b[0, j]
            for k in range(1, a.shape[1]):
                s += a[i, k] * b[k, j]
            c[i, j] = s


@cujit.guvectorize(["void(float32[:], float32, float32[:])"], "(n),()->(n)")
def axpy_row(x, a, out):
    for i in range(x.shape[0]):
        out[i] = a * x[i] + math.sqrt(abs(x[i]))


@cujit.guvectorize("(n)->(),()")
def minmax(x, lo, hi):
    lo[0] = x[0]
    hi[0] = x[0]
    for i in range(1, x.shape[0]):
        lo[0] = min(lo[0], x[i])
        hi[0] = max(hi[0], x[i])


@cujit.guvectorize("(n)->(n)")
def cumsum_local(x, out):
    # a local array over a fixed bound
    buf = jit.local_memory(np.float64, 64)
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
        buf[i % 64] = s
        out[i] = buf[i % 64]


@cujit.guvectorize("(n),(n)->()")
def dot_lazy(a, b, out):
    acc = a[0] * b[0]
    for i in range(1, a.shape[0]):
        acc += a[i] * b[i]
    out[0] = acc


@cujit.guvectorize("(n)->(n)")
def mirror(x, out):
    # reads its row in both directions
    n = x.shape[0]
    for i in range(n):
        out[i] = x[n - 1 - i] * 2 + x[i]


def close_sum(got, want, dtype, n):
    """A sum of n products in dtype against NumPy's (in float64 / int64)."""
    got = host(got)
    assert got.shape == want.shape and got.dtype == np.dtype(dtype), (got.shape, got.dtype)
    if np.dtype(dtype).kind in "iu":
        np.testing.assert_array_equal(got, want.astype(dtype))
    else:
        tol = 1e-5 * n if np.dtype(dtype) in (np.float32, np.complex64) else 1e-12 * n
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def entry(g):
    return g.last_launch[0], g.last_launch[3]


def expect(g, want):
    """The entry the last launch took: `want` ("staged" and the operands
    staged, or "plain"), always plain with .stage = "off"."""
    got = entry(g)
    if g.stage == "off":
        assert got == ("plain", ()), got
    else:
        assert got == want, (got, want, g.last_launch)


def check_staged_dot_dtypes_and_sizes():
    # 300 instances: blocks of 128, 64 or 32 leave a partial last block
    for dt in (np.float32, np.float64, np.int32, np.complex64):
        for n in (1, 3, 64, 1000):
            a, b = rand((300, n), dt), rand((300, n), dt)
            wide = np.complex128 if np.dtype(dt).kind == "c" else (
                np.int64 if np.dtype(dt).kind == "i" else np.float64)
            want = np.sum(a.astype(wide) * b, axis=-1)
            close_sum(dot_lazy(a, b), want, dt, n)
            # one element per instance is read coalesced already, and so are
            # fewer than 64 bytes of inputs (3 elements); 2 x 1000 elements
            # per instance do not fit 32 instances in 48 KiB
            expect(dot_lazy, ("staged", (0, 1)) if n == 64 else ("plain", ()))


def check_staged_small_counts():
    for rows in (1, 5, 33, 129):
        a, b = rand((rows, 64), np.float64), rand((rows, 64), np.float64)
        close_sum(dot_lazy(a, b), np.sum(a * b, axis=-1), np.float64, 64)
        expect(dot_lazy, ("staged", (0, 1)))


def check_staged_sub_word_elements():
    a, b = rand((200, 64), np.int16), rand((200, 64), np.int16)     # 128-byte blocks
    want = np.sum(a.astype(np.int64) * b, axis=-1)
    close_sum(dot_lazy(a, b), want, np.int16, 64)
    expect(dot_lazy, ("staged", (0, 1)))
    a, b = rand((200, 3), np.int16), rand((200, 3), np.int16)       # 6 bytes: not in words
    close_sum(dot_lazy(a, b), np.sum(a.astype(np.int64) * b, axis=-1), np.int16, 3)
    expect(dot_lazy, ("plain", ()))


def check_staged_core_output():
    # 65 elements: an odd number of words, copied with 16-byte stores
    for dt in (np.float32, np.float64, np.int32, np.complex64):
        for n in (1, 3, 64, 65, 1000):
            x = rand((250, n), dt)
            got = host(mirror(x))
            assert got.dtype == np.dtype(dt), got.dtype
            np.testing.assert_allclose(got, x[:, ::-1] * 2 + x, rtol=1e-5, atol=1e-5)
            # the output allocated here is staged too (the input and the
            # output of 32 instances within 48 KiB)
            expect(mirror, ("staged", (0, 1)) if n in (64, 65) else ("plain", ()))
        x = rand((250, 64), dt)
        out = cujit.empty((250, 64), dt)
        np.testing.assert_allclose(host(mirror(x, out=out)), x[:, ::-1] * 2 + x, rtol=1e-5,
                                   atol=1e-5)
        expect(mirror, ("staged", (0,)))                            # out= is written in place


def check_staged_always():
    # 'always': 32 instances of a 4000-byte block (128 KB of shared memory)
    x = rand((100, 1000), np.float32)
    was = mirror.stage, dot_lazy.stage
    mirror.stage = "always"
    try:
        close(mirror(x), x[:, ::-1] * 2 + x, np.float32)
        # the output does not fit beside it: written in place
        assert mirror.last_launch == ("staged", 32, 32 * 1001 * 4, (0,)), mirror.last_launch
        # two 1000-element inputs do not fit together: the first is staged
        a, b = rand((70, 1000), np.float32), rand((70, 1000), np.float32)
        dot_lazy.stage = "always"
        close_sum(dot_lazy(a, b), np.sum(a.astype(np.float64) * b, axis=-1), np.float32, 1000)
        assert entry(dot_lazy) == ("staged", (0,)), dot_lazy.last_launch
    finally:
        mirror.stage, dot_lazy.stage = was


def check_staged_matmul():
    a, b = rand((300, 4, 5)), rand((300, 5, 3))
    close(matmul(a, b), a @ b, np.float32)
    expect(matmul, ("staged", (0, 1, 2)))
    close(matmul(a, b[0]), a @ b[0], np.float32)                   # b broadcast
    expect(matmul, ("staged", (0, 2)))
    out = cujit.empty((300, 4, 3), np.float32)
    close(matmul(a, b, out=out), a @ b, np.float32)                # out= given
    expect(matmul, ("staged", (0, 1)))
    a, b = rand((2, 150, 4, 6), np.float64), rand((2, 150, 6, 2), np.float64)
    close(matmul(a, b), a @ b, np.float64)                           # two loop dimensions
    expect(matmul, ("staged", (0, 1, 2)))


def check_staged_fallbacks():
    # host arrays reach the device as C-contiguous copies: these layouts are
    # device arrays (views), whose blocks are not one contiguous run
    a, b = rand((300, 128)), rand((300, 64))
    da = cujit.to_device(a)
    for x, want_x in [(da[:, ::2], a[:, ::2]),                     # strided core
                      (cujit.to_device(np.asfortranarray(a[:, :64])), a[:, :64]),   # F order
                      (cujit.to_device(rand((600, 64)))[::2], None)]:   # rows two blocks apart
        want_x = host(x) if want_x is None else want_x
        want = np.sum(want_x.astype(np.float64) * b, axis=-1)
        close_sum(dot_lazy(x, b), want, np.float32, 64)
        expect(dot_lazy, ("staged", (1,)))
    v = rand(64)                                                    # broadcast over the loop
    close_sum(dot_lazy(v, b), b.astype(np.float64) @ v, np.float32, 64)
    expect(dot_lazy, ("staged", (1,)))
    p, q = rand((4, 1, 64)), rand((6, 64))                          # both broadcast
    close_sum(dot_lazy(p, q), np.sum(p.astype(np.float64) * q, axis=-1), np.float32, 64)
    expect(dot_lazy, ("plain", ()))
    flat = rand(300 * 64 + 1)                                       # not 16-byte aligned
    d = cujit.to_device(flat)[1:].reshape(300, 64)
    close_sum(dot_lazy(d, b), np.sum(flat[1:].reshape(300, 64).astype(np.float64) * b, axis=-1),
              np.float32, 64)
    expect(dot_lazy, ("staged", (0, 1)))
    was, dot_lazy.stage = dot_lazy.stage, "off"
    try:
        close_sum(dot_lazy(a[:, :64], b), np.sum(a[:, :64].astype(np.float64) * b, axis=-1),
                  np.float32, 64)
        assert entry(dot_lazy) == ("plain", ())
    finally:
        dot_lazy.stage = was


def check_dot_dtypes():
    for dt in (np.float32, np.float64, np.int64):
        a, b = rand((100, 17), dt), rand((100, 17), dt)
        close(dot(a, b), np.sum(a * b, axis=-1), dt)


def check_dot_device_arrays():
    a, b = rand((3, 5, 33)), rand((3, 5, 33))
    r = dot(cujit.to_device(a), cujit.to_device(b))
    assert isinstance(r, cujit.DeviceArray)
    close(r, np.sum(a * b, axis=-1), np.float32)


def check_dot_cast_to_signature():
    # inputs take the first signature they cast to safely, and are cast to it
    a, b = rand((20, 9), np.int32), rand((20, 9), np.int32)
    close(dot(a, b), np.sum(a.astype(np.int64) * b, axis=-1), np.int64)
    a, b = rand((20, 9), np.float16), rand((20, 9), np.float32)
    close(dot(a, b), np.sum(a.astype(np.float32) * b, axis=-1), np.float32)


def check_dot_broadcast():
    a, b = rand((4, 1, 10)), rand((6, 10))
    close(dot(a, b), np.sum(a * b, axis=-1), np.float32)
    v = rand(10)
    m = rand((7, 10))
    close(dot(v, m), m @ v, np.float32)


def check_dot_single_instance():
    a, b = rand(50, np.float64), rand(50, np.float64)
    r = host(dot(a, b))
    assert r.shape == ()
    np.testing.assert_allclose(r, a @ b, rtol=1e-12)


def check_matmul_dtypes():
    for dt in (np.float32, np.float64, np.int64):
        a, b = rand((8, 5, 3), dt), rand((8, 3, 4), dt)
        close(matmul(a, b), a @ b, dt)


def check_matmul_broadcast():
    a, b = rand((2, 1, 5, 3)), rand((4, 3, 6))
    close(matmul(a, b), a @ b, np.float32)


def check_matmul_strided_and_f_order():
    a = rand((6, 7, 10), np.float64)[:, ::2, 1:9:2]          # (6, 4, 4), strided
    b = np.asfortranarray(rand((6, 4, 3), np.float64))       # F order
    close(matmul(a, b), a @ b, np.float64)
    t = rand((5, 3, 6), np.float64).transpose(0, 2, 1)       # core dims transposed
    close(matmul(t, b[:5, :3, :]), t @ b[:5, :3, :], np.float64)
    d = cujit.to_device(rand((9, 4, 4), np.float64))[::3]   # device view, strided loop
    close(matmul(d, b[:3]), host(d) @ b[:3], np.float64)


def check_matmul_out():
    a, b = rand((3, 4, 2)), rand((3, 2, 5))
    out = cujit.empty((3, 4, 5), np.float32)
    r = matmul(a, b, out=out)
    assert r is out
    close(out, a @ b, np.float32)
    out2 = cujit.empty((3, 4, 5), np.float32)
    assert matmul(a, b, out2) is out2                        # outputs after the inputs
    close(out2, a @ b, np.float32)
    h = np.zeros((3, 4, 5), np.float64)                      # host out=, another dtype
    matmul(a.astype(np.float64), b.astype(np.float64), out=h)
    np.testing.assert_allclose(h, a.astype(np.float64) @ b, rtol=1e-10)
    fo = cujit.to_device(np.asfortranarray(np.zeros((3, 4, 5), np.float32)))
    matmul(a, b, out=(fo,))
    close(fo, a @ b, np.float32)


def check_lazy_typing():
    for dt in (np.float32, np.float64, np.int64):
        a, b = rand((10, 3, 3), dt), rand((3, 3), dt)
        close(matmul(a, b), a @ b, dt)
    a, b = rand((4, 2, 3), np.float32), rand((3, 2), np.float64)
    close(matmul(a, b), a.astype(np.float64) @ b, np.float64)   # NumPy's result dtype


def check_scalar_inputs():
    x = rand((5, 12))
    want = np.float32(2.5) * x + np.sqrt(np.abs(x))
    close(axpy_row(x, 2.5), want, np.float32)
    a = rand(5)                                              # one scalar per loop instance
    want = a[:, None] * x + np.sqrt(np.abs(x))
    close(axpy_row(x, a), want, np.float32)


def check_two_outputs():
    x = rand((9, 31), np.float64)
    lo, hi = minmax(x)
    close(lo, x.min(axis=-1), np.float64)
    close(hi, x.max(axis=-1), np.float64)


def check_local_array():
    x = rand((6, 40), np.float64)
    close(cumsum_local(x), np.cumsum(x, axis=-1), np.float64)


def check_many_instances():
    a, b = rand((1000, 3, 8)), rand((8, 3))
    close(matmul(a, b), a @ b, np.float32)


def check_empty_loop():
    a, b = rand((0, 5)), rand((0, 5))
    r = host(dot(a, b))
    assert r.shape == (0,)


CASES = [v for k, v in sorted(globals().items()) if k.startswith("check_")]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__[6:] for c in CASES])
def test_gufunc(case):
    case()
