"""Launch mistakes raise before anything runs, naming what is wrong."""
import numpy as np
import pytest

import cujit
from cujit import jit

pytestmark = pytest.mark.gpu


@jit.rawkernel()
def axpy(a, x, out):
    i = jit.grid(1)
    if i < out.size:
        out[i] = a * x[i]


@jit.rawkernel()
def dyn(out):
    buf = jit.shared_memory(np.float32, None)
    buf[jit.threadIdx.x] = 1.0
    jit.syncthreads()
    out[jit.threadIdx.x] = buf[jit.threadIdx.x]


def test_argument_count_and_kind_name_the_parameter():
    x = cujit.to_device(np.random.rand(8).astype(np.float32))
    with pytest.raises(TypeError, match="parameter 'out' is missing"):
        axpy[1, 8](np.float32(2), x)
    with pytest.raises(TypeError, match="takes 3 arguments but 4"):
        axpy[1, 8](np.float32(2), x, x, x)
    with pytest.raises(TypeError, match="parameter 'x'"):
        axpy[1, 8](np.float32(2), "not an array", x)


def test_launch_configuration_checked():
    x = cujit.to_device(np.random.rand(8).astype(np.float32))
    with pytest.raises(ValueError, match="threads"):
        axpy[1, 2048](np.float32(2), x, x)
    with pytest.raises(ValueError):
        axpy[0, 32](np.float32(2), x, x)
    with pytest.raises(ValueError):
        axpy[(1, -1), 32](np.float32(2), x, x)
    with pytest.raises(ValueError, match="dynamic shared memory"):
        dyn[1, 32](x)
    out = cujit.to_device(np.full(32, np.nan, np.float32))
    dyn[1, 32, None, 32 * 4](out)
    assert (cujit.asnumpy(out) == 1).all()
