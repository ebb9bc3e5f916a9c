"""What the GPU tests of the unseen Numba corpora share (test_unseen_numba_science,
test_unseen_numba_int, test_unseen_numba_fp): a corpus module loaded once per API
(cujit.cuda, or numba-cuda where it is installed and compiles here), one case run
on fresh random data against its NumPy reference with its seed printed, and the
parametrization that marks the known differences xfail(strict=True)."""
import os
import sys
import warnings

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "unseen"))
from corpus import xfail_params as params  # noqa: E402,F401  (the tests' parametrization)


def _trivial(a):
    a[0] = 1.0


def numba_cuda_or_skip():
    """numba-cuda's cuda module, or a skip saying why it cannot run here"""
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack        # numba-cuda 0.30 still names it (gone in NumPy 2.5)
    numba_cuda = pytest.importorskip("numba.cuda")
    if not numba_cuda.is_available():
        pytest.skip("numba-cuda finds no GPU")
    try:
        numba_cuda.compile_ptx(_trivial, "void(float32[:])")
    except Exception as e:      # numba-cuda 0.30 on NumPy 2.5: np.row_stack is gone
        pytest.skip("numba-cuda cannot compile here (%s: %s)" % (type(e).__name__, e))
    return numba_cuda


class Runner:
    """runs the cases of one corpus module (its load(api, tag) gives a copy whose
    kernels see `api` as `cuda`)"""

    def __init__(self, corpus):
        self.corpus = corpus
        self.loaded = {}

    def module(self, api):
        if api not in self.loaded:
            if api == "cujit":
                from cujit import cuda
            else:
                cuda = numba_cuda_or_skip()
            self.loaded[api] = self.corpus.load(cuda, api)
        return self.loaded[api]

    def run(self, api, name):
        mod = self.module(api)
        seed = int(np.random.SeedSequence().entropy % (1 << 63))
        print("seed", seed)
        c = getattr(mod, name)()
        inputs = c.make(np.random.default_rng(seed))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # numba-cuda's warnings on small grids
            got = c.run(*inputs)
        c.verify(inputs, got)
