"""cupyx.jit spellings that need CuPy itself: cupy.float32(x) and a captured
cupy.dtype inside a kernel, launched on CuPy arrays and checked against
NumPy on fresh random data (the rest of cupyx.jit's language runs through
tests/kernels/cupyx_lang.py).  tests/conftest.py skips this module without
a GPU; these tests skip without CuPy."""
import numpy as np
import pytest

from cujit import jit

pytestmark = pytest.mark.gpu
cupy = pytest.importorskip("cupy")


@jit.rawkernel()
def cupy_casts(x, out):
    i = jit.grid(1)
    if i < x.size:
        out[i] = cupy.float32(x[i]) * 2 + cupy.dtype(cupy.float32).type(1)


def test_cupy_scalar_types_cast():
    rng = np.random.default_rng()
    x = rng.uniform(-100, 100, 1000)
    dx, dout = cupy.asarray(x), cupy.empty(1000, cupy.float32)
    cupy_casts[4, 256](dx, dout)
    cupy.cuda.runtime.deviceSynchronize()
    np.testing.assert_allclose(cupy.asnumpy(dout), x.astype(np.float32) * 2 + 1, rtol=1e-6)
