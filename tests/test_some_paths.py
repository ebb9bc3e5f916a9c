"""A variable read where only some paths assigned it (tests/some_paths/: the
read ends with `# MAYBE`) compiles, as in Numba and cupyx.jit: it is declared
zero-initialized, and the first such read is a UserWarning naming its file,
line and variable.  So does a read that no path reaches assigned, where the
name is assigned somewhere (read_before_assign.py: Numba's "Detected
uninitialized variable"); a name assigned nowhere but by its own `x += 1` is
an error (tests/errors/unassigned_augassign.py)."""
import glob
import importlib.util
import os
import re
import warnings

import pytest

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "some_paths")
FILES = sorted(glob.glob(os.path.join(HERE, "*.py")))


def marked(path):
    """(line number, variable read) of the line marked # MAYBE"""
    with open(path) as f:
        for k, line in enumerate(f, 1):
            if "# MAYBE" in line:
                return k, re.search(r"=\s*(\w+)\s*#", line).group(1)
    raise AssertionError(path + " marks no line")


@pytest.mark.parametrize("path", FILES, ids=[os.path.basename(p)[:-3] for p in FILES])
def test_compiles_zeroed_with_a_warning(path):
    line, name = marked(path)
    spec = importlib.util.spec_from_file_location("some_paths_" + os.path.basename(path)[:-3],
                                                  path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    (kname, args), = mod.ARGS.items()
    kernel = getattr(mod, kname)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        src = kernel.inspect_cuda(*args)
    msgs = [str(w.message) for w in got if issubclass(w.category, UserWarning)]
    want = "%s:%d: variable '%s' may be used before it is assigned" % (
        os.path.basename(path), line, name)
    assert any(want in m for m in msgs), msgs
    assert re.search(r"\b%s\{\};" % name, src), src


def test_not_coarsened():
    # several elements per thread would carry one element's value of the
    # variable into the next, where it must read zero (the H100 showed it)
    import sys
    sys.path.insert(0, os.path.dirname(HERE))
    from kernels import cupyx_lang
    import numpy as np
    x = np.zeros(50, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        src = cupyx_lang.assigned_on_some_paths.inspect_cuda(x, x)
    assert src.count("__global__") == 1, src
