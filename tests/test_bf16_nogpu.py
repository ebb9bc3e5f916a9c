"""bfloat16 without a GPU: the generated CUDA of kernels on bfloat16 values
and arrays, run on the CPU through the host shim (test_kernels_host.py's)
against exact references (bf16_ref.py) on fresh random data; the typing
(NumPy-style promotion beside float16); the PTX NVRTC makes of it; the
runtime's reading of ml_dtypes' arrays (fake driver); cuda.bf16's names
and the errors.  tests/gpu/test_bf16_gpu.py runs the same kernels on a GPU."""
import ctypes
import math
import os
import shutil
import sys
import tempfile
from fractions import Fraction

import numpy as np
import pytest

import cujit
from cujit import cuda
from cujit.cuda import bf16

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bf16_ref as ref  # noqa: E402
from test_kernels_host import (CXX, ENTRY, dim3, host_library, marshal,  # noqa: E402
                               param_type, split_params)

needs_ml = pytest.mark.skipif(ref.ml_dtypes is None, reason="ml_dtypes is not installed")
needs_cxx = pytest.mark.skipif(CXX is None, reason="no host C++ compiler (g++ or clang++)")

rng = np.random.default_rng()
N = 257


# ---- kernels (Numba's spelling) ----

def arith(out, a, b):
    i = cuda.grid(1)
    if i < a.size:
        out[0, i] = a[i] + b[i]
        out[1, i] = a[i] - b[i]
        out[2, i] = a[i] * b[i]
        out[3, i] = a[i] / b[i]
        out[4, i] = -a[i]
        out[5, i] = abs(b[i])
        x = a[i]
        x += b[i]
        out[6, i] = x


def intrinsics(out, a, b, c):
    i = cuda.grid(1)
    if i < a.size:
        out[0, i] = bf16.hadd(a[i], b[i])
        out[1, i] = bf16.hsub(a[i], b[i])
        out[2, i] = bf16.hmul(a[i], b[i])
        out[3, i] = bf16.hdiv(a[i], b[i])
        out[4, i] = bf16.hfma(a[i], b[i], c[i])
        out[5, i] = bf16.hneg(a[i])
        out[6, i] = bf16.habs(a[i])
        out[7, i] = bf16.hmax(a[i], b[i])
        out[8, i] = bf16.hmin(a[i], b[i])
        out[9, i] = bf16.hadd_sat(a[i], b[i])
        out[10, i] = bf16.hmul_sat(a[i], b[i])
        out[11, i] = bf16.hfma_relu(a[i], b[i], c[i])
        out[12, i] = bf16.hfma_sat(a[i], b[i], c[i])


def compare(out, a, b):
    i = cuda.grid(1)
    if i < a.size:
        out[0, i] = bf16.heq(a[i], b[i])
        out[1, i] = bf16.hne(a[i], b[i])
        out[2, i] = bf16.hlt(a[i], b[i])
        out[3, i] = bf16.hge(a[i], b[i])
        out[4, i] = bf16.hequ(a[i], b[i])
        out[5, i] = bf16.hneu(a[i], b[i])
        out[6, i] = bf16.hltu(a[i], b[i])
        out[7, i] = bf16.hgeu(a[i], b[i])
        out[8, i] = a[i] < b[i]
        out[9, i] = a[i] != b[i]
        out[10, i] = bf16.hisnan(a[i])
        out[11, i] = bf16.hisinf(a[i]) != 0


def from_float(out, x, d):
    i = cuda.grid(1)
    if i < x.size:
        out[0, i] = bf16.bfloat16_as_int16(bf16.float32_to_bfloat16_rn(x[i]))
        out[1, i] = bf16.bfloat16_as_int16(bf16.float32_to_bfloat16_rz(x[i]))
        out[2, i] = bf16.bfloat16_as_int16(bf16.float32_to_bfloat16_rd(x[i]))
        out[3, i] = bf16.bfloat16_as_int16(bf16.float32_to_bfloat16_ru(x[i]))
        out[4, i] = bf16.bfloat16_as_int16(bf16.float64_to_bfloat16(d[i]))
        out[5, i] = bf16.bfloat16_as_int16(bf16.bfloat16(d[i]))


def from_int64(out, v):
    i = cuda.grid(1)
    if i < v.size:
        out[0, i] = bf16.bfloat16_as_int16(bf16.int64_to_bfloat16_rn(v[i]))
        out[1, i] = bf16.bfloat16_as_int16(bf16.int64_to_bfloat16_rz(v[i]))
        out[2, i] = bf16.bfloat16_as_int16(bf16.int64_to_bfloat16_rd(v[i]))
        out[3, i] = bf16.bfloat16_as_int16(bf16.int64_to_bfloat16_ru(v[i]))
        out[4, i] = bf16.bfloat16_as_int16(bf16.bfloat16(v[i]))


def to_int32(out, a):
    i = cuda.grid(1)
    if i < a.size:
        out[0, i] = bf16.bfloat16_to_int32_rn(a[i])
        out[1, i] = bf16.bfloat16_to_int32_rz(a[i])
        out[2, i] = bf16.bfloat16_to_int32_rd(a[i])
        out[3, i] = bf16.bfloat16_to_int32_ru(a[i])
        out[4, i] = bf16.bfloat16_to_int8_rz(a[i])
        out[5, i] = bf16.bfloat16_to_uint16_ru(a[i])


def math_fns(out, a):
    i = cuda.grid(1)
    if i < a.size:
        out[0, i] = bf16.hsqrt(a[i])
        out[1, i] = bf16.hexp(a[i])
        out[2, i] = bf16.hlog(a[i])
        out[3, i] = bf16.hfloor(a[i])
        out[4, i] = bf16.htrunc(a[i])
        out[5, i] = bf16.hrint(a[i])
        out[6, i] = math.sqrt(a[i])
        out[7, i] = math.exp(a[i])


# ---- running generated CUDA on the host ----

@pytest.fixture(scope="module")
def tmp():
    d = tempfile.mkdtemp(prefix="cujit-bf16-")
    yield d
    shutil.rmtree(d, ignore_errors=True)


def run_host(fn, tmp, *args):
    """fn compiled by cuda.jit for args, its CUDA run on the CPU, a thread
    per element of the arrays' longest last extent; arrays written in place"""
    k = cuda.jit(fn)
    src = k.inspect_cuda(*args)
    m = ENTRY.search(src)
    types = [param_type(p) for p in split_params(m.group(2))]
    host = [a.view(np.uint16) if a.dtype == ref.BF16 else a for a in args]
    objs = [marshal(t, a) for t, a in zip(types, host)]
    lib = host_library(src, m.group(1), types, os.path.join(tmp, fn.__name__))
    ptrs = (ctypes.c_void_p * len(objs))(*[ctypes.addressof(o) for o in objs])
    n = max(a.shape[-1] for a in args if a.ndim)
    lib.cj_host_launch(ptrs, dim3((n + 63) // 64), dim3(64))
    return src


def bits_of(values, mode="rn"):
    return ref.bits_of_values([float(v) if not isinstance(v, Fraction) else v
                               for v in values], mode)


def exact(a):
    return [Fraction(float(v)) for v in np.asarray(a).astype(np.float64)]


# ---- semantics on the host ----

@needs_ml
@needs_cxx
def test_operators_round_once(tmp):
    a = ref.random_bf16(rng, N)
    b = ref.random_bf16(rng, N, 0.5, 50.0)
    out = ref.from_bits(np.full((7, N), 0x7FC1, np.uint16))
    src = run_host(arith, tmp, out, a, b)
    assert "cj_bf16" in src
    fa, fb = exact(a), exact(b)
    want = [[x + y for x, y in zip(fa, fb)], [x - y for x, y in zip(fa, fb)],
            [x * y for x, y in zip(fa, fb)], [x / y for x, y in zip(fa, fb)],
            [-x for x in fa], [abs(y) for y in fb], [x + y for x, y in zip(fa, fb)]]
    for row, w in enumerate(want):
        np.testing.assert_array_equal(ref.to_bits(out[row]), bits_of(w), err_msg=f"row {row}")


@needs_ml
@needs_cxx
def test_intrinsics_against_exact_results(tmp):
    a = ref.random_bf16(rng, N, -3, 3)
    b = ref.random_bf16(rng, N, 0.25, 3)
    c = ref.random_bf16(rng, N, -3, 3)
    a[:4] = ref.from_bits([0x7FC0, 0x3F80, 0xFF80, 0x0001])    # NaN, 1, -inf, a subnormal
    out = ref.from_bits(np.full((13, N), 0x7FC1, np.uint16))
    run_host(intrinsics, tmp, out, a, b, c)
    fa, fb, fc = (np.asarray(v).astype(np.float64) for v in (a, b, c))
    ex = [Fraction(x) * Fraction(y) + Fraction(z) if math.isfinite(x) else x * y + z
          for x, y, z in zip(fa, fb, fc)]

    def sat(v):
        return 0.0 if v != v else min(max(v, 0), 1)

    want = [
        fa + fb, fa - fb, fa * fb, fa / fb, ex, -fa, np.abs(fa),
        np.fmax(fa, fb), np.fmin(fa, fb),
        [sat(v) for v in fa + fb], [sat(v) for v in fa * fb],
        [v if v != v else max(v, 0) for v in ex], [sat(v) for v in ex],
    ]
    for row, w in enumerate(want):
        got = ref.to_bits(out[row])
        exp_bits = np.array([ref.round_bits(v) for v in w], np.uint16)
        nan = np.isnan(np.asarray(out[row]).astype(np.float64))
        wnan = np.array([v != v for v in w])
        np.testing.assert_array_equal(nan, wnan, err_msg=f"row {row} NaNs")
        np.testing.assert_array_equal(got[~nan], exp_bits[~nan], err_msg=f"row {row}")


@needs_ml
@needs_cxx
def test_comparisons_ordered_and_not(tmp):
    a = ref.random_bf16(rng, N, -4, 4)
    b = a.copy()
    b[::3] = ref.random_bf16(rng, len(b[::3]), -4, 4)
    a[:3] = ref.from_bits([0x7FC0, 0x7F80, 0xFF80])             # NaN, inf, -inf
    out = np.zeros((12, N), np.bool_)
    run_host(compare, tmp, out, a, b)
    x, y = np.asarray(a).astype(np.float64), np.asarray(b).astype(np.float64)
    un = np.isnan(x) | np.isnan(y)
    want = [x == y, (x < y) | (x > y), x < y, x >= y, (x == y) | un, x != y,
            (x < y) | un, (x >= y) | un, x < y, x != y, np.isnan(x), np.isinf(x)]
    for row, w in enumerate(want):
        np.testing.assert_array_equal(out[row], w, err_msg=f"row {row}")


@needs_ml
@needs_cxx
def test_from_float_in_each_rounding_mode(tmp):
    x = rng.uniform(-1e4, 1e4, N).astype(np.float32)
    d = rng.uniform(-1e4, 1e4, N)
    # halfway cases and a double just off one (float32 would round it onto the tie)
    x[:2] = [np.float32(1 + 2 ** -8), np.float32(-(1 + 3 * 2 ** -8))]
    d[:2] = [1 + 2 ** -8 + 2 ** -40, 1 + 2 ** -8]
    out = np.zeros((6, N), np.int16)
    run_host(from_float, tmp, out, x, d)
    for row, mode in enumerate(("rn", "rz", "rd", "ru")):
        np.testing.assert_array_equal(out[row].view(np.uint16),
                                      bits_of(x.astype(np.float64), mode), err_msg=mode)
    fd = [Fraction(float(v)) for v in d]
    np.testing.assert_array_equal(out[4].view(np.uint16), bits_of(fd))
    np.testing.assert_array_equal(out[5].view(np.uint16), bits_of(fd))
    assert out[4, 0].view(np.uint16) == 0x3F81     # the double above the tie goes up


@needs_ml
@needs_cxx
def test_from_int64_in_each_rounding_mode(tmp):
    v = rng.integers(-2 ** 62, 2 ** 62, N, dtype=np.int64)
    v[:3] = [2 ** 62 + 2 ** 54 + 1, -(2 ** 40 + 2 ** 32), 789]    # just above a tie; a tie
    out = np.zeros((5, N), np.int16)
    run_host(from_int64, tmp, out, v)
    for row, mode in enumerate(("rn", "rz", "rd", "ru", "rn")):
        np.testing.assert_array_equal(out[row].view(np.uint16),
                                      ref.bits_of_values([int(i) for i in v], mode),
                                      err_msg=f"row {row}")


@needs_ml
@needs_cxx
def test_to_integers_saturate_and_round(tmp):
    a = ref.random_bf16(rng, N, -1e3, 1e3)
    a[:4] = ref.from_bits([0x7FC0, 0x7F80, 0xFF80, 0x4F80])     # NaN, inf, -inf, 2^32
    out = np.zeros((6, N), np.int64)
    run_host(to_int32, tmp, out, a)
    for row, (dt, mode) in enumerate([(np.int32, "rn"), (np.int32, "rz"), (np.int32, "rd"),
                                      (np.int32, "ru"), (np.int8, "rz"), (np.uint16, "ru")]):
        np.testing.assert_array_equal(out[row], ref.to_int(a, dt, mode), err_msg=f"row {row}")


@needs_ml
@needs_cxx
def test_math_within_one_ulp(tmp):
    a = ref.random_bf16(rng, N, 0.01, 20)
    out = ref.from_bits(np.full((8, N), 0x7FC1, np.uint16))
    run_host(math_fns, tmp, out, a)
    f = np.asarray(a).astype(np.float64)
    want = [np.sqrt(f), np.exp(f), np.log(f), np.floor(f), np.trunc(f), np.rint(f),
            np.sqrt(f), np.exp(f)]
    for row, w in enumerate(want):
        got = ref.to_bits(out[row]).astype(np.int32)
        exp_bits = ref.bits_of_values([float(v) for v in w]).astype(np.int32)
        assert np.max(np.abs(got - exp_bits)) <= 1, f"row {row}"


# ---- typing: NumPy's promotion with bfloat16 beside float16 ----

def promote(out, a, b):
    x = a[0] + b[0]
    out[0] = x


@needs_ml
@pytest.mark.parametrize("other, result", [
    (np.int8, "cj_bf16"), (np.uint8, "cj_bf16"), (np.bool_, "cj_bf16"), (None, "cj_bf16"),
    (np.int16, "float"), (np.float16, "float"), (np.float32, "float"),
    (np.int32, "double"), (np.float64, "double")])
def test_promotion(other, result):
    a = np.ones(2, ref.BF16)
    b = np.ones(2, other) if other is not None else 2.5
    if other is None:
        def weak(out, a, b):
            x = a[0] * 2.5 + 1      # Python literals are weak (NEP 50) in cujit's dialect
            out[0] = x
        src = cujit.jit.rawkernel()(weak).inspect_cuda(np.zeros(1), a, b)
    else:
        src = cuda.jit(promote).inspect_cuda(np.zeros(1), a, b)
    assert f"{result} x;" in src


@needs_ml
def test_literal_is_float64_in_cuda_jit():
    """Numba types a Python float as float64, so bfloat16 * 2.5 + 1 is a
    float64 in a cuda.jit kernel (numba-cuda's compile_ptx says float64)"""
    def strong(out, a):
        x = a[0] * 2.5 + 1
        out[0] = x
    src = cuda.jit(strong).inspect_cuda(np.zeros(1), np.ones(2, ref.BF16))
    assert "double x;" in src


# ---- isinstance() with number types: a constant of the value's type ----

def types_of(out, a, i):
    x = bf16.bfloat16(a[i])
    out[0] = isinstance(x, bf16.nv_bfloat16)
    out[1] = isinstance(a[i], cuda.types.bfloat16)
    out[2] = isinstance(i, (cuda.types.float32, cuda.types.int64))
    out[3] = isinstance(1.5, np.float32)
    out[4] = isinstance(a[i] + 1.0, (np.float32, np.float64))


@needs_cxx
def test_isinstance_is_a_constant(tmp):
    out = np.full(5, 7, np.int32)
    a = np.arange(3, dtype=np.float32)
    run_host(types_of, tmp, out, a, np.int64(1))
    np.testing.assert_array_equal(out, [1, 0, 1, 0, 1])


def isinstance_of_value(out):
    out[0] = isinstance(out[0], 3)


def test_isinstance_needs_types():
    with pytest.raises(cujit.CompileError, match=r"isinstance\(\) in a kernel takes a number "
                       r"type or a tuple of them"):
        cuda.jit(isinstance_of_value).inspect_cuda(np.zeros(1))


# ---- PTX ----

def ops(out, a, b, c):
    out[0] = a[0] + b[0]
    out[1] = a[0] - b[0]
    out[2] = a[0] * b[0]
    out[3] = bf16.hfma(a[0], b[0], c[0])


def test_ptx_uses_the_bf16_instructions_where_the_arch_has_them():
    sig = "void(bfloat16[::1], bfloat16[::1], bfloat16[::1], bfloat16[::1])"
    k = cuda.jit(sig)(ops)
    ptx90 = k.inspect_ptx(sig, arch="sm_90") if _takes_arch(k) else k.inspect_ptx(sig)
    # .rn written out: without it ptxas may fuse a mul and an add into one fma,
    # one rounding where NumPy (and the host) round twice (seen on the H100)
    for ins in ("add.rn.bf16", "sub.rn.bf16", "mul.rn.bf16", "fma.rn.bf16"):
        assert ins in ptx90, ins
    if _takes_arch(k):
        ptx80 = k.inspect_ptx(sig, arch="sm_80")
        assert "fma.rn.bf16" in ptx80 and "add.rn.bf16" not in ptx80
        ptx70 = k.inspect_ptx(sig, arch="sm_70")     # no bf16 instruction at all
        assert ".bf16" not in ptx70


def _takes_arch(k):
    import inspect
    try:
        return "arch" in inspect.signature(k.inspect_ptx).parameters
    except (TypeError, ValueError):
        return False


def test_signature_strings_name_bfloat16():
    k = cuda.jit("void(bfloat16[:], bfloat16)")(lambda a, x: None)
    assert "cj_array<cj_bf16" in k.inspect_cuda("void(bfloat16[:], bfloat16)")


# ---- the runtime: ml_dtypes' arrays ----

@needs_ml
def test_dtype_objects_and_scalars_map_to_bfloat16():
    assert cuda.types.bfloat16.bitwidth == 16
    assert np.dtype(cuda.types.bfloat16) == ref.BF16
    assert bf16.bfloat16 is bf16.nv_bfloat16 is cuda.types.bfloat16
    assert cuda.typeof(ref.ml_dtypes.bfloat16(1.5)) is cuda.types.bfloat16
    assert cuda.typeof(np.ones(3, ref.BF16)) == cuda.types.bfloat16[::1]
    assert float(bf16.bfloat16(3.14)) == pytest.approx(3.140625)


@needs_ml
def test_kernel_takes_a_bfloat16_scalar_and_array():
    def k(out, a, s):
        out[0] = a[0] * s
    src = cuda.jit(k).inspect_cuda(np.ones(1, ref.BF16), np.ones(3, ref.BF16),
                                   ref.ml_dtypes.bfloat16(2.0))
    assert "cj_bf16 s" in src or "cj_bf16 s)" in src


# ---- names and errors ----

NUMBA_NAMES = """bfloat16 habs hadd hsub hmul hadd_rn hsub_rn hmul_rn hdiv hadd_sat hsub_sat
hmul_sat hfma hfma_sat hneg hfma_relu heq hne hge hgt hle hlt hmax hmin hmax_nan hmin_nan
hisnan hisinf hequ hneu hgeu hgtu hleu hltu bfloat16_to_int8_rz bfloat16_to_uint8_rz
bfloat16_as_int16 int16_as_bfloat16 bfloat16_as_uint16 uint16_as_bfloat16
bfloat16_to_float32 float32_to_bfloat16 float64_to_bfloat16 htrunc hceil hfloor hrint hsqrt
hrsqrt hrcp hlog hlog2 hlog10 hcos hsin hexp hexp2 hexp10 htanh htanh_approx nv_bfloat16
__hadd __float2bfloat16_rz""".split()


def test_numbas_names_are_there():
    missing = [n for n in NUMBA_NAMES if not hasattr(bf16, n)]
    for t in ("int16", "uint16", "int32", "uint32", "int64", "uint64"):
        for m in ("rn", "rz", "rd", "ru"):
            for n in (f"{t}_to_bfloat16_{m}", f"bfloat16_to_{t}_{m}"):
                if not hasattr(bf16, n):
                    missing.append(n)
    assert not missing
    with pytest.raises(RuntimeError, match="inside a @cuda.jit"):
        bf16.hadd(1, 2)
    from cujit.cuda.bf16 import hadd  # noqa: F401  (numba.cuda.bf16's module path)


def wrong_count(out, a):
    out[0] = bf16.hadd(a[0])


def complex_arg(out, a):
    out[0] = bf16.habs(a[0] + 1j)


def sum_bf16(out, a):
    out[0] = np.sum(a)


@needs_ml
@pytest.mark.parametrize("fn, msg", [
    (wrong_count, r"bf16.hadd\(\) expects 2 arguments, got 1"),
    (complex_arg, r"bf16.habs\(\) needs a real number"),
    (sum_bf16, r"not float16, bfloat16 or records"),
])
def test_errors(fn, msg):
    with pytest.raises(cujit.CompileError, match=msg):
        cuda.jit(fn).inspect_cuda(np.zeros(1, ref.BF16), np.ones(3, ref.BF16))


# ---- tests/gpu/test_bf16_gpu.py's cases through the fake driver ----

@needs_ml
@needs_cxx
def test_gpu_cases_on_host(tmp_path_factory, tmp_path):
    import subprocess
    from test_runtime_nogpu import FAKE_DIR, build_shared, nvrtc_or_skip
    nvrtc_or_skip()
    fake = build_shared(tmp_path_factory, "the fake libcuda", "fakecuda.c", "libcuda.so.1")
    e = dict(os.environ, CUJIT_CACHE_DIR=str(tmp_path),
             LD_LIBRARY_PATH=fake + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    e.pop("CUJIT_CACHE", None)
    r = subprocess.run([sys.executable, os.path.join(FAKE_DIR, "bf16_scenarios.py"),
                        "run_cases"], env=e, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    assert "run_cases ok" in r.stdout
    assert r.stdout.count(" passed") == 11, r.stdout
