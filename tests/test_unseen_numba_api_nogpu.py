"""The breadth of numba.cuda's language and API in unusual combinations
(tests/unseen/numba_api.py) without a GPU: every case is compiled through
cujit and launched against the fake libcuda, and those whose meaning needs
no threads running together run on the host and are compared with NumPy
(tests/fakecuda/unseenapi_scenarios.py, one fresh process for all).  Then
the regressions of what those cases found, each run on the host through
test_kernels_host.py's shim on fresh random data: a namedtuple built in a
kernel (positional, keyword, default fields; a global namedtuple), a global
tuple indexed by a variable, divmod(), a.argmin() / a.argmax(), a.nbytes
and a.T, min / max / sum of tuples and tuples joined with +, np.real /
imag / conj / angle, indices written from the end (the tuple of arrays
iterated over is a case of numba_api.py: the shim passes no tuples).  On the GPU: tests/gpu/test_unseen_numba_api.py."""
import math
import os
import re
import subprocess
import sys
from collections import namedtuple

import numpy as np
import pytest

import cujit
from cujit import cuda
from test_runtime_nogpu import fake_driver, nvrtc_or_skip  # noqa: F401
from test_kernels_host import CXX, host_launcher

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "unseen"))
import numba_api  # noqa: E402
from corpus import xfail_params  # noqa: E402

NAMES = [b.__name__ for b in numba_api.CASES]
rng = np.random.default_rng()


# ---- every case, through the fake driver ----

@pytest.fixture(scope="module")
def case_results(fake_driver, tmp_path_factory):  # noqa: F811
    nvrtc_or_skip()
    if CXX is None:
        pytest.skip("no host C++ compiler (g++ or clang++)")
    e = dict(os.environ, CUJIT_CACHE_DIR=str(tmp_path_factory.mktemp("cache")),
             LD_LIBRARY_PATH=fake_driver + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    e.pop("CUJIT_CACHE", None)
    r = subprocess.run([sys.executable, "-W", "ignore",
                        os.path.join(HERE, "fakecuda", "unseenapi_scenarios.py"), "run_cases"],
                       env=e, capture_output=True, text=True, timeout=1200)
    assert r.returncode == 0 and "run_cases ok" in r.stdout, r.stdout[-4000:] + r.stderr[-4000:]
    found = {}
    for m in re.finditer(r"^CASE (\w+) (.*(?:\n    .*)*)", r.stdout, re.M):
        found[m.group(1)] = m.group(2)
    return found


@pytest.mark.parametrize("name", xfail_params(NAMES, numba_api.CUJIT_XFAIL))
def test_case_on_fake_driver(case_results, name):
    what = case_results.get(name)
    assert what is not None, "the scenario did not run " + name
    assert what == "passed" or what.startswith("compiled (needs a GPU"), what


def test_every_case_ran_once():
    assert len(NAMES) == len(set(NAMES)) and len(NAMES) >= 40


# ---- the regressions, on the host ----

@pytest.fixture
def launch(tmp_path):
    nvrtc_or_skip()
    if CXX is None:
        pytest.skip("no host C++ compiler (g++ or clang++)")
    return host_launcher(str(tmp_path))


Pt = namedtuple("Pt", ["x", "y"])
P3 = namedtuple("P3", ["x", "y", "z"], defaults=(0.5,))
ORIGIN = Pt(1.5, -2.0)


@cuda.jit(device=True)
def pt_norm(p):
    return math.sqrt(p.x * p.x + p.y * p.y)


def test_namedtuple_built_in_kernel(launch):
    @cuda.jit
    def k(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            p = Pt(a[i], b[i])
            q = P3(b[i], y=a[i])
            r = P3(z=2.0, x=i, y=1)
            out[i, 0] = pt_norm(p) + p[1]
            out[i, 1] = q.x - q.y + q.z
            out[i, 2] = r.x + r.y * r.z + ORIGIN.x * ORIGIN[1]
    a, b = rng.standard_normal(40), rng.standard_normal(40)
    out = np.zeros((40, 3))
    launch(k, 2, 32, [a, b, out])
    i = np.arange(40)
    np.testing.assert_allclose(out[:, 0], np.hypot(a, b) + b, rtol=1e-12)
    np.testing.assert_allclose(out[:, 1], b - a + 0.5, rtol=1e-12)
    np.testing.assert_allclose(out[:, 2], i + 2.0 - 3.0, rtol=1e-12)


@pytest.mark.parametrize("body, text", [
    ("p = Pt(a[0], a[1], a[2])", r"Pt\(\) has 2 fields, got 3 arguments"),
    ("p = Pt(a[0], w=a[1])", r"Pt\(\) has no field 'w'"),
    ("p = Pt(a[0], x=a[1])", r"Pt\(\) got field 'x' twice"),
    ("p = Pt(a[0])", r"Pt\(\) misses field 'y'"),
])
def test_namedtuple_call_errors(body, text):
    nvrtc_or_skip()
    ns = {"Pt": Pt, "cuda": cuda}
    exec("def k(a):\n    %s\n    a[0] = p[0]\n" % body, ns)
    with pytest.raises(cujit.CompileError, match=text):
        cuda.jit(ns["k"]).inspect_cuda(np.zeros(3))


TAPS = (0.25, 0.5, 0.25)
NESTED = ((1, 2), (3, 4))


def test_global_tuple_indexed_by_a_variable(launch):
    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.size:
            acc = 0.0
            for t in range(len(TAPS)):
                acc += TAPS[t] * x[(i + t) % x.size]
            out[i] = acc + (10.0, 20.0, 30.0)[i % 3]
    x = rng.standard_normal(50)
    out = np.zeros(50)
    launch(k, 2, 32, [x, out])
    want = 0.25 * x + 0.5 * np.roll(x, -1) + 0.25 * np.roll(x, -2) + 10.0 * (np.arange(50) % 3 + 1)
    np.testing.assert_allclose(out, want, rtol=1e-12)


def test_variable_index_of_a_computed_tuple_is_still_refused():
    nvrtc_or_skip()

    @cuda.jit
    def k(x):
        i = cuda.grid(1)
        x[0] = (x[1], x[2])[i]
    with pytest.raises(cujit.CompileError, match="indexed by an integer constant"):
        k.inspect_cuda(np.zeros(3))


def test_divmod_ints_and_floats(launch):
    @cuda.jit
    def k(a, b, fa, fb, iq, ir, fq, fr):
        i = cuda.grid(1)
        if i < a.size:
            q, r = divmod(a[i], b[i])
            iq[i] = q
            ir[i] = r
            t = divmod(fa[i], fb[i])
            fq[i] = t[0]
            fr[i] = t[1]
    n = 60
    a = rng.integers(-100, 100, n).astype(np.int32)
    b = (rng.integers(1, 9, n) * rng.choice([-1, 1], n)).astype(np.int32)
    fa = rng.uniform(-10, 10, n)
    fb = rng.uniform(0.5, 3, n) * rng.choice([-1, 1], n)
    outs = [np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n), np.zeros(n)]
    launch(k, 2, 32, [a, b, fa, fb] + outs)
    np.testing.assert_array_equal(outs[0], a // b)
    np.testing.assert_array_equal(outs[1], a % b)
    np.testing.assert_allclose(outs[2], fa // fb, rtol=1e-12)
    np.testing.assert_allclose(outs[3], fa % fb, rtol=1e-12)


def test_divmod_of_a_call_is_refused():
    nvrtc_or_skip()

    @cuda.jit
    def k(x):
        q, r = divmod(abs(x[0]), 3)
        x[1] = q + r
    with pytest.raises(cujit.CompileError, match="divmod.*takes values, not calls"):
        k.inspect_cuda(np.zeros(3, np.int64))


def test_argmin_argmax(launch):
    @cuda.jit
    def k(a, m, bits, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            out[i, 0] = a[i].argmax()
            out[i, 1] = a[i].argmin()
            out[i, 2] = np.argmax(m)
            out[i, 3] = m.argmin()
            out[i, 4] = bits[i].argmax()
    a = rng.standard_normal((20, 7)).astype(np.float32)
    a[3, 4] = np.nan
    a[5, [1, 2]] = a[5].max() + 1       # ties: the first
    m = rng.integers(-50, 50, (3, 4))
    bits = rng.random((20, 5)) < 0.3
    out = np.zeros((20, 5), np.int64)
    launch(k, 1, 32, [a, m, bits, out])
    np.testing.assert_array_equal(out[:, 0], a.argmax(axis=1))
    np.testing.assert_array_equal(out[:, 1], a.argmin(axis=1))
    assert (out[:, 2] == m.argmax()).all() and (out[:, 3] == m.argmin()).all()
    np.testing.assert_array_equal(out[:, 4], bits.argmax(axis=1))


def test_argmax_of_complex_is_refused():
    nvrtc_or_skip()

    @cuda.jit
    def k(z, out):
        out[0] = z.argmax()
    with pytest.raises(cujit.CompileError, match="argmax.*complex"):
        k.inspect_cuda(np.zeros(3, np.complex64), np.zeros(1, np.int64))


def test_transpose_and_nbytes(launch):
    @cuda.jit
    def k(a, f, v, out, sizes):
        i, j = cuda.grid(2)
        at = a.T
        if i < at.shape[0] and j < at.shape[1]:
            out[i, j] = at[i, j] + f.T[j, i] + v.T[(i + j) % v.size]
            a.T[i, j] = -1.0
        if i == 0 and j == 0:
            sizes[0] = a.nbytes
            sizes[1] = f.nbytes
            sizes[2] = v.nbytes
            sizes[3] = at.strides[0]
            sizes[4] = a.T.ndim
    a = rng.standard_normal((6, 9))
    f = np.asfortranarray(rng.standard_normal((9, 6)).astype(np.float32))
    v = rng.integers(0, 10, 7).astype(np.int16)
    out = np.zeros((9, 6))
    sizes = np.zeros(5, np.int64)
    a0 = a.copy()
    launch(k, (2, 2), (8, 8), [a, f, v, out, sizes])
    i, j = np.indices((9, 6))
    np.testing.assert_allclose(out, a0.T + f + v[(i + j) % 7], rtol=1e-6)
    assert (a == -1.0).all()
    np.testing.assert_array_equal(sizes, [a.nbytes, f.nbytes, v.nbytes, a.T.strides[0], 2])


def test_transpose_of_a_number_is_an_error():
    nvrtc_or_skip()

    @cuda.jit
    def k(x):
        x[0] = x[1].T
    with pytest.raises(cujit.CompileError, match=r"only arrays have .*\.T"):
        k.inspect_cuda(np.zeros(3))


def test_min_max_sum_of_tuples_and_tuple_concat(launch):
    @cuda.jit
    def k(x, n, out, iout):
        i = cuda.grid(1)
        if i < x.shape[0]:
            t = (x[i, 0], x[i, 1], x[i, 2])
            u = t + (0.5, n[i])
            out[i, 0] = min(t)
            out[i, 1] = max(u)
            out[i, 2] = sum(t) + sum(u, 10)
            out[i, 3] = len(u) + u[4] + min((x[i, 1], n[i]))
            iout[i, 0] = max(x.shape) + sum(x.shape)
            iout[i, 1] = sum((x[i, 0] > 0, x[i, 1] > 0, True))
    x = rng.standard_normal((30, 3))
    n = rng.integers(-3, 3, 30)
    out = np.zeros((30, 4))
    iout = np.zeros((30, 2), np.int64)
    launch(k, 1, 32, [x, n, out, iout])
    u = np.concatenate([x, np.full((30, 1), 0.5), n[:, None]], axis=1)
    np.testing.assert_allclose(out[:, 0], x.min(axis=1), rtol=1e-12)
    np.testing.assert_allclose(out[:, 1], u.max(axis=1), rtol=1e-12)
    np.testing.assert_allclose(out[:, 2], x.sum(axis=1) + u.sum(axis=1) + 10, rtol=1e-12)
    np.testing.assert_allclose(out[:, 3], 5 + n + np.minimum(x[:, 1], n), rtol=1e-12)
    np.testing.assert_array_equal(iout[:, 0], [30 + 33] * 30)
    np.testing.assert_array_equal(iout[:, 1], (x[:, 0] > 0) * 1 + (x[:, 1] > 0) + 1)


@pytest.mark.parametrize("body, text", [
    ("a[0] = min(a)", r"min\(\) in a kernel needs at least two arguments or a tuple"),
    ("a[0] = sum(a)", r"sum\(\) in a kernel takes a tuple of numbers.*np.sum"),
    ("a[0] = max(())", r"max\(\) arg is an empty sequence"),
    ("a[0] = min(f(a))", r"min\(\) of a tuple takes a name"),
    ("a[0] = (f(a) + (1.0,))[0]", r"joined with \+ must be a name"),
])
def test_tuple_builtin_errors(body, text):
    nvrtc_or_skip()

    @cuda.jit(device=True)
    def f(a):
        return a[0], a[1]
    ns = {"f": f}
    exec("def k(a):\n    %s\n" % body, ns)
    with pytest.raises(cujit.CompileError, match=text):
        cuda.jit(ns["k"]).inspect_cuda(np.zeros(3))


def test_numpy_real_imag_conj_angle(launch):
    @cuda.jit
    def k(z, x, c, out):
        i = cuda.grid(1)
        if i < z.size:
            c[i] = np.conj(z[i]) * np.conjugate(z[i] + 1)
            out[i, 0] = np.real(z[i]) - np.imag(z[i])
            out[i, 1] = np.angle(z[i]) + np.angle(x[i])
            out[i, 2] = np.conj(x[i]) + np.imag(x[i]) + np.real(x[i])
            out[i, 3] = np.imag(z)[i] + np.real(z)[z.size - 1 - i]
    z = rng.standard_normal(40) + 1j * rng.standard_normal(40)
    x = rng.standard_normal(40)
    c = np.zeros(40, np.complex128)
    out = np.zeros((40, 4))
    launch(k, 2, 32, [z, x, c, out])
    np.testing.assert_allclose(c, np.conj(z) * np.conj(z + 1), rtol=1e-12)
    want = np.stack([z.real - z.imag, np.angle(z) + np.angle(x), 2 * x,
                     z.imag + z.real[::-1]], axis=1)
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-15)


def test_numpy_angle_with_deg_is_refused():
    nvrtc_or_skip()

    @cuda.jit
    def k(z, out):
        out[0] = np.angle(z[0], deg=True)
    with pytest.raises(cujit.CompileError, match=r"np.angle\(\) in a kernel takes one argument"):
        k.inspect_cuda(np.zeros(2, np.complex128), np.zeros(1))


def test_index_written_from_the_end_wraps_at_run_time(launch):
    @cuda.jit
    def k(a, b, k_, out):
        i = cuda.grid(1)
        if i < a.size:
            buf = cuda.local.array(4, np.float64)
            for j in range(4):
                buf[j] = j * 10.0
            out[i, 0] = a[-i - 1]
            out[i, 1] = b[i % 3, -k_] + buf[-(i % 4) - 1]
            out[i, 2] = a[-(-i)]        # -(-i) is i: not from the end
    a = rng.standard_normal(20)
    b = rng.standard_normal((3, 5))
    out = np.zeros((20, 3))
    launch(k, 1, 32, [a, b, 2, out])
    i = np.arange(20)
    np.testing.assert_array_equal(out[:, 0], a[::-1])
    np.testing.assert_array_equal(out[:, 1], b[i % 3, -2] + 10.0 * (3 - i % 4))
    np.testing.assert_array_equal(out[:, 2], a)


def test_array_assigned_to_a_slice(launch):
    @cuda.jit
    def k(a, b, row, out):
        i = cuda.grid(1)
        if i < a.shape[0]:
            a[i, 1:3] = b[i, 0:2]
            a[i, 3:] = row
            out[i, :, :] = b[i, ::2]
            loc = cuda.local.array(4, np.int32)
            for j in range(4):
                loc[j] = i * j
            b[i, :] = loc
    a = rng.standard_normal((6, 5))
    b = rng.standard_normal((6, 4))
    row = rng.standard_normal(2).astype(np.float32)
    out = np.zeros((6, 3, 2))
    a0, b0 = a.copy(), b.copy()
    launch(k, 1, 32, [a, b, row, out])
    want = a0.copy()
    want[:, 1:3] = b0[:, 0:2]
    want[:, 3:] = row
    np.testing.assert_array_equal(a, want)
    np.testing.assert_array_equal(out, np.broadcast_to(b0[:, None, ::2], (6, 3, 2)))
    np.testing.assert_array_equal(b, np.arange(6)[:, None] * np.arange(4))


def test_complex_array_into_a_real_slice_is_refused():
    nvrtc_or_skip()

    @cuda.jit
    def k(a, z):
        a[0, :] = z[0, :]
    with pytest.raises(cujit.CompileError, match="assigning .* to a slice is not supported"):
        k.inspect_cuda(np.zeros((2, 2)), np.zeros((2, 2), np.complex128))
