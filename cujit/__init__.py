"""cujit: Python functions compiled to CUDA kernels by a JIT written in C.

    from cujit import jit

    @jit.rawkernel()
    def saxpy(a, x, y, out):
        i = jit.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i]

    saxpy[blocks, 256](a, x, y, out)
"""
from cujit import _cujit
from cujit._cujit import *          # noqa: F401,F403  (Kernel, CompileError, runtime)
from cujit._cujit import CompileError, Kernel, __version__   # noqa: F401
from cujit._forms import reduce, vectorize   # noqa: F401
from cujit import jit               # noqa: F401


def is_available():
    """True when a CUDA driver and at least one GPU can be used."""
    try:
        get_device()                # noqa: F405
        return True
    except Exception:
        return False
