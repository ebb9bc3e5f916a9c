"""The feature corpus: one module per theme of the kernel language.

Every module defines kernels and two lists:

CASES  -- ``(kernel, example_args)`` or ``(kernel, example_args, checks)``.
          ``example_args`` is a tuple of fresh NumPy arrays / NumPy or Python
          scalars (host data), or a 1-tuple holding a signature string.
          ``checks`` is a list of ``(substring, present)`` asserted on the CUDA
          C++ that ``kernel.inspect_cuda(*example_args)`` returns.
          tests/test_features.py compiles every case to CUDA and to PTX.

RUN    -- ``(kernel, grid, block, args_factory, reference)`` with an optional
          sixth item, a dict of options (below).  ``args_factory()`` returns a
          fresh tuple of launch arguments (outputs poisoned with NaN or a
          sentinel, never zeros).  ``reference(*args)`` is called on copies of
          those arguments *before* the launch and returns
          ``{argument_position: expected}`` for the outputs only; ``expected``
          is an array, or a callable that takes the array read back after the
          launch and raises AssertionError when it is wrong.
          Options: ``shared_mem`` (bytes of dynamic shared memory),
          ``rtol`` / ``atol`` (override the per-dtype tolerances),
          ``stdout`` (a callable given the captured standard output),
          ``kinds`` (the array kinds to run with, default all of them).
          tests/gpu/test_kernels_gpu.py launches each entry with
          ``kernel[grid, block](*args)``.
"""
import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def module_names():
    return sorted(f[:-3] for f in os.listdir(HERE)
                  if f.endswith(".py") and not f.startswith("_"))


def load(name):
    """Imports tests/kernels/<name>.py as kernels.<name>."""
    parent = os.path.dirname(HERE)
    if parent not in sys.path:
        sys.path.insert(0, parent)
    return importlib.import_module("kernels." + name)


def kernel_name(module, kernel):
    """The module-level name a kernel object is bound to (for test ids)."""
    for k, v in vars(module).items():
        if v is kernel:
            return k
    return getattr(kernel, "__name__", type(kernel).__name__)
