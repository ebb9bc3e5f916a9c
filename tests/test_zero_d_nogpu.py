"""0-d arrays read as their element only where Numba does (its arraydecl
typing): an integer one as an index, a store into an element, np.<dtype>(z)
of its own dtype.  What the kernels compute: tests/kernels/zero_d.py (host
shim and GPU).  Elsewhere a 0-d array stays an array, refused in arithmetic
as numba.cuda refuses it (an array result would need an allocation)."""
import numpy as np
import pytest

import cujit
from cujit import cuda


def test_float_0d_is_no_index():
    @cuda.jit
    def k(r, a, z):
        r[0] = a[z]
    with pytest.raises(cujit.CompileTypeError) as e:
        k.inspect_cuda(np.zeros(1), np.zeros(4), np.array(1.0))
    assert "float64[()]" in str(e.value), str(e.value)


def test_bool_0d_is_no_index():
    @cuda.jit
    def k(r, a, z):
        r[0] = a[z]
    with pytest.raises(cujit.CompileError):
        k.inspect_cuda(np.zeros(1), np.zeros(4), np.array(True))


def test_arithmetic_on_0d_is_refused():
    @cuda.jit
    def k(r, z):
        r[0] = z + 1
    with pytest.raises(cujit.CompileTypeError) as e:
        k.inspect_cuda(np.zeros(1), np.array(2.0))
    assert "float64[()]" in str(e.value), str(e.value)


def test_cast_to_another_dtype_is_refused():
    @cuda.jit
    def k(r, z):
        r[0] = np.int32(z)
    with pytest.raises(cujit.CompileTypeError):
        k.inspect_cuda(np.zeros(1), np.array(2, np.int64))


def test_0d_index_beside_another():
    @cuda.jit
    def k(r, a, z, j):
        r[0] = a[z, j]
    src = k.inspect_cuda(np.zeros(1), np.zeros((3, 4)), np.array(2, np.uint16), 1)
    assert "z.data[0]" in src, src
