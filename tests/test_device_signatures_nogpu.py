"""A device function's dispatcher after the kernels that call it compiled:
its .signatures lists the argument types they called it with (Numba's
compile_device adds them to the callee's overloads), compile-time
arguments by their values' types, and .overloads[sig] gives the function
compiled on its own.  numba-cuda's test_declare_device_cabi_propagate reads
device_func.signatures[0] of a cuda.jit kernel called from another."""
import os
import subprocess
import sys
import textwrap

import numpy as np

from cujit import cuda
from cujit._overloads import DeviceOverload

rng = np.random.default_rng()


@cuda.jit(device=True)
def add2(a, b):
    return a + b


@cuda.jit
def device_func(x):         # a kernel dispatcher, called as a device function
    return add2(x, 1)


def test_signatures_after_the_caller_compiled():

    @cuda.jit
    def kernel(r, x):
        i = cuda.grid(1)
        if i < len(r):
            r[i] = device_func(x[i]) + add2(1.5, x[i])
    x = rng.integers(0, 100, 10).astype(np.int32)
    kernel.inspect_cuda(np.empty_like(x), x)
    assert "(int32)" in device_func.signatures
    assert "(int32, int64)" in add2.signatures          # 1: a compile-time int64
    assert "(float64, int32)" in add2.signatures
    assert kernel.signatures == ["(int32[::1], int32[::1])"]
    assert device_func._callee_signatures == ["(int32)"]
    ov = device_func.overloads[device_func.signatures[0]]
    assert isinstance(ov, DeviceOverload)
    assert ov.py_func is device_func.py_func and ov.name == "device_func"
    src = ov.inspect_cuda()
    assert 'extern "C" __device__' in src and "device_func" in src, src
    assert "cujit generates CUDA C++" in ov.library.get_llvm_str()
    assert ".visible .func" in ov.inspect_asm()
    ov2 = add2.overloads["(float64, int32)"]
    assert "double" in ov2.inspect_cuda()
    # a later caller with other types adds its signature, once
    @cuda.jit
    def k2(r, a, b):
        r[0] = add2(a[0], b[0])
    k2.inspect_cuda(np.zeros(1), np.zeros(1, np.float32), np.zeros(1, np.uint8))
    k2.inspect_cuda(np.zeros(1), np.zeros(1, np.float32), np.zeros(1, np.uint8))
    assert add2.signatures.count("(float32, uint8)") == 1


def test_signatures_come_back_from_the_front_key(tmp_path):
    """a second process that skips the stages (the front key's record) lists
    the callee's signatures too"""
    script = tmp_path / "callee_sigs.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        from cujit import cuda

        @cuda.jit(device=True)
        def twice(v, k):
            return v * k

        @cuda.jit
        def kern(r, a):
            r[0] = twice(a[0], 3)

        kern.inspect_cuda(np.zeros(1, np.int16), np.zeros(1, np.int16))
        print(twice.signatures)
    """))
    env = dict(os.environ, CUJIT_CACHE_DIR=str(tmp_path / "cache"), CUJIT_LOG="1")
    outs = [subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                           env=env) for _ in range(2)]
    for r in outs:
        assert r.returncode == 0, r.stderr
        assert "['(int16, int64)']" in r.stdout, r.stdout + r.stderr
    assert "front key hit" in outs[1].stderr, outs[1].stderr
