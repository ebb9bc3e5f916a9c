"""Every feature of the kernel language compiles: for each CASES entry of
tests/kernels/*.py, inspect_cuda on the example arguments returns CUDA C++
that holds the case's checks, and inspect_ptx runs NVRTC on it (no GPU
needed).  A missing or broken extension fails here, loudly."""
import os
import re
import sys

import numpy as np
import pytest

import cujit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernels  # noqa: E402  (tests/kernels)


def _collect():
    cases, broken = [], []
    for name in kernels.module_names():
        try:
            mod = kernels.load(name)
        except Exception as e:          # reported by test_module_imports
            broken.append(pytest.param(name, repr(e), id=name))
            continue
        for idx, case in enumerate(mod.CASES):
            kernel, args = case[0], case[1]
            checks = case[2] if len(case) > 2 else []
            kname = kernels.kernel_name(mod, kernel)
            cases.append(pytest.param(kernel, args, checks, kname,
                                      id="%s.%s-%d" % (name, kname, idx)))
    return cases, broken


CASES, BROKEN = _collect()


@pytest.mark.parametrize("name", kernels.module_names())
def test_module_imports(name):
    kernels.load(name)


@pytest.mark.parametrize("kernel,args,checks,kname", CASES)
def test_cuda(kernel, args, checks, kname):
    src = kernel.inspect_cuda(*args)
    assert isinstance(src, str) and src.strip()
    for sub, present in checks:
        assert (sub in src) == present, "%r should %sbe in the generated CUDA:\n%s" % (
            sub, "" if present else "not ", src)


@pytest.mark.parametrize("kernel,args,checks,kname", CASES)
def test_cuda_shape(kernel, args, checks, kname):
    """The entry is extern "C" __global__ and named after the Python function;
    #line directives point into the Python file."""
    src = kernel.inspect_cuda(*args)
    assert 'extern "C"' in src and "__global__" in src
    assert kname in src or kernel_py_name(kernel) in src
    assert re.search(r'#line \d+ "[^"]*\.py"', src), "no #line into the .py file"


def kernel_py_name(kernel):
    """The Python function's own name (closures: not the module-level binding)."""
    for attr in ("__name__", "py_func", "__wrapped__", "__func__"):
        v = getattr(kernel, attr, None)
        if isinstance(v, str):
            return v
        if v is not None and getattr(v, "__name__", None):
            return v.__name__
    return "<no name>"


@pytest.mark.parametrize("kernel,args,checks,kname", CASES)
def test_ptx(kernel, args, checks, kname):
    ptx = kernel.inspect_ptx(*args)
    assert isinstance(ptx, str)
    assert ".entry" in ptx and ".version" in ptx


# ---- properties that need two compilations or the whole text ----

def test_index_width_follows_extents():
    """32-bit index arithmetic when every extent fits, 64-bit when one does not."""
    from kernels import arrays
    small = arrays.copy1d.inspect_cuda(np.zeros(16, np.float32), np.zeros(16, np.float32))
    big = arrays.copy1d.inspect_cuda(arrays.huge(np.float32), arrays.huge(np.float32))
    assert small != big


def test_device_function_specialised_per_types():
    """clamp is called with float32 and int64 arguments: two device functions."""
    from kernels import device_fns
    src = device_fns.use_clamp.inspect_cuda(
        np.zeros(4, np.float32), np.zeros(4, np.int64), np.zeros(4, np.float32),
        np.zeros(4, np.int64))
    names = set(re.findall(r"\b\w*clamp\w*\b", src))
    assert len(names) >= 2, names


def test_inspect_cuda_without_signature_lists_compiled():
    from kernels import arith
    x = np.zeros(4, np.int32)
    arith.true_division.inspect_cuda(x, x, np.zeros(4, np.float64))
    every = arith.true_division.inspect_cuda()
    assert isinstance(every, dict) and every
    assert all(isinstance(v, str) for v in every.values())


def test_compile_error_is_a_syntax_error():
    assert issubclass(cujit.CompileError, SyntaxError)
