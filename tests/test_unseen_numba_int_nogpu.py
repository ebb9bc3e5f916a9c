"""The integer, bit, byte and image kernels of tests/unseen/numba_int.py
without a GPU: every case's host code runs unchanged under cujit.cuda
against the fake libcuda (tests/fakecuda/unseen_int_scenarios.py, one fresh
process for all cases), each launched kernel built for the host and run
there on the parameters cujit packed (one host thread per CUDA thread where
the block's threads work together); the results are checked against the
references, which compute what compiled Numba computes.  Also the
regression tests of what these kernels found in cujit."""
import os
import sys

import numpy as np
import pytest

import cujit
from cujit import cuda, jit
from test_runtime_nogpu import fake_driver, nvrtc_or_skip  # noqa: F401

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "unseen"))
import corpus  # noqa: E402
import numba_int  # noqa: E402

NAMES = [fn.__name__ for fn in numba_int.CASES]
results, test_case_on_host, _enough_cases = corpus.host_tests(numba_int,
                                                               "unseen_int_scenarios.py")


def test_module_has_enough_cases():
    _enough_cases()
    assert set(numba_int.SIM_DIFFERS) <= set(NAMES)


# ---- regressions ----

def test_bitwise_operator_of_a_float_is_a_compile_error():
    """x & 1 where Numba's typing made x a float64 (a variable assigned both
    a uint64 and an int64): Numba refuses the operator, and so does cujit,
    at the user's line (it printed `v & 1.0` for NVRTC to refuse before)"""
    nvrtc_or_skip()

    def k(a, out):
        i = cuda.grid(1)
        v = a[i] >> 1          # uint64
        if i > 3:
            v = i              # int64: v is float64
        out[i] = v & 1

    with pytest.raises(cujit.CompileTypeError, match=r"operator & needs integers or booleans, "
                       r"got float64 and int64 \(in Numba's typing a variable assigned both"):
        cuda.jit(k).inspect_cuda("void(uint32[::1], int64[::1])")

    def s(a, out):
        i = cuda.grid(1)
        out[i] = a[i] << 2

    with pytest.raises(cujit.CompileTypeError, match=r"operator << needs integers"):
        cuda.jit(s).inspect_cuda("void(float32[::1], int64[::1])")


def _popcounts(words, loop, kern):
    i = cuda.grid(1)
    if i < words.size:
        w = words[i]
        v = w
        c = 0
        while v:
            c += v & 1
            v >>= 1
        loop[i] = c
        k = 0
        while w != 0:
            w &= w - 1
            k += 1
        kern[i] = k


def test_loop_gets_its_own_version_of_a_name_read_before_it():
    """w = words[i] read (v = w) before `while w: w &= w - 1` makes it int64:
    as Numba's SSA gives the loop's phi a version of its own, the loop works
    on a copy (w_2 = w, int64) and v stays a copy of the uint32, so v >>= 1
    is uint64 (one web of w made v float64 before, then v & 1 failed)"""
    nvrtc_or_skip()
    sig = "void(uint32[::1], int32[::1], int32[::1])"
    src = cuda.jit(_popcounts).inspect_cuda(sig)
    assert "unsigned int w;" in src and "long long w_2;" in src, src
    assert "w_2 = (long long)w;" in src and "unsigned long long v;" in src, src
    assert "while (w_2 != 0LL)" in src, src
    # NumPy's typing (jit.rawkernel): w & (w - 1) stays uint32, no copy needed or made
    assert "w_2" not in jit.rawkernel()(_popcounts).inspect_cuda(sig)


def _xorshift_rows(seeds, out, first):
    i = cuda.grid(1)
    if i < seeds.shape[0]:
        x = seeds[i]
        first[i] = x >> 1
        for k in range(out.shape[1]):
            x ^= x << 13
            x ^= x >> 17
            x ^= x << 5
            out[i, k] = x
        first[i] += x & 1


def test_for_loop_copy_and_reads_after_the_loop():
    """x = seeds[i] read before a for loop that makes it uint64: the read
    before sees the uint32 (Numba's x.0), the loop and the read after it the
    loop's uint64 version; a name the loop assigns but nothing reads before
    it (k, the loop's own) gets no copy"""
    nvrtc_or_skip()
    ker = cuda.jit(_xorshift_rows)
    src = ker.inspect_cuda("void(uint32[::1], uint32[:, ::1], uint64[::1])")
    assert "x_2 = (unsigned long long)x;" in src and "unsigned int x;" in src, src
    assert "k_2" not in src, src
    assert ".target" in ker.inspect_ptx("void(uint32[::1], uint32[:, ::1], uint64[::1])")


FOLD = 1 << 20


def _fold(keys, out, flag):
    i = cuda.grid(1)
    v = keys[i]
    hi = v >> 16
    if v > FOLD:
        v = v - FOLD
    if flag[0]:
        return
    out[i] = (hi & 0xFF) + v


def _fold_both(keys, out):
    i = cuda.grid(1)
    v = keys[i]
    hi = v >> 16
    if v > FOLD:
        v = v - FOLD
    else:
        v = v + 1
    out[i] = (hi & 0xFF) + v


def test_if_gets_its_own_version_of_a_name_read_before_it():
    """v read (hi = v >> 16, a uint64) before an if rebinds it to an int64:
    the branch the outer v goes through ends with a copy (an else block made
    for it), so the if's join is a variable of its own (Numba's phi) and hi
    stays uint64 (one web made hi float64, then hi & 0xFF failed); where
    both branches assign, no copy is needed"""
    nvrtc_or_skip()
    sig = "void(uint32[::1], int64[::1], int32[::1])"
    src = cuda.jit(_fold).inspect_cuda(sig)
    assert "unsigned long long hi;" in src and "unsigned int v;" in src, src
    assert "} else {" in src and "v_2 = (long long)v;" in src, src
    assert "v_3" not in src, src
    both = cuda.jit(_fold_both).inspect_cuda("void(uint32[::1], int64[::1])")
    assert "unsigned long long hi;" in both and both.count("v_2 = ") == 2, both
    assert "v_2" not in jit.rawkernel()(_fold).inspect_cuda(sig)


def _neg_inv(a8u, b8, i32, out_u, out_s):
    i = cuda.grid(1)
    out_u[i] = -a8u[i] + ~a8u[i]
    out_s[i] = -b8[i] + -i32[i] + ~b8[i]


def test_negate_and_invert_in_the_operands_width():
    """-x and ~x of a narrow integer in a cuda.jit kernel: Numba types them
    in 64 bits but negates or inverts in x's own width first (-uint8(217) is
    39, -int8(-128) is -128); an int32's negation wraps through unsigned;
    NumPy's typing (jit.rawkernel) keeps the width, so nothing changes there"""
    nvrtc_or_skip()
    sig = "void(uint8[::1], int8[::1], int32[::1], uint64[::1], int64[::1])"
    src = cuda.jit(_neg_inv).inspect_cuda(sig)
    assert "(unsigned long long)(unsigned char)(-a8u.data[i])" in src, src
    assert "(unsigned long long)(unsigned char)(~a8u.data[i])" in src, src
    assert "(long long)(signed char)(-b8.data[i])" in src, src
    assert "(long long)(int)(0u - (unsigned)i32.data[i])" in src, src
    raw = jit.rawkernel()(_neg_inv).inspect_cuda(sig)
    assert "(unsigned char)(-a8u.data[i])" in raw and "0u - " not in raw, raw
