"""Runs the cases of the cupyx.jit corpora (cupyx_kernels.py, cupyx_more.py):
the array adapters (cujit's arrays, CuPy's, NumPy's for the host shim), one
case run on fresh seeded inputs, and the comparison with its NumPy
reference; the three ways the GPU tests run a case (setup, params), and the
fake-driver run of a whole corpus the CPU tests read (fake_driver_results).
Used by tests/gpu/test_unseen_cupyx*.py, tests/test_unseen_cupyx*_nogpu.py
and tests/fakecuda/unseen_cupyx_scenarios.py."""
import importlib
import os
import sys
import types
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cupyx_kernels  # noqa: E402

CASES = cupyx_kernels.CASES
SEED = 20261125
# the corpora, by module name: each a dict CASES of name -> build(jit, cupy)
CORPORA = ("cupyx_kernels", "cupyx_more")


def cases_of(corpus):
    """the CASES of the corpus module named `corpus`"""
    if corpus not in CORPORA:
        raise ValueError("unknown cupyx corpus %r (one of %s)" % (corpus, ", ".join(CORPORA)))
    return importlib.import_module(corpus).CASES


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


def build(name, jit, cupy_module, cases=CASES):
    return cases[name](jit, cupy_module)


def run_case(name, jit, cupy_module, xp, case=None, cases=CASES):
    """(case, results, references) of one case run on xp's arrays"""
    c = case or build(name, jit, cupy_module, cases)
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


# ---- the GPU tests' three ways of running a case ----

# cujit: `from cujit import jit`, cujit's device arrays and streams, NumPy as the
# `cupy` the kernels read; cujit-cupy: cujit's jit with CuPy's arrays, streams,
# ufuncs and constants; cupyx: the peer, `from cupyx import jit` with CuPy
IMPLS = ["cujit", "cujit-cupy", "cupyx"]

# the peer's refusal both corpora meet most (CuPy 14 on the H100)
UINT32_REASON = ("cupyx.jit types threadIdx.x as uint32 and refuses the int32 that meets it "
                 "(Cannot cast from 'int32' to uint32 with casting rule same_kind)")


def _cupy_or_none():
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
    except Exception:                   # not installed, or no device it can use
        return None
    return cupy


def setup(impl):
    """(jit, the `cupy` the kernels read, array adapter) of one of IMPLS; the
    two with CuPy skip where it is not installed"""
    import pytest
    if impl == "cujit":
        from cujit import jit
        return jit, np, CujitArrays()
    cupy = _cupy_or_none()
    if cupy is None:
        pytest.skip("CuPy is not installed")
    if impl == "cujit-cupy":
        from cujit import jit
        return jit, cupy, CupyArrays()
    from cupyx import jit
    return jit, cupy, CupyArrays()


def params(cases, peer_differs):
    """(name, impl) for every case and impl; under cupyx a case of
    peer_differs (name -> (strict, reason)) is xfail"""
    import pytest
    for name in sorted(cases):
        for impl in IMPLS:
            if impl == "cupyx" and name in peer_differs:
                strict, reason = peer_differs[name]
                yield pytest.param(name, impl, marks=pytest.mark.xfail(strict=strict,
                                                                        reason=reason))
            else:
                yield pytest.param(name, impl)


# ---- the CPU tests: a corpus on the fake driver ----

def fake_driver_results(fake_driver, cache_dir, corpus="cupyx_kernels"):
    """runs every case of `corpus` through tests/fakecuda/unseen_cupyx_scenarios.py
    in a fresh process against the fake libcuda: {name: "values" | "compiled" |
    "error ..."}"""
    import subprocess
    e = dict(os.environ, CUJIT_CACHE_DIR=str(cache_dir),
             LD_LIBRARY_PATH=fake_driver + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    e.pop("CUJIT_CACHE", None)
    script = os.path.join(os.path.dirname(HERE), "fakecuda", "unseen_cupyx_scenarios.py")
    r = subprocess.run([sys.executable, script, "--corpus=" + corpus], env=e,
                       capture_output=True, text=True, timeout=1200)
    results = {}
    for line in r.stdout.splitlines():
        if line.startswith("CASE "):
            _, name, what = line.split(" ", 2)
            results[name] = what.replace("\\n", "\n")
    assert r.returncode == 0 and len(results) == len(cases_of(corpus)), \
        "the scenario process failed:\n%s\n%s" % (r.stdout[-3000:], r.stderr[-3000:])
    return results
