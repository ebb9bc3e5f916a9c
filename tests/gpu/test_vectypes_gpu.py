"""CUDA vector types on the GPU (cujit.cuda.float32x4 ...): every one of
the 40 types of cujit.cuda.vector_types made from numbers and from smaller
vectors in several orders (tests/vectypes_cases.py), its lanes written
out and compared with NumPy's reordering of fresh random data; the
tests/kernels/vectypes.py kernels (device functions, casts, tuples of
vectors) run in test_kernels_gpu.py."""
import os
import sys

import numpy as np
import pytest

from cujit import cuda
from cujit.cuda import vector_types

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import vectypes_cases  # noqa: E402

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()


@pytest.mark.parametrize("name", sorted(vector_types))
def test_vector_lanes(name):
    vt = vector_types[name]
    kernel, order = vectypes_cases.make(vt)
    n = 300
    x = vectypes_cases.data(vt, n, rng)
    out = np.full((n, len(order)), 77, x.dtype)
    kernel[(n + 127) // 128, 128](x, out)
    np.testing.assert_array_equal(out, x[:, order])


def test_numba_basic():
    """Numba's test_basic: float64x4 and short2 from literals, in a kernel
    compiled for an explicit signature; the values come from random data"""
    @cuda.jit("void(float64[:], float64[:])")
    def kernel(src, arr):
        v1 = cuda.float64x4(src[0], src[1], src[2], src[3])
        v2 = cuda.short2(10, 11)
        arr[0] = v1.x
        arr[1] = v1.y
        arr[2] = v1.z
        arr[3] = v1.w
        arr[4] = v2.x
        arr[5] = v2.y

    src = rng.uniform(-5, 5, 4)
    res = np.full(6, np.nan)
    kernel[1, 1](src, res)
    np.testing.assert_array_equal(res, np.concatenate([src, [10, 11]]))
