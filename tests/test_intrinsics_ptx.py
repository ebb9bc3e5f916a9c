"""Intrinsics seen in the PTX NVRTC makes (no GPU needed): cuda.fp16 and the
float16 operators as f16 instructions, fastmath=True's approximate
instructions, max / min of floats as max.f32 / min.f64, every function of
cuda.libdevice compiled in one kernel, and the error for a kernel with no
source file.  Their values are checked by tests/kernels/intrinsics.py (host
shim here, tests/gpu/test_kernels_gpu.py on a GPU)."""
import importlib.util
import math
import operator
import textwrap

import numpy as np
import pytest

import cujit
from cujit import cuda
from cujit._cujit import _intrinsics


def fp16_ops(r, a, b):
    r[0] = cuda.fp16.hadd(a, b)
    r[1] = cuda.fp16.hsub(a, b)
    r[2] = cuda.fp16.hmul(a, b)
    r[3] = cuda.fp16.hfma(a, b, a)
    r[4] = cuda.fp16.hneg(a)
    r[5] = cuda.fp16.habs(b)


def fp16_operators(r, a, b):
    r[0] = a + b
    r[1] = a - b
    r[2] = a * b
    r[3] = -a
    r[4] = abs(b)


def fp16_compare(r, a, b):
    r[0] = a > b
    r[1] = a >= b
    r[2] = a < b
    r[3] = a <= b
    r[4] = a == b
    r[5] = a != b


def fp16_hcompare(r, a, b):
    r[0] = cuda.fp16.hgt(a, b)
    r[1] = cuda.fp16.hge(a, b)
    r[2] = cuda.fp16.hlt(a, b)
    r[3] = cuda.fp16.hle(a, b)
    r[4] = cuda.fp16.heq(a, b)
    r[5] = cuda.fp16.hne(a, b)


F16_SIG = "void(float16[:], float16, float16)"
CMP_SIG = "void(bool[:], float16, float16)"
F16_INSTRUCTIONS = ["add.f16", "sub.f16", "mul.f16", "neg.f16", "abs.f16"]
CMP_INSTRUCTIONS = ["setp.gt.f16", "setp.ge.f16", "setp.lt.f16", "setp.le.f16",
                    "setp.eq.f16", "setp.neu.f16"]


@pytest.mark.parametrize("func", [fp16_ops, fp16_operators])
def test_fp16_arithmetic_instructions(func):
    ptx = cuda.jit(F16_SIG)(func).inspect_asm(F16_SIG)
    for ins in F16_INSTRUCTIONS + (["fma.rn.f16"] if func is fp16_ops else []):
        assert ins in ptx, ins


@pytest.mark.parametrize("func", [fp16_compare, fp16_hcompare])
def test_fp16_comparison_instructions(func):
    ptx = cuda.jit(CMP_SIG)(func).inspect_asm(CMP_SIG)
    for ins in CMP_INSTRUCTIONS:
        assert ins in ptx, ins


def test_fp16_mixed_promotion():
    """float16 with float32 compares in float32 (NumPy's and Numba's rule);
    with int8 it stays float16"""
    ptx = cuda.jit("void(bool[:], float16, float32)")(fp16_compare).inspect_asm(
        "void(bool[:], float16, float32)")
    assert "setp.gt.f32" in ptx and "setp.gt.f16" not in ptx
    ptx = cuda.jit("void(bool[:], float16, int8)")(fp16_compare).inspect_asm(
        "void(bool[:], float16, int8)")
    assert "setp.gt.f16" in ptx


def unary_math(r, x, y):
    r[0] = math.sin(x)
    r[1] = math.cos(x)
    r[2] = math.tanh(x)
    r[3] = math.log2(x)
    r[4] = math.sqrt(y)


def divide(r, x, y):
    r[0] = x / y


FAST_SIG = "void(float32[::1], float32, float32)"


@pytest.mark.parametrize("func, fast_only", [
    (unary_math, ["sin.approx.ftz.f32 ", "cos.approx.ftz.f32 ", "tanh.approx.f32 ",
                  "lg2.approx.ftz.f32 ", "sqrt.approx.ftz.f32 "]),
    (divide, ["div.approx.ftz.f32 "]),
])
def test_fastmath_instructions(func, fast_only):
    fast = cuda.jit(FAST_SIG, fastmath=True)(func).inspect_asm(FAST_SIG)
    prec = cuda.jit(FAST_SIG)(func).inspect_asm(FAST_SIG)
    for ins in fast_only:
        assert ins in fast, ins
        assert ins not in prec, ins
    if func is divide:
        assert "div.rn.f32" in prec and "div.rn.f32" not in fast


def test_fastmath_keeps_the_cuda_text():
    """fastmath is an NVRTC option: the same CUDA C++, another binary"""
    fast = cuda.jit(FAST_SIG, fastmath=True)(divide)
    prec = cuda.jit(FAST_SIG)(divide)
    assert fast.inspect_cuda(FAST_SIG) == prec.inspect_cuda(FAST_SIG)
    assert fast.inspect_asm(FAST_SIG) != prec.inspect_asm(FAST_SIG)


def builtin_max(a, b, c):
    i = cuda.grid(1)
    if i < len(c):
        c[i] = np.float64(max(a[i], b[i]))


def builtin_min(a, b, c):
    i = cuda.grid(1)
    if i < len(c):
        c[i] = np.float64(min(a[i], b[i]))


@pytest.mark.parametrize("left, right, width", [
    ("float64", "float64", "f64"), ("float32", "float64", "f64"),
    ("float64", "float32", "f64"), ("float32", "float32", "f32")])
@pytest.mark.parametrize("func, ins", [(builtin_max, "max"), (builtin_min, "min")])
def test_float_minmax_instructions(func, ins, left, right, width):
    sig = f"void({left}[:], {right}[:], float64[:])"
    ptx = cuda.jit(sig)(func).inspect_asm(sig)
    assert f"{ins}.{width}" in ptx


def test_int_minmax_unchanged():
    sig = "void(int32[:], int32[:], float64[:])"
    src = cuda.jit(sig)(builtin_max).inspect_cuda(sig)
    assert "cj_fmax" not in src and "cj_max" in src


def test_namespaces():
    names = _intrinsics()
    fp16 = sorted(k[5:] for k in names if k.startswith("fp16."))
    assert len(fp16) == 30 and "hadd" in fp16 and "hexp10" in fp16
    assert all(hasattr(cuda.fp16, n) for n in fp16)
    libdevice = [k[10:] for k in names if k.startswith("libdevice.")]
    assert len(libdevice) > 300
    assert all(hasattr(cuda.libdevice, n) for n in libdevice)
    with pytest.raises(RuntimeError, match="inside a @cuda.jit"):
        cuda.fp16.hadd(1, 2)
    with pytest.raises(RuntimeError, match="inside a @cuda.jit"):
        cuda.libdevice.sin(1.0)


_TYPES = {"i": "int32", "u": "uint32", "l": "int64", "L": "uint64", "w": "uint16",
          "f": "float32", "d": "float64"}


def _libdevice_module(tmp_path):
    """A kernel that calls every libdevice function once, written to a file
    (kernels need their source), arguments from arrays of each type."""
    lines = ["from cujit import cuda", "", "", "@cuda.jit",
             "def every(i4, u4, i8, u8, u2, f4, f8, out):"]
    arrays = {"i": "i4", "u": "u4", "l": "i8", "L": "u8", "w": "u2", "f": "f4", "d": "f8"}
    for name, sig in sorted(_intrinsics().items()):
        if not name.startswith("libdevice."):
            continue
        args = [arrays[c] + "[0]" for k, c in enumerate(sig[1:])
                if c != "*" and (k == 0 or sig[k] != "*")]
        call = "cuda.libdevice.%s(%s)" % (name[10:], ", ".join(args))
        if "*" in sig:
            t = "t%d" % len(lines)      # a name per tuple type
            lines.append("    %s = %s" % (t, call))
            lines.append("    out[0] += %s[0]" % t)
        elif sig[0] != "v":
            lines.append("    out[0] += " + call)
        else:
            lines.append("    " + call)
    path = tmp_path / "every_libdevice.py"
    path.write_text("\n".join(lines) + "\n")
    spec = importlib.util.spec_from_file_location("every_libdevice", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.every


def test_every_libdevice_function_compiles(tmp_path):
    """each row of the table (written from libdevice.10.bc) matches what
    NVRTC links: one kernel calls them all"""
    every = _libdevice_module(tmp_path)
    sig = ("void(int32[:], uint32[:], int64[:], uint64[:], uint16[:], float32[:], "
           "float64[:], float64[:])")
    src = every.inspect_cuda(sig)
    assert src.count('extern "C" __device__') > 300
    ptx = every.inspect_asm(sig)
    assert ".entry" in ptx


def test_libdevice_tuple_results():
    sig = "void(float64[:], float64[:], int32[:], float64[:])"
    src = cuda.jit(sig)(_libdevice_tuples).inspect_cuda(sig)
    assert 'extern "C" __device__ void __nv_sincos(double, double *, double *);' in src
    assert 'extern "C" __device__ double __nv_frexp(double, int *);' in src
    assert "__nv_sad" not in src        # only what the kernel calls is declared


def _libdevice_tuples(s, c, e, x):
    i = cuda.grid(1)
    if i < x.size:
        s[i], c[i] = cuda.libdevice.sincos(x[i])
        x[i], e[i] = cuda.libdevice.frexp(x[i])


def test_kernel_built_by_exec_compiles():
    """Numba's TestLibdeviceCompilation builds its kernels with exec(): cujit
    finds their text in its source store (tests/test_source_exec.py)"""
    ns = {}
    exec(textwrap.dedent("""
        from cujit import cuda
        def pyfunc(r0, a0):
            r0[0] = cuda.libdevice.sin(a0)
    """), ns)
    k = cuda.jit(ns["pyfunc"])
    assert "__nv_sin(" in k.inspect_cuda("void(float64[::1], float64)")


def test_operator_module_and_pow():
    """operator.add(a, b) is a + b, pow(a, b) is a ** b (no call left)"""
    sig = "void(float64[:], float64, float64)"
    src = cuda.jit(sig)(_ops).inspect_cuda(sig)
    body = src[src.index("cj__ops"):]
    assert "a + b" in body and "a * b" in body and "pow(a, b)" in body and "a < b" in body


def _ops(r, a, b):
    r[0] = operator.add(a, b) + operator.mul(a, b) + pow(a, b) + operator.neg(a)
    r[1] = operator.truediv(a, b) if operator.lt(a, b) else operator.sub(a, b)
