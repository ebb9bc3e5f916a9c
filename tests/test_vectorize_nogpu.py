"""@vectorize without a GPU: Python int arguments against NumPy 2's ranges
(NEP 50).  Each scenario of tests/fakecuda/scenarios.py runs in a fresh
process against the fake libcuda, where kernels compile through NVRTC but
do not run, so what is checked is what happens on the host: NumPy's
OverflowError before any launch, or a launch.  Values are checked on the GPU
(tests/gpu/test_forms_gpu.py)."""
import pytest

from test_runtime_nogpu import fake_driver, nvrtc_or_skip, run_scenario  # noqa: F401


@pytest.mark.parametrize("name", ["ints_out_of_range", "ints_in_range", "ints_float_context",
                                  "ints_compare", "ints_signature"])
def test_python_int_ranges(fake_driver, tmp_path, name):  # noqa: F811 (a fixture)
    nvrtc_or_skip()
    run_scenario(fake_driver, name, tmp_path)
