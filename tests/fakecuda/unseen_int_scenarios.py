"""The integer, bit, byte and image kernels of tests/unseen/numba_int.py
without a GPU, run by tests/test_unseen_numba_int_nogpu.py in a fresh
process against the fake libcuda:

    python unseen_int_scenarios.py OUT.json [CASE ...]

The machinery is unseen_nb_scenarios.py's (its launch hook builds each
launched kernel's CUDA for the host and runs it on the parameters cujit
packed, one host thread per CUDA thread where the block's threads work
together); the module of cases differs, and cuda.laneid's inline PTX
becomes the host thread's lane.  OUT.json records, per case,
"ok" or the error."""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import unseen_nb_scenarios as base  # noqa: E402  (sets the hook's machinery up)

import numba_int  # noqa: E402  (on the path unseen_nb_scenarios set)


LANEID_ASM = 'asm("mov.u32 %0, %%laneid;" : "=r"(r));'
_build = base.build


def build_with_laneid(src, name):
    """base.build, with cuda.laneid's PTX read (cj_laneid) made the host
    thread's lane in its block (the threaded shim's cj_host_lin % 32)"""
    return _build(src.replace(LANEID_ASM, "r = (int)(cj_host_lin % 32);"), name)


base.build = build_with_laneid


if __name__ == "__main__":
    np.seterr(all="ignore")
    base.run_corpus(numba_int, sys.argv)
