"""Shared pytest set-up: GPU-marked tests are skipped, with the reason
printed in the header and on each skip, when cujit cannot reach a GPU; the
installed prebuilt store is off (CUJIT_NO_PREBUILT=1)."""
import functools
import os

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
