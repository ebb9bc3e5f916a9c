"""The floating-point kernels of tests/unseen/numba_fp.py without a GPU, run
by tests/test_unseen_numba_fp_nogpu.py in a fresh process against the fake
libcuda:

    python unseen_fp_scenarios.py OUT.json [CASE ...]

The machinery is unseen_nb_scenarios.py's (its launch hook builds each
launched kernel's CUDA for the host and runs it on the parameters cujit
packed, one host thread per CUDA thread where the kernel syncs or shares
memory); this file only walks numba_fp's cases.  OUT.json records, per case,
"ok" or the error."""
import ctypes
import os
import shutil
import sys
import traceback
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import unseen_nb_scenarios as nb  # noqa: E402
from unseen_nb_scenarios import cuda  # noqa: E402

import numba_fp  # noqa: E402  (tests/unseen is on sys.path through nb)


def main():
    out, names = sys.argv[1], sys.argv[2:]
    ctypes.c_void_p.in_dll(nb.FAKE, "fake_launch_hook").value = \
        ctypes.cast(nb.on_launch, ctypes.c_void_p).value
    mod = numba_fp.load(cuda, "cujit")
    results = {}
    warnings.simplefilter("ignore")
    try:
        for fn in mod.CASES:
            if names and fn.__name__ not in names:
                continue
            try:
                nb.run_case(mod, fn)
                results[fn.__name__] = "ok"
            except BaseException:  # noqa: B036
                results[fn.__name__] = traceback.format_exc(limit=6)[-3000:]
            print(fn.__name__, results[fn.__name__][:300], flush=True)
            nb._write(out, results)     # after each case: a crash keeps the others'
    finally:
        shutil.rmtree(nb.TMP, ignore_errors=True)
        nb._write(out, results)


if __name__ == "__main__":
    main()
