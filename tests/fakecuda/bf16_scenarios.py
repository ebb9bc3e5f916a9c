"""The bfloat16 cases of tests/gpu/test_bf16_gpu.py without a GPU, run by
tests/test_bf16_nogpu.py in a fresh process against the fake libcuda:

    python bf16_scenarios.py run_cases

tuples_scenarios.py's launch hook does the work: it compiles each launched
kernel's CUDA for the host (the shim of tests/test_kernels_host.py) and runs
it on the parameters cujit packed; here its cases are the bfloat16 ones.
So the whole path is checked against the exact references: ml_dtypes'
arrays read through their uint16 view and copied back, bfloat16 scalars
packed, and the generated code (its float32 paths: the host has no
__CUDA_ARCH__, so the bf16 instructions of sm_80 / sm_90 stay the GPU's)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "gpu"))

import tuples_scenarios as host_run  # noqa: E402
import test_bf16_gpu as cases  # noqa: E402


def run_cases():
    host_run.cases = cases
    host_run.run_cases()


if __name__ == "__main__":
    globals()[sys.argv[1]]()
    print(sys.argv[1], "ok")
