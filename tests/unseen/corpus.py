"""What the unseen corpora (numba_science.py, numba_int.py, numba_fp.py)
share: the Case a case function returns and its comparison with the
reference, and the launch arithmetic of their host code.  It imports
neither cujit nor numba; every user of a corpus puts tests/unseen on
sys.path, so a corpus (loaded by its load()) finds it by `import corpus`."""
import numpy


class Case:
    def __init__(self, make, run, ref=None, rtol=1e-6, atol=1e-6, check=None, coop=False):
        self.make, self.run, self.ref = make, run, ref
        self.rtol, self.atol, self.check, self.coop = rtol, atol, check, coop

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
            numpy.testing.assert_allclose(g, w, rtol=self.rtol, atol=self.atol)


def blocks_for(n, tpb):
    return (n + tpb - 1) // tpb
