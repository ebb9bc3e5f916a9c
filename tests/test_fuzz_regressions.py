"""Bugs the fuzzer (fuzz/) found, one test each; the unit it found them in is
named beside the test (python3 fuzz/fuzz.py --replay SEED UNIT shows it)."""
import math
import re

import numpy as np
import pytest

import cujit
from cujit import jit


@jit.rawkernel()
def one_arg(a):
    pass


@pytest.mark.parametrize("value", [np.void(b"ab")])
def test_numpy_non_number_scalars_are_refused(value):
    """seed 1, unit 262: a datetime64 argument was read as a buffer whose
    exporter leaves strides NULL, and cujit read through them (segfault)"""
    with pytest.raises(TypeError, match="NumPy scalars of type numpy\\.%s are not supported"
                       % type(value).__name__):
        one_arg.inspect_cuda(value)


@pytest.mark.parametrize("value", [np.datetime64("2020-01-01"), np.timedelta64(3, "s")])
def test_numpy_datetime_scalars_are_int64_counts(value):
    """the same scalars of unit 262 are now their int64 counts (Numba's
    kernels take them): typed int64, never read as arrays"""
    assert "// for (int64)" in one_arg.inspect_cuda(value)


def test_buffer_without_strides_is_c_contiguous():
    """the same NULL-strides path for any buffer: numbers still work"""
    src = one_arg.inspect_cuda(np.float32(1.5))
    assert "// for (float32)" in src


@pytest.mark.parametrize("sig,shown", [("é()0", "é()0"), ("(float32é)", "float32é"),
                                       ("(f" + "é" * 30 + ")", "(f")])
def test_signature_with_non_ascii_text(sig, shown):
    """seed 1, unit 1979: the parse error quoted one byte of a two-byte
    character and the message could not be decoded (UnicodeDecodeError)"""
    with pytest.raises(TypeError) as e:
        one_arg.inspect_cuda(sig)
    assert "signature '" in str(e.value) and shown in str(e.value)


@pytest.mark.parametrize("sig", ["(float32)\x00(int8)", "(\udc80)"])
def test_signature_that_is_no_text(sig):
    """an embedded NUL was cut off silently; a lone surrogate gave a NULL"""
    with pytest.raises(TypeError, match="not a signature string"):
        one_arg.inspect_cuda(sig)


def test_vectorize_signature_with_non_ascii_text():
    with pytest.raises(TypeError, match="signature 'é"):
        cujit.vectorize(["é(float32)"])(lambda x: x)


@jit.rawkernel()
def double_negation(a, b):
    i = jit.grid(1)
    if i < a.size:
        j = i
        j = j ^ --j
        a[i] = --b[i] + - - -j


@pytest.mark.parametrize("t", ["float32", "int64", "int8"])
def test_double_negation_is_not_a_decrement(t):
    """seed 3, unit 8990: Python's --x (minus minus x) was printed as C's
    pre-decrement --x: NVRTC rejected it where x was no lvalue, and where it
    was one the kernel computed x - 1 and changed x"""
    sig = "(%s[::1], %s[::1])" % (t, t)
    src = double_negation.inspect_cuda(sig)
    body = src.split("double_negation at")[1]
    assert not re.search(r"--\s*[\w(]", body), body
    assert "j ^ - -j" in body
    assert ".entry" in double_negation.inspect_ptx(sig)


@jit.rawkernel()
def huge_shared(out):
    buf = jit.shared_memory(np.int32, 4611686018427387904)     # 2**62 items: 2**64 bytes
    buf[0] = 1
    out[0] = buf[0]


@jit.rawkernel()
def huge_local(out):
    buf = jit.local_memory(np.float64, (1099511627776, 1099511627776))
    buf[0, 0] = 1
    out[0] = buf[0, 0]


@pytest.mark.parametrize("kernel", [huge_shared, huge_local])
def test_huge_memory_shapes_are_refused(kernel):
    """seed 11, unit 16220: the byte count of shared / local memory was
    multiplied out in int64 and overflowed (UBSan), wrapping to a size the
    check let through"""
    with pytest.raises(cujit.CompileError, match="more than a block can have"):
        kernel.inspect_cuda("(float64[::1],)")


@jit.rawkernel()
def value_boolops(p0, p1):
    i = jit.grid(1)
    if i < p0.size:
        p0[i] = (1 and p0[i]) or p1[i]


@pytest.mark.parametrize("t", ["complex64", "complex128", "float16"])
def test_value_and_or_on_complex_and_half(t):
    """seed 12, unit 2811: `a and b` on complex values tested `!cj_v`, which
    no complex type has (NVRTC: no operator "!" matches these operands)"""
    sig = "(%s[::1], %s[::1])" % (t, t)
    src = value_boolops.inspect_cuda(sig)
    assert "!cj_v" not in src
    assert ".entry" in value_boolops.inspect_ptx(sig)


@jit.rawkernel()
def wrapped_shape(out):
    buf = jit.shared_memory(np.int8, 4294967296 * 4294967296 + 16)    # 2**64 + 16
    buf[0] = 1
    out[0] = buf[0]


@jit.rawkernel()
def folded_limits(out):
    if jit.grid(1) == 0:
        out[0] = (-2147483648) ** 10
        out[1] = -(-9223372036854775807 - 1)
        out[2] = (-2147483648 << 20) + (-9223372036854775807 - 1) // -1


def test_constant_folding_does_not_wrap():
    """seed 12, units 8 and 9113: folding constants multiplied, negated,
    divided and shifted in int64 with overflow (UBSan); 2**64 + 16 became a
    16-byte shared array.  Folding now gives up where int64 would overflow"""
    with pytest.raises(cujit.CompileError, match="positive integer constants"):
        wrapped_shape.inspect_cuda("(int8[::1],)")
    assert ".entry" in folded_limits.inspect_ptx("(float64[::1],)")


@jit.rawkernel()
def uint_literal_shape(out):
    buf = jit.shared_memory(np.int8, 18446744073709551615 + 17)     # 2**64 + 16
    buf[0] = 1
    out[0] = buf[0]


def test_uint64_literal_is_no_int64_constant():
    """2**64 - 1 is kept as a uint64 constant; folding read its bits as -1,
    and -1 + 17 made a 16-byte shared array"""
    with pytest.raises(cujit.CompileError, match="positive integer constants"):
        uint_literal_shape.inspect_cuda("(int8[::1],)")


@jit.rawkernel(boundscheck=True)
def atomic_checked(acc):
    jit.atomic_add(acc, 0, False)


def test_boundscheck_atomic_index_has_its_helper():
    """seed 20261125, unit 47: under boundscheck=True an atomic's index was
    checked with cj_bc, which the prelude left out when no other index of the
    kernel was checked (NVRTC: identifier "cj_bc" is undefined)"""
    acc = np.zeros(8, np.float32)
    assert "cj_bc(" in atomic_checked.inspect_cuda(acc)
    assert ".entry" in atomic_checked.inspect_ptx(acc)


@jit.rawkernel()
def tuple_into_view(p0, p1):
    i = jit.grid(1)
    if i < p1.shape[0]:
        p1[i], p0[i] = 1.0, i


def test_view_target_of_tuple_assignment_is_refused():
    """seed 20261125, units 4147 and 14449: p0[i] of a 3-d p0 (a view) as a
    target of a tuple assignment was emitted as a plain store into the view
    struct (NVRTC: no constructor from int to cj_array)"""
    with pytest.raises(cujit.CompileTypeError, match="target of a tuple assignment") as e:
        tuple_into_view.inspect_cuda(np.zeros((4, 3, 2), np.float16), np.zeros(4))
    assert e.value.text.strip() == "p1[i], p0[i] = 1.0, i"


@jit.rawkernel()
def big_constants(x, y):
    i = jit.grid(1)
    if i < x.size:
        y[i] = x[i] * 1e+308 + 1e-50 + 3.4028235e38


@pytest.mark.parametrize("dt", [np.float32, np.float16])
def test_float_constants_out_of_float_range(dt):
    """seed 777, units 1925 and 18332: a Python float past float32's range
    met a float32 (or float16) operand and was written as a float literal
    NVRTC rejects ('floating constant is out of range'); it is the float it
    rounds to, as NumPy casts it: inf past the top, 0 below the smallest"""
    x = np.ones(8, dt)
    src = big_constants.inspect_cuda(x, x.copy())
    assert "CJ_INF_F" in src and "1e+308" not in src and "1e-50" not in src
    assert "3.40282347e+38f" in src         # FLT_MAX: the float 3.4028235e38 rounds to
    assert ".entry" in big_constants.inspect_ptx(x, x.copy())


@jit.rawkernel()
def constructor_statement(p0, p1):
    i, j = jit.grid(2)
    complex(p1)


def test_constructor_call_as_a_statement():
    """seed 4242, unit 109019: complex(p1) standing alone was emitted as
    cj_complex128(p1); which C++ reads as a declaration of p1 (NVRTC: "p1"
    has already been declared)"""
    src = constructor_statement.inspect_cuda(np.int16(0), 1e308)
    assert "(void)cj_complex128(p1);" in src
    assert ".entry" in constructor_statement.inspect_ptx(np.int16(0), 1e308)


@jit.rawkernel()
def ndim_mod(p0, p1):
    i = jit.grid(1)
    if i < len(p0):
        p0[i] = p0.ndim % +p1


def test_ndim_in_a_helper_template_has_the_operation_type():
    """seed 4242, unit 53755: a.ndim met by an int64 in % was written as the
    int literal 1, and cj_mod(1, p1) deduced two types (NVRTC: no instance of
    function template cj_mod)"""
    src = ndim_mod.inspect_cuda(np.zeros(3), -2147483649)
    assert "cj_mod(1LL, p1)" in src
    assert ".entry" in ndim_mod.inspect_ptx(np.zeros(3), -2147483649)


# ---- found by the cuda.jit units (Numba's spelling and typing) ----

from cujit import cuda  # noqa: E402


def complex_of_complex_part(a):
    acc = 0j
    a[0] = complex(2.0, acc).real


@pytest.mark.parametrize("deco", [cuda.jit, jit.rawkernel()], ids=["cuda.jit", "rawkernel"])
def test_complex_of_a_complex_part_is_refused(deco):
    """seed 6, unit 1495: complex(real, imag) with a complex part reached
    codegen, which has no complex-to-real conversion (internal error);
    Numba refuses it too (Cannot cast complex128 to float64)"""
    k = deco(complex_of_complex_part)
    with pytest.raises(cujit.CompileTypeError, match=r"complex\(real, imag\) takes real "
                       r"numbers, got .* as its imaginary part") as e:
        k.inspect_cuda(np.zeros(8))
    assert e.value.lineno == complex_of_complex_part.__code__.co_firstlineno + 2


@jit.rawkernel()
def unpack_none(p0):
    i = jit.grid(1)
    v3, i, v2 = p0[i], None, p0.ndim


def test_tuple_assignment_of_none_to_a_none_only_name():
    """seed 21, unit 3787: `a, b = x, None` declared a temporary for the None
    (a type without a C++ spelling: internal error); a name that only ever
    holds None stores nothing"""
    src = unpack_none.inspect_cuda(np.zeros(1, np.complex64))
    assert ".entry" in unpack_none.inspect_ptx(np.zeros(1, np.complex64))
    assert "cj_t1" not in src


@jit.rawkernel()
def chained_view_copy(p2):
    i = jit.grid(1)
    p2[-1] = v4 = p2[i]
    v4[0, 0] = 1


@jit.rawkernel()
def chained_shared_copy(p2):
    sh = jit.shared_memory(np.float64, (3, 2))
    p2[0] = p2[1] = sh


def test_chained_assignment_of_a_view_copies():
    """seed 21, unit 2494: `x[a] = v = y[i]` (y[i] a view) converted the
    temporary to an element for the store into x[a] (NVRTC: no conversion
    from cj_array to cj_complex128); it copies the view, as x[a] = y[i]"""
    a = np.zeros((8, 3, 2), np.complex128)
    src = chained_view_copy.inspect_cuda(a)
    assert "cj_copyto(cj_vi<0>(p2, -1), cj_t0);" in src
    assert ".entry" in chained_view_copy.inspect_ptx(a)
    assert ".entry" in chained_shared_copy.inspect_ptx(np.zeros((4, 3, 2)))


@jit.rawkernel()
def zero_d_into_view(x, out):
    i = jit.grid(1)
    if i < out.shape[0]:
        out[i] = x


def test_copy_of_a_zero_d_array_into_a_view(tmp_path):
    """seed 23, unit 16318: out[i] = x of a 0-d x into a view called
    cj_copyto, whose broadcast read x.shape (NVRTC: cj_array<unsigned short,
    0, int> has no member shape); a 0-d source fills the view with its
    element"""
    x, out = np.array(7, np.uint16), np.zeros((4, 1, 3), np.uint64)
    assert ".entry" in zero_d_into_view.inspect_ptx(x, out)
    from test_kernels_host import CXX, host_launcher
    if CXX is None:
        pytest.skip("no host C++ compiler")
    host_launcher(str(tmp_path))(zero_d_into_view, 1, 4, (x, out))
    assert (out == 7).all()


@pytest.mark.parametrize("body,dtype,value", [("i // (-2147483649)", "int32", -2147483649),
                                              ("i + -(-(-2147483649))", "int32", -2147483649),
                                              ("a[0] + (-1)", "uint8", -1)])
def test_negative_literal_out_of_range_of_the_dtype_it_meets(body, dtype, value):
    """seed 23, unit 7771: `x // (-2147483649)` with x int32 took the literal
    (unary minus of a constant) without NumPy 2's range check and emitted
    cj_floordiv(int, long long) (NVRTC: no instance of cj_floordiv); a
    literal under minus signs is checked as the literal is (NumPy 2:
    Python integer -1 out of bounds for uint8)"""
    ns = {}
    exec("def k(a):\n    i = jit.grid(1)\n    a[0] = %s\n" % body, {"jit": jit}, ns)
    k = jit.rawkernel()(ns["k"])
    with pytest.raises(cujit.CompileTypeError, match="Python integer %d out of bounds for "
                       "%s" % (value, dtype)):
        k.inspect_cuda(np.zeros(1, np.uint8))


@cuda.jit
def numba_casts_wrap(a):
    a[0] = np.uint8(300)
    a[1] = np.uint8(-1)
    a[2] = np.int8(-129)


def test_numpy_casts_of_python_ints_wrap_in_cuda_jit(tmp_path):
    """found by the cuda.jit units: np.uint8(-1) and np.uint8(300) raised
    NumPy 2's "Python integer out of bounds" in cuda.jit kernels, where a
    Python int is an int64 and Numba's cast wraps (44, 255, 127); the
    rawkernel dialect keeps NumPy 2's error"""
    a = np.zeros(3, np.int64)
    assert ".entry" in numba_casts_wrap.inspect_ptx(a)
    with pytest.raises(cujit.CompileTypeError, match="Python integer 300 out of bounds"):
        jit.rawkernel()(numba_casts_wrap.py_func).inspect_cuda(a)
    from test_kernels_host import CXX, host_launcher
    if CXX is None:
        pytest.skip("no host C++ compiler")
    host_launcher(str(tmp_path))(numba_casts_wrap, 1, 1, (a,))
    assert a.tolist() == [44, 255, 127]


@pytest.mark.parametrize("expr", ["sh.size", "sh.shape[0]", "len(sh)", "sh2.size",
                                  "sh2.shape[1]", "len((i, 2.5))"])
def test_static_extent_meets_int64_in_a_helper(expr):
    """seed 24, unit 27393: in a cuda.jit kernel with 64-bit indices,
    sh.size // a[i] (a uint64) printed the shared array's size as the int
    literal 4 beside a long long (NVRTC: no instance of cj_floordiv); a
    static extent is a literal of the index type, len() one of its type"""
    ns = {}
    exec("def k(a):\n    i = cuda.grid(1)\n    sh = cuda.shared.array(4, np.int16)\n"
         "    sh2 = cuda.shared.array((4, 3), np.int16)\n    a[i] = %s // a[i]\n"
         "    a[i] = %s %% a[i]\n" % (expr, expr), {"np": np, "cuda": cuda}, ns)
    k = cuda.jit(ns["k"])
    assert ".entry" in k.inspect_ptx("(uint64[:],)")
    assert ".entry" in k.inspect_ptx(np.zeros(3, np.uint64))


@jit.rawkernel()
def round_far(x, out):
    out[0] = round(x[0], -2147483648)
    out[1] = round(x[0], 400)
    out[2] = round(np.float32(x[0]), 39)
    out[3] = round(x[0], -1)


def test_round_to_ndigits_beyond_the_float_range(tmp_path):
    """seed 24, unit 27716: round(x, -2147483648) wrote the scale 10**d as
    the constant 1e2147483648 (NVRTC: floating constant is out of range); a
    constant ndigits beyond the type's range takes CPython's algorithm
    (cj_round_nd), as a run-time one does"""
    x, out = np.array([125.5]), np.zeros(4)
    src = round_far.inspect_cuda(x, out)
    assert "cj_round_nd(x.data[0], 400LL)" in src
    assert ".entry" in round_far.inspect_ptx(x, out)
    from test_kernels_host import CXX, host_launcher
    if CXX is None:
        pytest.skip("no host C++ compiler")
    host_launcher(str(tmp_path))(round_far, 1, 1, (x, out))
    assert out.tolist() == [0.0, 125.5, 125.5, 130.0]


def inner_default_call(a, out):
    i = cuda.grid(1)

    def scaled(v, s=np.complex128(2)):
        return v * s
    out[i] = scaled(a[i]).real


def inner_default_negative(a, out):
    i = cuda.grid(1)

    def scaled(v, s=-2.5):
        return v * s
    out[i] = scaled(a[i])


def test_default_of_a_function_defined_in_a_kernel():
    """seed 25, unit 59188: a def inside a kernel with a default that is a
    call (s=np.complex128(2)) was read as a Constant's .value ("cujit could
    not read the Python AST: 'Call' object has no attribute 'value"); it is
    the error for a default that is not a constant, and a negated number
    (s=-2.5) is a constant"""
    a = np.zeros(4)
    with pytest.raises(cujit.CompileError, match="a default parameter value in a device "
                       "function must be a constant") as e:
        cuda.jit(inner_default_call).inspect_cuda(a, a)
    assert e.value.lineno == inner_default_call.__code__.co_firstlineno + 3
    src = cuda.jit(inner_default_negative).inspect_cuda(a, a)
    assert "-2.5" in src
    assert ".entry" in cuda.jit(inner_default_negative).inspect_ptx(a, a)


@cuda.jit(device=True)
def aug_ref_d0(arr, x1, x2):
    return x1 + x2


def aug_ref_kernel(a0, a1, a2, a3):
    i = cuda.grid(1)
    lo0 = cuda.local.array(64, np.float32)
    lo0[i] = 0.5
    sh1 = cuda.shared.array(4, np.float16)
    sh1[i] = math.pi
    if i < a3.shape[0]:
        if True:
            v1 = a1[i]
            v1 = (a2[i - 2] ^ True)
            a2[0 - i] += True
        else:
            for k2 in range(3):
                v4, v1 = ((not ((i // lo0.shape[0]) != abs(k2))) << int(False)), aug_ref_d0(
                    a2, math.log1p(math.sqrt((7 + k2))), k2)
                v4, v1 = v1, v4
                v2 = (np.int16(a3[i]) >= a2[(i - 1) % 7])
            v0 = (-(0.5-1j))
            v5 = (a2[i - 1] - min(np.uint32(False), i))
        a0[i - lo0.shape[0]] += ((int(a2[i - 2]) < sh1[-2]) | False)


def test_augmented_assignment_through_a_reference_reads_no_variable_type():
    """seed 25, units 19526, 33881, 38552, 39990 (UBSan in make fuzz): an
    augmented assignment computed through a reference to the element
    (a2[0 - i] += True of a uint16 array in a cuda.jit kernel) reads the
    reference as a variable of id -1, and codegen looked its type up at
    vtype[-1] (memory before the array) for an Optional or a 0-d array"""
    args = (np.zeros(4, np.float16), np.zeros(4, np.float32), np.zeros(3, np.uint16),
            np.zeros(2, np.float32))
    k = cuda.jit(fastmath=True)(aug_ref_kernel)
    assert "cj_r = " in k.inspect_cuda(*args)
    assert ".entry" in k.inspect_ptx(*args)


@jit.rawkernel()
def sort_complex(x):
    jit.thrust.sort(jit.thrust.device, x.begin(), x.end())


def test_thrust_sort_of_complex_numbers(tmp_path):
    """seed 26, unit 46808: jit.thrust.sort of a complex128 array compared
    its elements with <, which cj_complex has not (NVRTC: no operator <);
    the algorithms order complex numbers as NumPy does (real parts, then
    imaginary ones)"""
    x = np.array([2 + 1j, 1 + 5j, 2 - 1j, 1 + 0j])
    assert ".entry" in sort_complex.inspect_ptx(x)
    from test_kernels_host import CXX, host_launcher
    if CXX is None:
        pytest.skip("no host C++ compiler")
    host_launcher(str(tmp_path))(sort_complex, 1, 1, (x,))
    assert x.tolist() == np.sort(np.array([2 + 1j, 1 + 5j, 2 - 1j, 1 + 0j])).tolist()
