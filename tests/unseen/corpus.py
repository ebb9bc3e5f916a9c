"""What the unseen Numba corpora (numba_science.py, numba_int.py,
numba_fp.py) share: their loading per API, the list their @case functions
join, the Case a case function returns and its comparison with the
reference, the launch arithmetic of their host code; and the scaffolding of
their CPU tests (tests/test_unseen_numba_*_nogpu.py), which run a corpus
through a fake-driver scenario script.

It imports neither cujit nor numba (the CPU tests' part imports pytest and
the test helpers when called); every user of a corpus puts tests/unseen on
sys.path, so a corpus (loaded by its load()) finds it by `import corpus`.
The GPU tests' runner is tests/gpu/unseen_runner.py."""
import importlib.util

import numpy


def load(path, name, api):
    """A fresh copy of the corpus at `path`, named `name`, whose kernels see
    `api` (cujit.cuda, numba.cuda, Numba's simulator) as the global `cuda`,
    set before the module's code runs, as after a user's
    `from numba import cuda`; each API gets its own copy, so kernels compiled
    by one never see the other's module."""
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    mod.cuda = api
    spec.loader.exec_module(mod)
    return mod


def registry():
    """(CASES, case): a corpus's list of case functions, in the order of
    the file, and the decorator that appends to it"""
    cases = []

    def case(fn):
        cases.append(fn)
        return fn
    return cases, case


class Case:
    """One case: make(rng) the host inputs (a tuple) from a seeded
    default_rng; run(*inputs) the host code a user writes, the results (a
    tuple, or one value); ref(*inputs) NumPy's results (the same), or None
    where check judges; check(got, want, inputs) where not the comparison
    below; coop: the kernels' threads work together (syncthreads, shared
    memory written by others, shuffles), so the host shim runs one host
    thread per CUDA thread of a block.  A corpus sets its default
    tolerances (RTOL, ATOL) and may compare otherwise (compare)."""
    RTOL = ATOL = 1e-6

    def __init__(self, make, run, ref=None, rtol=None, atol=None, check=None, coop=False):
        self.make, self.run, self.ref = make, run, ref
        self.rtol = self.RTOL if rtol is None else rtol
        self.atol = self.ATOL if atol is None else atol
        self.check, self.coop = check, coop

    def verify(self, inputs, got):
        if not isinstance(got, tuple):
            got = (got,)
        want = self.ref(*inputs) if self.ref is not None else None
        if want is not None and not isinstance(want, tuple):
            want = (want,)
        if self.check is not None:
            self.check(got, want, inputs)
            return
        assert len(got) == len(want), (len(got), len(want))
        for g, w in zip(got, want):
            g = numpy.asarray(g)
            w = numpy.asarray(w)
            assert g.shape == w.shape, (g.shape, w.shape)
            self.compare(g, w)

    def compare(self, g, w):
        """one result against its reference, both arrays of one shape"""
        numpy.testing.assert_allclose(g, w, rtol=self.rtol, atol=self.atol)


class ExactCase(Case):
    """A Case whose results must equal the reference's, dtype and all,
    unless the case gives tolerances (compared in float64 then)."""
    RTOL = ATOL = 0

    def compare(self, g, w):
        if self.rtol == 0 and self.atol == 0:
            assert g.dtype == w.dtype, (g.dtype, w.dtype)
            bad = numpy.flatnonzero((g != w).ravel())
            assert bad.size == 0, "%d of %d differ, first at %d: got %r, want %r" % (
                bad.size, g.size, bad[0], g.ravel()[bad[0]], w.ravel()[bad[0]])
        else:
            numpy.testing.assert_allclose(g.astype(numpy.float64), w.astype(numpy.float64),
                                          rtol=self.rtol, atol=self.atol)


def blocks_for(n, tpb):
    return (n + tpb - 1) // tpb


# ---- the CPU tests' scaffolding ----

def xfail_params(names, xfails):
    """the case names, those in `xfails` (name -> reason) marked
    xfail(strict=True) with their reason"""
    import pytest
    return [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=xfails[n]))
            if n in xfails else n for n in names]


def host_tests(corpus, script, timeout=1200, drop_env=()):
    """The CPU tests of a corpus, for its test module to bind at module level
    (`results, test_case_on_host, test_module_has_enough_cases = ...`):
    `script` (in tests/fakecuda, run as `script OUT.json` in a fresh process
    against the fake libcuda: tests/fakecuda/unseen_nb_scenarios.py's
    run_corpus) runs every case and records "ok" or the error; a test per
    case reads its record.  The test module imports the fixture fake_driver
    (from test_runtime_nogpu).  drop_env: variables the script must not see."""
    import json
    import os
    import subprocess
    import sys

    import pytest
    from test_kernels_host import CXX
    from test_runtime_nogpu import nvrtc_or_skip

    tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    names = [fn.__name__ for fn in corpus.CASES]

    @pytest.fixture(scope="module")
    def results(fake_driver, tmp_path_factory):
        nvrtc_or_skip()
        if CXX is None:
            pytest.skip("no host C++ compiler (g++ or clang++)")
        tmp = tmp_path_factory.mktemp(script.replace("_scenarios.py", ""))
        env = dict(os.environ, CUJIT_CACHE_DIR=str(tmp / "cache"),
                   LD_LIBRARY_PATH=fake_driver + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
        for var in ("CUJIT_CACHE",) + tuple(drop_env):
            env.pop(var, None)
        out = tmp / "results.json"
        r = subprocess.run([sys.executable, os.path.join(tests, "fakecuda", script), str(out)],
                           env=env, capture_output=True, text=True, timeout=timeout)
        assert out.exists(), "the scenario ended without results:\n%s\n%s" % (
            r.stdout[-3000:], r.stderr[-3000:])
        return json.loads(out.read_text())

    @pytest.mark.parametrize("name", xfail_params(names, corpus.CUJIT_XFAIL))
    def test_case_on_host(results, name):
        assert name in results, "the case did not run"
        assert results[name] == "ok", results[name]

    def test_module_has_enough_cases():
        assert len(names) >= 40 and len(set(names)) == len(names)

    return results, test_case_on_host, test_module_has_enough_cases
