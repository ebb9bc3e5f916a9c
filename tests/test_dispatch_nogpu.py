"""Host behaviour of Numba's dispatcher objects in cujit.cuda, without a
GPU: declared signatures of device functions (no complex to a real),
overload resolution of explicit signatures as Numba rates it (ambiguity, no
float to an integer parameter, one signature reinterpreting an array of
another dtype), and, against the fake libcuda
(tests/fakecuda/dispatch_scenarios.py, each in a fresh process), the
launches.  On the GPU: tests/gpu/test_dispatch_gpu.py."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import cujit
from cujit import cuda
from test_runtime_nogpu import fake_driver, nvrtc_or_skip  # noqa: F401

FAKE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fakecuda")


def add(x, y):
    return x + y


def add_kernel(r, x, y):
    r[0] = x + y


# ---- item: a complex argument of a device function with real signatures ----

def test_complex_to_declared_real_signature_is_a_type_error():
    """Was an internal error (complex to real conversion, codegen/expr.c)."""
    add_device = cuda.jit(["(int64, int64)", "(float64, float64)"], device=True)(add)

    @cuda.jit
    def f(r, x, y):
        r[0] = add_device(x, y)
    with pytest.raises(cujit.CompileTypeError,
                       match=r"Invalid use of type.*with parameters \(complex128, complex128\)"):
        f.inspect_cuda(np.zeros(1, np.complex128), 1j, 1j)
    assert "cj_dev_add" in f.inspect_cuda(np.zeros(1), 1.5, 2.5)


def test_complex_return_to_declared_real_is_a_type_error():
    @cuda.jit("int64(float64)", device=True)
    def d(x):
        return x * 1j

    @cuda.jit
    def k(r, x):
        r[0] = d(x)
    with pytest.raises(cujit.CompileTypeError, match="declared to return int64 but returns "
                                                     "complex128"):
        k.inspect_cuda(np.zeros(1), 1.0)


# ---- explicit signatures: Numba's overload resolution ----

def test_ambiguous_signatures_name_the_two_best():
    f = cuda.jit(["(float64[::1], float32, float64)", "(float64[::1], float64, float32)",
                  "(float64[::1], int64, int64)"])(add_kernel)
    with pytest.raises(TypeError) as e:
        f._resolve_args(np.zeros(1), 1.0, 2.0)
    assert re.match(r"Ambiguous overloading for <function add_kernel [^>]*> "
                    r"\(Array\(float64, 1, 'C', False, aligned=True\), float64, float64\):\n"
                    r"\(Array\(float64, 1, 'C', False, aligned=True\), float32, float64\) "
                    r"-> none\n"
                    r"\(Array\(float64, 1, 'C', False, aligned=True\), float64, float32\) "
                    r"-> none$", str(e.value)), str(e.value)
    a = f._resolve_args(np.zeros(1), np.float32(1), 2.0)          # exact: no tie
    assert a[1].dtype == np.float32 and a[2].dtype == np.float64
    a = f._resolve_args(np.zeros(1), 1, 2)                         # int64 exact
    assert a[1].dtype == np.int64


def test_float_to_integer_parameter_is_a_type_error():
    c = cuda.jit("(i4[::1], i4, i4)")(add_kernel)
    r = np.zeros(1, np.int32)
    for x in (12.3, np.float64(12.0), np.float32(1)):
        with pytest.raises(TypeError, match="is a float .* parameter is int32"):
            c._resolve_args(r, x, 45)
    with pytest.raises(TypeError, match="No matching definition"):
        c._resolve_args(r, 12, 45j)
    a = c._resolve_args(r, np.int64(7), True)                      # ints and bools convert
    assert a[1] == 7 and a[1].dtype == np.int32 and a[2] == 1


def test_one_signature_reinterprets_an_array_of_the_same_size():
    def sub(ary):
        ary[0, 0] -= 1
    k = cuda.jit("void(int32[:, :])")(sub)
    host = np.random.default_rng().integers(0, 32, (4, 8)).astype(np.uint32)
    v = k._resolve_args(host)[0]
    assert v.dtype == np.int32 and v.base is host and np.shares_memory(v, host)
    with pytest.raises(TypeError, match="No matching definition"):
        k._resolve_args(host.astype(np.float64))                   # another size
    with pytest.raises(TypeError, match="No matching definition"):
        k._resolve_args(host[0])                                   # another rank
    # a list of signatures chooses by type: no reinterpreting
    kl = cuda.jit(["void(int32[:, :])"])(sub)
    with pytest.raises(TypeError, match="No matching definition"):
        kl._resolve_args(host)


def test_reinterpreted_device_array_interface():
    from cujit.cuda.signatures import _Reinterpreted

    class Foreign:
        __cuda_array_interface__ = {"shape": (4,), "typestr": "<u4", "data": (4096, False),
                                    "strides": None, "version": 3}
    r = _Reinterpreted(Foreign(), np.dtype(np.int32))
    assert r.__cuda_array_interface__["typestr"] == "<i4"
    assert r.__cuda_array_interface__["data"] == (4096, False)


# ---- pickling: local functions by value ----

def test_pickle_local_kernels_by_value():
    import pickle
    k = 3

    @cuda.jit(device=True)
    def inner(a):
        return a + k

    @cuda.jit("void(intp[:])")
    def foo(arr):
        arr[0] = inner(arr[0]) + np.int64(1)
    f1 = pickle.loads(pickle.dumps(foo))
    assert f1 is not foo and f1.specialized and f1.signatures == foo.signatures
    assert f1.inspect_cuda(f1.signatures[0]) == foo.inspect_cuda(foo.signatures[0])
    f2 = pickle.loads(pickle.dumps(f1))                # again, from the rebuilt one
    assert f2.inspect_cuda(f2.signatures[0]) == foo.inspect_cuda(foo.signatures[0])

    @cuda.jit
    def lazy(arr):
        arr[0] = inner(arr[0])
    g = pickle.loads(pickle.dumps(lazy))
    assert not g.specialized and g.signatures == []
    assert "cj_dev_inner" in g.inspect_cuda(np.zeros(1, np.int64))


def test_pickle_by_value_parts():
    import pickle
    from cujit import _pickle

    def unset():
        return later      # noqa: F821  (an empty cell when pickled)
    later = None
    del later
    f = pickle.loads(pickle.dumps(_pickle.ByValue(unset)))
    assert f.__name__ == "unset" and f.__qualname__.endswith("<locals>.unset")
    with pytest.raises(NameError):
        f()

    def dflt(a, b=2, *, c=3):
        """doc"""
        return np.add(a, b) + c
    f = pickle.loads(pickle.dumps(_pickle.ByValue(dflt)))
    assert f(1) == 6 and f(1, 1, c=0) == 2 and f.__doc__ == "doc"
    assert _pickle.findable(add) and not _pickle.findable(dflt)


def test_pickle_numba_ufuncs():
    import pickle

    @cuda.vectorize(["intp(intp)", "float64(float64)"])
    def twice(x):
        return x * 2
    v = pickle.loads(pickle.dumps(twice))
    assert v is not twice and v.__name__ == "twice"
    assert v.inspect_cuda(np.arange(3)) == twice.inspect_cuda(np.arange(3))

    @cuda.guvectorize(["void(float32[:], float32[:])"], "(n)->()")
    def first(a, o):
        o[0] = a[0]
    g = pickle.loads(pickle.dumps(first))
    assert g.signature == "(n)->()" and g.__name__ == "first"


def test_cache_refuses_device_array_globals_and_link():
    import pickle

    class Dev:
        __cuda_array_interface__ = {"shape": (3,), "typestr": "<f4", "data": (4096, False),
                                    "version": 3}
    captured = Dev()
    with pytest.raises(pickle.PicklingError, match="global device arrays"):
        @cuda.jit(cache=True)
        def k(out):
            out[0] = captured[0]

    def reads(out):
        out[0] = captured[0]
    assert cuda.jit(cache=False)(reads).py_func is reads       # without cache=True: fine
    with pytest.raises(RuntimeError, match="Cannot pickle CUDACodeLibrary with linking files"):
        cuda.jit("void()", cache=True, link=["x.ptx"])(lambda: None)
    with pytest.raises(FileNotFoundError, match="link file 'x.ptx' does not exist"):
        cuda.jit("void()", link=["x.ptx"])(lambda: None)   # linked once it exists


# ---- Numba's warnings ----

def test_invalid_config_warnings():
    import warnings
    W = cuda.NumbaInvalidConfigWarning
    with pytest.warns(W, match="debug=True with opt=True is not supported by CUDA"):
        cuda.jit(debug=True)
    with pytest.warns(W, match="not supported by CUDA"):
        cuda.jit(debug=True, opt=True)
    with pytest.warns(W, match="debug and lineinfo are mutually exclusive"):
        cuda.jit(debug=True, lineinfo=True, opt=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cuda.jit(debug=True, opt=False)
        cuda.jit()
        old = cuda.config.OPT
        cuda.config.OPT = 0
        try:
            cuda.jit(debug=True)                                  # opt follows config.OPT
        finally:
            cuda.config.OPT = old
    old = cuda.config.CUDA_DEBUGINFO_DEFAULT
    cuda.config.CUDA_DEBUGINFO_DEFAULT = 1
    try:
        with pytest.warns(W, match="not supported by CUDA"):
            cuda.jit()                                            # debug follows the config
    finally:
        cuda.config.CUDA_DEBUGINFO_DEFAULT = old
    with pytest.raises(AttributeError, match="no switch 'CUDA_NOPE'"):
        cuda.config.CUDA_NOPE = 1
    assert issubclass(W, UserWarning) and cuda.NumbaPerformanceWarning is not W


def test_calling_a_gufunc_in_a_kernel_is_a_type_error():
    g = cuda.guvectorize(["void(int32[:], int32[:])"], "(n)->(n)")(lambda a, b: None)

    def k(a, b):
        return g(a, b)
    with pytest.raises(cujit.CompileTypeError, match="Untyped global name '<lambda>'"):
        cuda.jit(k).inspect_cuda(np.zeros(3, np.int32), np.zeros(3, np.int32))


# ---- against the fake libcuda ----

def run_scenario(fake_driver, name, tmp_path, **env):  # noqa: F811
    e = dict(os.environ, CUJIT_CACHE_DIR=str(tmp_path),
             LD_LIBRARY_PATH=fake_driver + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    e.pop("CUJIT_CACHE", None)
    e.update(env)
    r = subprocess.run([sys.executable, os.path.join(FAKE_DIR, "dispatch_scenarios.py"), name],
                       env=e, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, "scenario %s failed:\n%s\n%s" % (name, r.stdout[-4000:],
                                                                r.stderr[-4000:])
    assert "%s ok" % name in r.stdout
    return r


def test_fake_driver_stats_across_processes(fake_driver, tmp_path):  # noqa: F811
    nvrtc_or_skip()
    run_scenario(fake_driver, "stats", tmp_path)
    run_scenario(fake_driver, "stats_again", tmp_path)     # the same cache folder


@pytest.mark.parametrize("name", ["signatures", "pickling", "launch_warnings", "huge_grid"])
def test_fake_driver(fake_driver, tmp_path, name):  # noqa: F811
    nvrtc_or_skip()
    run_scenario(fake_driver, name, tmp_path)
