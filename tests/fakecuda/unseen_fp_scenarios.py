"""The floating-point kernels of tests/unseen/numba_fp.py without a GPU, run
by tests/test_unseen_numba_fp_nogpu.py in a fresh process against the fake
libcuda:

    python unseen_fp_scenarios.py OUT.json [CASE ...]

The machinery is unseen_nb_scenarios.py's (its launch hook builds each
launched kernel's CUDA for the host and runs it on the parameters cujit
packed, one host thread per CUDA thread where the kernel syncs or shares
memory; its run_corpus walks the cases); only the module of cases differs.
OUT.json records, per case, "ok" or the error."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import unseen_nb_scenarios as nb  # noqa: E402

import numba_fp  # noqa: E402  (tests/unseen is on sys.path through nb)


if __name__ == "__main__":
    nb.run_corpus(numba_fp, sys.argv)
