"""cujit's cuda.jit types operators as numba-cuda does: for each case of
tests/test_numba_typing_nogpu.py, numba-cuda's own compile_ptx(device=True)
result type against tests/numba_typing_rules.py and against cujit's.  Runs
where numba-cuda is installed (the GPU machine); it compiles only."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import numba_typing_rules as R                      # noqa: E402
from test_numba_typing_nogpu import PAIRS, cujit_type  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def numba_cuda():
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack        # numba-cuda 0.30 still names it (gone in NumPy 2.5)
    nc = pytest.importorskip("numba.cuda")
    return nc


def numba_type(nc, expr, *dtypes):
    from numba import types
    fn = R.function(expr, len(dtypes))
    try:
        _, ret = nc.compile_ptx(fn, tuple(getattr(types, "boolean" if d == "bool" else d)
                                          for d in dtypes), device=True, cc=(9, 0))
    except Exception:
        return None
    return str(ret)


@pytest.mark.parametrize("op, a, b", PAIRS)
def test_binary_operator_as_numba(numba_cuda, op, a, b):
    theirs = numba_type(numba_cuda, R.BINOPS[op], a, b)
    if theirs is None:
        pytest.skip(f"numba-cuda refuses {a} {op} {b}")
    assert R.binop(op, a, b) == theirs
    assert cujit_type(R.BINOPS[op], a, b)[0] == theirs


@pytest.mark.parametrize("op, a", [(op, a) for op in R.UNARY for a in R.DTYPES])
def test_unary_and_literal_as_numba(numba_cuda, op, a):
    theirs = numba_type(numba_cuda, R.UNARY[op], a)
    if theirs is None:
        pytest.skip(f"numba-cuda refuses {R.UNARY[op]} of {a}")
    assert R.unary(op, a) == theirs
    assert cujit_type(R.UNARY[op], a)[0] == theirs
