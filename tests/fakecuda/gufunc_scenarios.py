"""@guvectorize without a GPU, run by tests/test_gufunc_nogpu.py in a fresh
process against the fake libcuda:

    python gufunc_scenarios.py NAME

Device memory is host memory there, and the fake driver calls
fake_launch_hook on every launch: this file compiles the launched kernel's
CUDA (from the gufunc's inspect_cuda()) for the host with the shim of
tests/test_kernels_host.py and runs it on the parameters cujit packed, so
the whole call path (layout checks, broadcasting, strides, out=, packing,
the generated kernel) is checked against NumPy on the CPU."""
import ctypes
import os
import shutil
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "gpu"))

import cujit  # noqa: E402
import test_gufunc_gpu as cases  # noqa: E402
from test_kernels_host import (ENTRY, build, host_source, param_type,  # noqa: E402
                               split_params)

FAKE = ctypes.CDLL("libcuda.so.1")
HOOK = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                        ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint))
TMP = tempfile.mkdtemp(prefix="cujit-gufunc-host-")
launched = []


def gufuncs():
    return [v for v in vars(cases).values() if isinstance(v, cujit.GUFunc)]


def source_of(name):
    for g in gufuncs():
        for src in g.inspect_cuda():
            if 'void %s(' % name in src:
                return src
    raise AssertionError("no gufunc compiled kernel " + name)


@HOOK
def on_launch(name, params, grid, block):
    name = name.decode()
    src = host_source(source_of(name))
    m = [e for e in ENTRY.finditer(src) if e.group(1) == name][0]
    nparams = len([param_type(p) for p in split_params(m.group(2))])
    lib = build(src, name, nparams, TMP)
    lib.cj_host_launch(ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p)), grid, block)
    launched.append(name)


def install():
    ctypes.c_void_p.in_dll(FAKE, "fake_launch_hook").value = ctypes.cast(on_launch,
                                                                         ctypes.c_void_p).value


def run_cases():
    install()
    try:
        for case in cases.CASES:
            case()
            print(case.__name__, "passed")
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    assert launched


def _message(fn, *args, **kw):
    try:
        fn(*args, **kw)
    except ValueError as e:
        return str(e)
    raise AssertionError("no ValueError from %r" % (fn,))


def errors():
    """Core dimension errors with NumPy's text (its own test gufuncs inner1d
    "(i),(i)->()" and matrix_multiply "(m,n),(n,p)->(m,p)", renamed)"""
    from numpy._core import _umath_tests as ut

    @cujit.guvectorize("(i),(i)->()")
    def inner1d(a, b, out):
        out[0] = a[0] * b[0]

    @cujit.guvectorize("(m,n),(n,p)->(m,p)")
    def matrix_multiply(a, b, c):
        c[0, 0] = a[0, 0] * b[0, 0]

    for g, ref, args in [
            (inner1d, ut.inner1d, (np.ones(3), np.ones(4))),
            (inner1d, ut.inner1d, (np.ones(3), np.float64(2))),
            (inner1d, ut.inner1d, (np.ones((2, 3)), np.ones((2, 4)))),
            (matrix_multiply, ut.matrix_multiply, (np.ones((2, 3)), np.ones((4, 5)))),
            (matrix_multiply, ut.matrix_multiply, (np.ones(3), np.ones((3, 5)))),
            (matrix_multiply, ut.matrix_multiply, (np.ones((2, 3)), np.ones((3, 5)),
                                                   np.empty((2, 4))))]:
        got, want = _message(g, *args), _message(ref, *args)
        assert got == want, (got, want)
    # the loop dimensions do not broadcast: NumPy's beginning
    got = _message(inner1d, np.ones((2, 3)), np.ones((4, 3)))
    want = _message(ut.inner1d, np.ones((2, 3)), np.ones((4, 3)))
    assert got.startswith(want.split(":")[0] + ": (2,3)->(2,) (4,3)->(4,)"), (got, want)
    # an output core dimension no input gives
    @cujit.guvectorize("(n)->(m)")
    def grow(x, y):
        y[0] = x[0]
    got = _message(grow, np.ones(3))
    assert got == ("grow: Output operand 0 has core dimension 0 unspecified, with gufunc "
                   "signature (n)->(m)"), got
    assert host(grow(np.ones(3), out=cujit.empty((4,), np.float64))).shape == (4,)
    # out= with another loop shape
    got = _message(inner1d, np.ones((2, 3)), np.ones(3), out=cujit.empty(1, np.float64))
    assert got == ("non-broadcastable output operand with shape (1,) doesn't match the "
                   "broadcast shape (2,)"), got
    for bad in [lambda: inner1d(np.ones(3)), lambda: inner1d(np.ones(3), np.ones(3), x=1),
                lambda: inner1d(np.ones(3), np.ones(3), out=5)]:
        try:
            bad()
        except TypeError:
            pass
        else:
            raise AssertionError("no TypeError")
    sig = cujit.guvectorize(["void(float32[:], float32[:], float32[:])"], "(n),(n)->()")(
        lambda a, b, out: None)
    try:
        sig(np.ones(3, np.complex64), np.ones(3, np.float32))
    except TypeError as e:
        assert "has no signature for inputs (complex64, float32)" in str(e), e
    else:
        raise AssertionError("no TypeError")


def host(x):
    return x if isinstance(x, np.ndarray) else cujit.asnumpy(x)


if __name__ == "__main__":
    globals()[sys.argv[1]]()
    print("%s ok" % sys.argv[1])
