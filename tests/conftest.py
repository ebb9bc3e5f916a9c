"""Shared pytest set-up: GPU-marked tests are skipped, with the reason
printed in the header and on each skip, when cujit cannot reach a GPU; the
installed prebuilt store is off (CUJIT_NO_PREBUILT=1); a test whose kernel
faults is named as the one that lost the process's CUDA context (below)."""
import functools
import os
import sys

import pytest

# The tests do not read the installed package's prebuilt store (built where
# `make install` saw a GPU or CUJIT_PREBUILD_ARCHS): whether a first use
# compiles must not depend on it.  test_prebuilt_nogpu.py and
# gpu/test_prebuilt_gpu.py build stores of their own and turn it back on.
os.environ["CUJIT_NO_PREBUILT"] = "1"


@functools.lru_cache(maxsize=None)
def gpu_unavailable_reason():
    """None when cujit can run kernels here, else why it cannot."""
    try:
        import cujit
    except Exception as e:      # the build failed: the other tests say so loudly
        return "cujit cannot be imported (%s: %s)" % (type(e).__name__, e)
    avail = getattr(cujit, "is_available", None)
    if avail is None:
        return "cujit.is_available() does not exist yet"
    try:
        ok = avail()
    except Exception as e:
        return "cujit.is_available() raised %s: %s" % (type(e).__name__, e)
    if not ok:
        return "cujit.is_available() is False: no NVIDIA GPU or driver reachable"
    return None


def pytest_report_header(config):
    reason = gpu_unavailable_reason()
    return "cujit GPU: " + ("available" if reason is None else "not available: " + reason)


def pytest_collection_modifyitems(config, items):
    gpu_items = [it for it in items if it.get_closest_marker("gpu")]
    if not gpu_items:
        return
    reason = gpu_unavailable_reason()
    if reason is None:
        return
    skip = pytest.mark.skip(reason="needs a GPU: " + reason)
    for it in gpu_items:
        it.add_marker(skip)


# A kernel that faults (illegal address, misaligned access, a trap) leaves
# the process's CUDA context unusable: every later test in that process
# fails with the same error, and a run shows a hundred failures for one
# fault.  The first test to fail with such an error is named, and the
# process ends after its report: under pytest-xdist a fresh worker, with a
# fresh context, takes the remaining tests (xdist also names the test the
# worker "crashed" in); a plain pytest stops there instead of failing the
# rest.
STICKY_ERRORS = ("CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_MISALIGNED_ADDRESS",
                 "CUDA_ERROR_LAUNCH_FAILED", "CUDA_ERROR_ILLEGAL_INSTRUCTION",
                 "CUDA_ERROR_HARDWARE_STACK_ERROR", "CUDA_ERROR_INVALID_PC",
                 "CUDA_ERROR_INVALID_ADDRESS_SPACE", "CUDA_ERROR_ASSERT",
                 "CUDA_ERROR_LAUNCH_TIMEOUT", "CUDA_ERROR_TMA_FAILURE")
_context_lost_by = []


def pytest_runtest_logreport(report):
    # xdist's controller sees its workers' reports too (with .node): skip those
    if (report.failed and report.when == "call" and "gpu" in report.keywords
            and not _context_lost_by and getattr(report, "node", None) is None):
        text = str(report.longrepr)
        for name in STICKY_ERRORS:
            if name in text:
                _context_lost_by.append((report.nodeid, name, text))
                return


def pytest_runtest_logfinish(nodeid, location):
    """after the test's reports, outside output capture"""
    if _context_lost_by:
        nodeid, name, text = _context_lost_by[0]
        sys.stderr.write("\n%s\n\ncujit tests: %s failed with %s, which leaves this "
                         "process's CUDA context unusable; the process ends here so that "
                         "the tests after it do not fail for the same fault\n"
                         % (text, nodeid, name))
        sys.stderr.flush()
        os._exit(3)
