"""Kernels no file holds, run on the GPU (tests/test_source_exec.py checks
their compilation without one): built by exec() from a template, as
numba's test_libdevice.py and test_ufuncs.py build theirs, and defined in
`python -c`.  Each result is compared with NumPy on fresh random data."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from cujit import cuda

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng()

TEMPLATE = """\
import math

@cuda.jit
def apply(out, x):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = math.%(fn)s(x[i]) %(op)s %(k)r
"""


@pytest.mark.parametrize("fn,op,npfn", [("sin", "+", np.sin), ("exp", "*", np.exp),
                                        ("sqrt", "-", np.sqrt)])
def test_template_kernels(fn, op, npfn):
    """Three kernels from one template (one name, one line): each runs its own
    text, not another's."""
    k = float(RNG.uniform(0.5, 2.0))
    ns = {"cuda": cuda}
    exec(TEMPLATE % dict(fn=fn, op=op, k=k), ns)
    n = 10007
    x = RNG.uniform(0.1, 3.0, n)
    out = np.zeros(n)
    ns["apply"][(n + 255) // 256, 256](out, x)
    want = {"+": npfn(x) + k, "*": npfn(x) * k, "-": npfn(x) - k}[op]
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-12)


def test_libdevice_tuple_result_from_exec():
    """numba's test_libdevice: a kernel exec'd from a template calling a
    libdevice function with a tuple result."""
    ns = {"cuda": cuda}
    exec("from cujit.cuda import libdevice\n\n"
         "def pyfunc(r0, r1, a0):\n"
         "    i = cuda.grid(1)\n"
         "    if i < a0.size:\n"
         "        r0[i], r1[i] = libdevice.sincos(a0[i])\n", ns)
    kern = cuda.jit(ns["pyfunc"])
    x = RNG.uniform(-4, 4, 4096)
    s, c = np.empty_like(x), np.empty_like(x)
    kern[16, 256](s, c, x)
    np.testing.assert_allclose(s, np.sin(x), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(c, np.cos(x), rtol=1e-12, atol=1e-15)


def test_python_c_program(tmp_path):
    """`python -c`: the kernel's text is the program (sys.orig_argv); its
    result, printed by the child, is checked against NumPy here."""
    x = RNG.random(3000).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    prog = textwrap.dedent(f"""\
        import numpy as np
        from cujit import cuda

        @cuda.jit
        def triple_plus(x, out):
            i = cuda.grid(1)
            if i < x.size:
                out[i] = 3 * x[i] + 1

        x = np.load({str(tmp_path / "x.npy")!r})
        out = np.zeros_like(x)
        triple_plus[(x.size + 127) // 128, 128](x, out)
        np.save({str(tmp_path / "out.npy")!r}, out)
        """)
    r = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True,
                       timeout=300, env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    out = np.load(tmp_path / "out.npy")
    np.testing.assert_allclose(out, np.float32(3) * x + np.float32(1), rtol=1e-6)
