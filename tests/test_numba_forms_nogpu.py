"""Numba's host-side rules for @cuda.vectorize / @cuda.guvectorize
(cujit/_numba_forms.py) without a GPU: the argument errors with Numba's
words, and, against the fake libcuda (tests/fakecuda/hostsem_scenarios.py,
each scenario in a fresh process), the cases of
tests/gpu/test_numba_forms_gpu.py run on the CPU, and outputs made on a
stream keeping the stream alive."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import cujit
from cujit import cuda
from cujit.cuda import float32, int32, void
from test_runtime_nogpu import fake_driver, nvrtc_or_skip  # noqa: F401

FAKE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fakecuda")


def copy_rows(x, y, z):
    for i in range(x.shape[0]):
        z[i] = x[i] + y[i]


def test_which_spelling_gets_which_rule():
    from cujit._numba_forms import NumbaGUFunc, NumbaUFunc
    sig = [float32(float32, float32)]
    assert isinstance(cuda.vectorize(sig)(lambda a, b: a + b), NumbaUFunc)
    assert isinstance(cujit.vectorize(sig, target="cuda")(lambda a, b: a + b), NumbaUFunc)
    plain = cujit.vectorize(sig)(lambda a, b: a + b)
    assert isinstance(plain, cujit.Vectorize)
    g = cuda.guvectorize([void(int32[:], int32[:], int32[:])], "(m),(m)->(m)")(copy_rows)
    assert isinstance(g, NumbaGUFunc) and isinstance(g.form, cujit.GUFunc)
    assert g.__name__ == "copy_rows" and g.nin == 2 and g.py_func is copy_rows
    assert isinstance(cujit.guvectorize("(m),(m)->(m)")(copy_rows), cujit.GUFunc)


def test_gufunc_argument_errors_have_numbas_words():
    g = cuda.guvectorize([void(int32[:], int32[:], int32[:])], "(m),(m)->(m)")(copy_rows)
    arr = np.arange(5, dtype=np.int32)
    with pytest.raises(TypeError) as e:
        g(arr)
    for words in ("copy_rows() takes 2 inputs", "gufunc accepts 2 positional arguments",
                  "or 3 positional arguments", "Got 1 positional argument."):
        assert words in str(e.value)
    with pytest.raises(TypeError, match="Got 4 positional arguments."):
        g(arr, arr, arr, arr)
    with pytest.raises(ValueError) as e:
        g(arr, arr, arr, out=arr)
    assert str(e.value) == "cannot specify argument 'out' as both positional and keyword"


def test_datetime_in_form_signatures_compile_over_int64():
    """datetime64 / timedelta64 in signatures: the form over int64 counts,
    its results viewed back (cujit/_dtforms.py; tests/test_packed_nogpu.py)"""
    u = cuda.vectorize(["timedelta64[D](datetime64[D], datetime64[D])"])(lambda a, b: b - a)

    def since(a, out):
        out[0] = a - a

    g = cuda.guvectorize(["void(datetime64[D], timedelta64[D][:])"], "()->()")(since)
    assert [p.text for p in u._plans] == ["int64(int64, int64)"]
    assert u._plans[0].ret == np.dtype("m8[D]")
    assert [p.text for p in g._plans] == ["void(int64, int64[:])"]


def test_called_in_a_kernel_says_what_to_do():
    g = cuda.guvectorize([void(int32[:], int32[:], int32[:])], "(m),(m)->(m)")(copy_rows)
    v = cuda.vectorize([float32(float32)])(lambda a: a + 1)

    def k_g(a, b):
        g(a, a, b)

    def k_v(a):
        a[0] = v(a[0])
    for k, text in ((k_g, "Untyped global name 'copy_rows': it is a gufunc (@cuda.guvectorize), "
                          "called from the host"), (k_v, "is a ufunc (@cuda.vectorize)")):
        with pytest.raises(cujit.CompileTypeError,
                           match=text.replace("(", r"\(").replace(")", r"\)")):
            cuda.jit(k).inspect_cuda("(int32[::1], int32[::1])" if k is k_g else "(float32[::1],)")


def test_nopython_warns_for_cuda():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        cujit.vectorize([float32(float32)], target="cuda", nopython=True)(lambda a: a)
    assert [str(x.message) for x in w] == ["nopython kwarg for cuda target is redundant"]
    assert w[0].category is RuntimeWarning


def run_scenario(fake_driver, name, tmp_path):  # noqa: F811
    e = dict(os.environ, CUJIT_CACHE_DIR=str(tmp_path),
             LD_LIBRARY_PATH=fake_driver + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    e.pop("CUJIT_CACHE", None)
    r = subprocess.run([sys.executable, os.path.join(FAKE_DIR, "hostsem_scenarios.py"), name],
                       env=e, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, "scenario %s failed:\n%s\n%s" % (name, r.stdout[-4000:],
                                                                r.stderr[-4000:])
    assert "%s ok" % name in r.stdout


@pytest.mark.parametrize("name", ["cases", "streams_outlived", "numba_streams",
                                  "dtype_views"])
def test_fake_driver(fake_driver, tmp_path, name):  # noqa: F811
    nvrtc_or_skip()
    run_scenario(fake_driver, name, tmp_path)


def test_stream_class_and_forall_message():
    assert issubclass(cuda.Stream, cujit.Stream)
    assert cuda.cudadrv.driver.Stream is cuda.Stream
    assert callable(cuda.Stream.auto_synchronize)

    @cuda.jit
    def k(x):
        x[0] = 1
    with pytest.raises(ValueError, match="Can't create ForAll with negative task count"):
        k.forall(-1)


def test_ufunc_reduce_errors():
    add = cuda.vectorize([int32(int32, int32)])(lambda a, b: a + b)
    with pytest.raises(TypeError, match="only 1-d arrays reduce"):
        add.reduce(np.zeros((2, 2), np.int32))
    with pytest.raises(TypeError, match="reduction of an empty array has no identity"):
        add.reduce(np.zeros(0, np.int32))
    one = cuda.vectorize([int32(int32)])(lambda a: a)
    with pytest.raises(TypeError, match="only a ufunc of 2 inputs reduces"):
        one.reduce(np.zeros(3, np.int32))


def dot_acc(a, b, out):
    acc = 0
    for i in range(a.shape[0]):
        acc += a[i] * b[i]
    out[0] = acc


def test_gufunc_body_follows_the_spelling():
    """Numba's gufunc types its body by Numba's rules: `acc = 0` then
    `acc += float32` accumulates in float64; cujit's own keeps NumPy's
    (float32)"""
    sig = [void(float32[:], float32[:], float32[:])]
    numba_src = cuda.guvectorize(sig, "(n),(n)->()")(dot_acc).form.inspect_cuda(0)
    own_src = cujit.guvectorize(sig, "(n),(n)->()")(dot_acc).inspect_cuda(0)
    assert "double acc;" in numba_src and "float acc;" in own_src
