"""debug=True's exception checks (codegen/checks.c), run on the host through
test_kernels_host's shim: a zero divisor records ZeroDivisionError and ends
the thread before its store, a tuple index out of range records IndexError,
and data that trips nothing records nothing.  The thread's end (PTX `exit`)
is a C++ throw caught around each thread here.  What the host raises from
the record is tests/gpu/test_debug_checks_gpu.py's."""
import ctypes
import os
import shutil
import sys
import tempfile

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_kernels_host import (CXX, ENTRY, host_library, host_source, marshal,  # noqa: E402
                               param_type, split_params, dim3)

from cujit import cuda  # noqa: E402

pytestmark = pytest.mark.skipif(CXX is None, reason="no host C++ compiler (g++ or clang++)")

# cujit.runtime's CjErrorRecord (runtime/rt.h)
class Record(ctypes.Structure):
    _fields_ = [("flag", ctypes.c_int), ("kind", ctypes.c_int), ("line", ctypes.c_int),
                ("msg_id", ctypes.c_int), ("block", ctypes.c_uint * 3),
                ("thread", ctypes.c_uint * 3), ("index", ctypes.c_longlong),
                ("extent", ctypes.c_longlong), ("dim", ctypes.c_int), ("pad", ctypes.c_int)]


GUARD = """
template <typename... A> static void cj_guard(A... a)
{
    try { %s(a...); } catch (int) {}
}
"""


@pytest.fixture(scope="module")
def tmp():
    d = tempfile.mkdtemp(prefix="cujit-debug-")
    yield d
    shutil.rmtree(d, ignore_errors=True)


def run_host(kernel, tmp, grid, block, *args):
    """Launches on the host; the error record, or None when nothing was recorded."""
    src = kernel.inspect_cuda(*args)
    host = host_source(src).replace('asm volatile("exit;");', "throw 1;")
    m = ENTRY.search(host)
    types = [param_type(p) for p in split_params(m.group(2))]
    stem = os.path.join(tmp, "%s_%d" % (m.group(1), abs(hash(host)) % 10**8))
    lib = host_library(host + GUARD % m.group(1), "cj_guard", types, stem)
    objs = [marshal(t, a) for t, a in zip(types, args)]
    ptrs = (ctypes.c_void_p * len(objs))(*[ctypes.addressof(o) for o in objs])
    rec = Record.in_dll(lib, "cj_error")
    ctypes.memset(ctypes.addressof(rec), 0, ctypes.sizeof(rec))    # one library, many runs
    lib.cj_host_launch(ptrs, dim3(grid), dim3(block))
    return (rec, src) if rec.flag else (None, src)


def messages(src):
    return [line for line in src.splitlines() if "cj_nz(" in line or "cj_tix(" in line]


def divide(r, x, y):
    r[0] = y[0] / x[0]
    r[1] = y[0]


def test_float_division_by_zero_ends_the_thread(tmp):
    f = cuda.jit(debug=True, opt=False)(divide)
    r = np.full(2, np.nan)
    rec, src = run_host(f, tmp, 1, 1, r, np.zeros(1), np.random.uniform(1, 2, 1))
    assert rec is not None and rec.kind == 3, src
    assert rec.line == divide.__code__.co_firstlineno + 1
    assert np.isnan(r).all(), "the thread must stop before its stores"


def test_nonzero_divisor_records_nothing(tmp):
    f = cuda.jit(debug=True, opt=False)(divide)
    x, y = np.random.uniform(1, 2, 1), np.random.uniform(1, 2, 1)
    r = np.full(2, np.nan)
    rec, _ = run_host(f, tmp, 1, 1, r, x, y)
    assert rec is None
    np.testing.assert_allclose(r, [y[0] / x[0], y[0]])


def test_without_debug_no_check_and_inf():
    f = cuda.jit(divide)
    src = f.inspect_cuda(np.zeros(2), np.zeros(1), np.ones(1))
    assert not messages(src), src


def test_fastmath_skips_float_divisor_only():
    def g(r, x, y, i, j):
        r[0] = x / y
        r[1] = i // j
    f = cuda.jit(fastmath=True, debug=True, opt=False)(g)
    src = f.inspect_cuda(np.zeros(2), 1.0, 2.0, 3, 4)
    body = "\n".join(messages(src))
    assert "cj_nz(y" not in body and "cj_nz(j" in body, src


def int_floordiv(r, a, b):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = a[i] // b[i] + a[i] % b[i]


def test_integer_floordiv_by_zero_in_one_thread(tmp):
    f = cuda.jit(debug=True, opt=False)(int_floordiv)
    a = np.random.randint(-50, 50, 16).astype(np.int64)
    b = np.random.randint(1, 9, 16).astype(np.int64)
    bad = 11
    b[bad] = 0
    r = np.full(16, -77, np.int64)
    rec, src = run_host(f, tmp, 1, 16, r, a, b)
    assert rec is not None and rec.kind == 3 and rec.thread[0] == bad, src
    ok = np.arange(16) != bad
    np.testing.assert_array_equal(r[ok], (a // np.where(ok, b, 1) + a % np.where(ok, b, 1))[ok])
    assert r[bad] == -77


def shape_neg(ary, out):
    x = cuda.threadIdx.x
    out[x] = ary.shape[-x]


def test_tuple_index_from_the_end_and_out_of_range(tmp):
    f = cuda.jit(debug=True, opt=False)(shape_neg)
    ary = np.zeros((5, 7, 9))
    out = np.full(4, -77, np.int64)
    rec, src = run_host(f, tmp, 1, 4, ary, out)
    # threads 0..2 read shape[0], shape[-1], shape[-2]; thread 3's -3 is shape[0]
    np.testing.assert_array_equal(out, [5, 9, 7, 5])
    assert rec is None
    out = np.full(5, -77, np.int64)
    rec, src = run_host(f, tmp, 1, 5, ary, out)
    assert rec is not None and rec.kind == 3 and rec.thread[0] == 4, src
    assert out[4] == -77


def test_tuple_of_one_checked(tmp):
    f = cuda.jit(debug=True, opt=False)(shape_neg)
    out = np.full(3, -77, np.int64)
    rec, src = run_host(f, tmp, 1, 3, np.zeros(6), out)
    assert rec is not None and rec.thread[0] == 2, src
    np.testing.assert_array_equal(out[:2], [6, 6])
