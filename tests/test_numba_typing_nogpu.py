"""cuda.jit kernels are typed by Numba's rules (typeinfer's numba_binop,
numba_strong): the result type of each operator over pairs of dtypes, as
cujit.cuda.compile_ptx(device=True) reports it, against the rules written out
in tests/numba_typing_rules.py; and the values those types give (a uint32 LCG
that does not wrap, uint8 pixels summed, booleans counted, float32 data summed
into a float64 accumulator) on the host shim.  jit.rawkernel keeps NumPy 2's
rules.  No GPU needed."""
import itertools

import numpy as np
import pytest

import numba_typing_rules as R
from cujit import cuda


def cujit_type(expr, *dtypes):
    fn = R.function(expr, len(dtypes))
    try:
        _, ret = cuda.compile_ptx(fn, tuple(getattr(cuda, "boolean" if d == "bool" else d)
                                            for d in dtypes), device=True, cc=(9, 0))
    except Exception as e:      # a refusal: compared with None
        return None, e
    return str(ret), None


# every pair for +, <<, & and /; a diagonal sample for the others
PAIRS = [(op, a, b) for op in ("add", "lshift", "and", "truediv")
         for a, b in itertools.product(R.DTYPES, R.DTYPES)]
PAIRS += [(op, a, b) for op in ("sub", "mul", "floordiv", "mod", "pow", "or", "xor", "rshift")
          for a, b in zip(R.DTYPES, R.DTYPES[3:] + R.DTYPES[:3])]


@pytest.mark.parametrize("op, a, b", PAIRS)
def test_binary_operator_type(op, a, b):
    want = R.binop(op, a, b)
    got, err = cujit_type(R.BINOPS[op], a, b)
    if want is None:
        assert got is None, f"{a} {op} {b}: Numba refuses it, cujit gave {got}"
        return
    assert got == want, f"{a} {op} {b}: {got} ({err})"


@pytest.mark.parametrize("op, a", [(op, a) for op in R.UNARY for a in R.DTYPES])
def test_unary_and_literal_type(op, a):
    want = R.unary(op, a)
    got, err = cujit_type(R.UNARY[op], a)
    if want is None:
        assert got is None
        return
    assert got == want, f"{R.UNARY[op]} of {a}: {got} ({err})"


def test_rawkernel_keeps_numpy_rules():
    from cujit import jit

    def k(out, x, y):
        out[0] = x[0] * y[0] + 1

    src = jit.rawkernel()(k).inspect_cuda(np.zeros(1, np.uint32), np.ones(1, np.uint32),
                                          np.ones(1, np.uint32))
    assert "uint64" not in src and "unsigned long long" not in src.split("{", 1)[1]


# ---- the values those types give, on the host shim ----

def lcg(out, seeds, steps):
    i = cuda.grid(1)
    if i < seeds.size:
        s = seeds[i]
        for _ in range(steps):
            s = s * np.uint32(1664525) + np.uint32(1013904223)   # uint64 in Numba
        out[i] = s % 1000003        # uint64 % int64 literal: int64, s read as signed


def gray_sum(out, img):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = (img[i, 0] + img[i, 1] + img[i, 2]) // 3     # int64, no uint8 wrap


def count_pos(out, a, b):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = (a[i] > 0) + (b[i] > 0)                       # an int64 count


def row_sum(out, a):
    i = cuda.grid(1)
    if i < out.size:
        s = 0.0                                                # float64 accumulator
        for j in range(a.shape[1]):
            s += a[i, j]
        out[i] = s


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    import test_kernels_host as H
    if H.CXX is None:
        pytest.skip("no host C++ compiler (g++ or clang++)")
    return H.host_launcher(str(tmp_path_factory.mktemp("numba-typing")))


def run(launch, fn, *args):
    n = max(a.shape[0] for a in args if isinstance(a, np.ndarray))
    launch(cuda.jit(fn), (n + 31) // 32, 32, args)


def test_values_follow_numba_types(host):
    rng = np.random.default_rng()
    n = 64
    seeds = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    out = np.zeros(n, np.uint64)
    run(host, lcg, out, seeds, 3)
    s = seeds.astype(object)
    for _ in range(3):
        s = (s * 1664525 + 1013904223) % 2**64
    signed = [v - 2**64 if v >= 2**63 else v for v in s]
    np.testing.assert_array_equal(out, np.array([v % 1000003 for v in signed], np.uint64))

    img = rng.integers(0, 256, (n, 3), dtype=np.uint8)
    g = np.zeros(n, np.int64)
    run(host, gray_sum, g, img)
    np.testing.assert_array_equal(g, img.astype(np.int64).sum(axis=1) // 3)

    a, b = rng.standard_normal(n), rng.standard_normal(n)
    c = np.zeros(n, np.int64)
    run(host, count_pos, c, a, b)
    np.testing.assert_array_equal(c, (a > 0).astype(np.int64) + (b > 0))

    m = rng.standard_normal((8, 20000)).astype(np.float32) + 1
    r = np.zeros(8, np.float64)
    run(host, row_sum, r, m)
    np.testing.assert_allclose(r, m.astype(np.float64).sum(axis=1), rtol=1e-12)
