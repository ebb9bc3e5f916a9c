"""Runs the cases of cupyx_kernels.py: the array adapters (cujit's arrays,
CuPy's, NumPy's for the host shim), one case run on fresh seeded inputs, and
the comparison with its NumPy reference.  Used by
tests/gpu/test_unseen_cupyx.py, tests/test_unseen_cupyx_nogpu.py and
tests/fakecuda/unseen_cupyx_scenarios.py."""
import os
import sys
import types
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cupyx_kernels  # noqa: E402

CASES = cupyx_kernels.CASES
SEED = 20261125


class _NoStream:
    def synchronize(self):
        pass


class HostArrays:
    """NumPy arrays in place: for the host shim, which runs the kernel on them"""
    name = "numpy"

    @staticmethod
    def asarray(a):
        return a

    @staticmethod
    def asnumpy(a):
        return np.asarray(a)

    Stream = _NoStream

    @staticmethod
    def sync():
        pass


class CujitArrays:
    """cujit.DeviceArrays, cujit.Stream"""
    name = "cujit"

    def __init__(self):
        import cujit
        self.cujit = cujit
        self.Stream = cujit.Stream

    def asarray(self, a):
        return self.cujit.to_device(a)

    def asnumpy(self, a):
        return a.copy_to_host()

    def sync(self):
        self.cujit.synchronize()


class CupyArrays:
    """cupy.ndarrays, cupy.cuda.Stream"""
    name = "cupy"

    def __init__(self):
        import cupy
        self.cupy = cupy
        self.Stream = cupy.cuda.Stream

    def asarray(self, a):
        return self.cupy.asarray(a)

    def asnumpy(self, a):
        return self.cupy.asnumpy(a)

    def sync(self):
        self.cupy.cuda.Device().synchronize()


def build(name, jit, cupy_module):
    return CASES[name](jit, cupy_module)


def run_case(name, jit, cupy_module, xp, case=None):
    """(case, results, references) of one case run on xp's arrays"""
    c = case or build(name, jit, cupy_module)
    rng = np.random.default_rng(SEED + zlib.crc32(name.encode()))
    h = c.inputs(rng)
    d = {k: xp.asarray(v.copy()) if isinstance(v, np.ndarray) else v for k, v in h.items()}
    outs = c.run(xp, d)
    xp.sync()
    got = {k: xp.asnumpy(v) for k, v in outs.items()}
    return c, got, c.ref(h)


def check(c, got, want):
    assert sorted(got) == sorted(want)
    for k in want:
        g, w = np.asarray(got[k]), np.asarray(want[k])
        if k in c.canon:
            g, w = c.canon[k](g), c.canon[k](w)
        assert g.shape == w.shape, "%s: shape %s, expected %s" % (k, g.shape, w.shape)
        if g.dtype.kind in "fc" or w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=c.rtol, atol=c.atol, equal_nan=True,
                                       err_msg="output %r" % k)
        else:
            np.testing.assert_array_equal(g, w, err_msg="output %r" % k)


class HostKernel:
    """A kernel whose launches (both forms) run its CUDA on the CPU through
    tests/test_kernels_host.py's shim, one thread after another."""

    def __init__(self, kernel, launch):
        self.kernel, self.launch = kernel, launch

    def __getitem__(self, grid_block):
        grid, block = grid_block
        return lambda *args, **kw: self(grid, block, args, **kw)

    def __call__(self, grid, block, args, shared_mem=0, stream=None):
        self.launch(self.kernel, grid, block, list(args), shared_mem)


def host_jit(launch):
    """cujit's jit module with rawkernel() giving HostKernels (device
    functions stay cujit's): a module object, so that kernels read
    jit.grid & co. from it as from cujit.jit itself"""
    from cujit import jit as real
    m = types.ModuleType("cujit_host_jit")
    m.__dict__.update({k: getattr(real, k) for k in dir(real) if not k.startswith("__")})

    def rawkernel(*a, **kw):
        deco = real.rawkernel(*a, **kw)
        if kw.get("device"):
            return deco
        return lambda f: HostKernel(deco(f), launch)
    m.rawkernel = rawkernel
    return m
