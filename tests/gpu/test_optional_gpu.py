"""Numba's Optional return values on the GPU, on fresh random data: a None
used as a value raises TypeError on the host with Numba's words ("expected
int64, got None"), naming the thread, which stops before its store while
the others finish and match Python's own result (py_func); `is None` never
raises.  The value kernels run from tests/kernels/optional.py
(test_kernels_gpu.py).  Without a GPU: tests/test_optional_nogpu.py."""
import numpy as np
import pytest

from cujit import cuda

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()


@cuda.jit(device=True)
def third_if_multiple(x):
    if x % 3 == 0:
        return x // 3


@cuda.jit
def use_directly(r, a):
    i = cuda.grid(1)
    if i < a.size:
        r[i] = third_if_multiple(a[i]) + 7


@cuda.jit
def first_is_tested(r, a):
    i = cuda.grid(1)
    if i < a.size:
        v = third_if_multiple(a[i])
        r[i] = -1 if v is None else v + 7


def test_none_used_as_value_raises_type_error():
    n = 128
    a = rng.integers(-1000, 1000, n).astype(np.int64) * 3
    bad = int(rng.integers(0, n))
    a[bad] += 1
    d = cuda.to_device(np.full(n, -77, np.int64))
    with pytest.raises(TypeError) as e:
        use_directly[1, n](d, a)
    assert "expected int64, got None" in str(e.value), str(e.value)
    assert "tid=[%d, 0, 0]" % bad in str(e.value), str(e.value)
    r = d.copy_to_host()
    ok = np.arange(n) != bad
    expect = np.array([third_if_multiple.py_func(x) + 7 for x in a[ok]], np.int64)
    np.testing.assert_array_equal(r[ok], expect)
    assert r[bad] == -77, "the raising thread must not store"


def test_is_none_first_is_tested_never_raises():
    n = 256
    a = rng.integers(-1000, 1000, n).astype(np.int64)
    assert (a % 3 != 0).any() and (a % 3 == 0).any()
    r = np.full(n, -77, np.int64)
    first_is_tested[2, 128](r, a)
    expect = [-1 if v is None else v + 7 for v in map(third_if_multiple.py_func, a)]
    np.testing.assert_array_equal(r, np.array(expect, np.int64))
