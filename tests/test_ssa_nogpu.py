"""Numba's language semantics around variables, closures and recursion, at
compile time (no GPU): a name rebound to another type is another variable
(frontend/webs.c) and two types meeting at a read name both lines; defs in
kernels capture constants only; an unknown name in a called device function,
a tuple return type that grows, runaway recursion are type errors in Numba's
words; kernels may have default values; jit(jit(f)).  What the rebinding
kernels compute: tests/kernels/rebinding.py (host shim and GPU)."""
import re
import warnings

import numpy as np
import pytest

import cujit
from cujit import cuda


def line_of(func, text):
    """The file line of the first source line of func holding text."""
    import inspect
    lines, first = inspect.getsourcelines(func)
    for k, s in enumerate(lines):
        if text in s:
            return first + k
    raise AssertionError(text)


def two_types_meet(out, c):
    v = out[0]
    if c > 0:
        v = (1, 2)
    out[0] = v[0]


def test_two_types_meeting_name_both_lines():
    k = cuda.jit(two_types_meet)
    with pytest.raises(cujit.CompileTypeError) as e:
        k.inspect_cuda(np.zeros(2), 1)
    err = e.value
    assert err.lineno == line_of(two_types_meet, "v = (1, 2)")
    assert "line %d" % line_of(two_types_meet, "v = out[0]") in str(err), str(err)
    assert err.offset >= 1 and "v = (1, 2)" in err.text


def rebound(out, x):
    b = x * 2
    out[0] = b
    b = (x, x + 1)
    out[1] = b[1]


def test_rebinding_makes_two_variables():
    src = cuda.jit(rebound).inspect_cuda(np.zeros(2), 1.5)
    assert re.search(r"double b;", src), src
    assert re.search(r"cj_T2_f8_f8_ b_2;", src), src


def widen(out, c):
    if out[0] > 0:
        c = 0.5
    out[0] = c


def test_parameter_widened_is_copied_in():
    src = cuda.jit(widen).inspect_cuda(np.zeros(1), 3)
    assert "long long cj_p_c" in src and re.search(r"double c = \(double\)\(cj_p_c\);", src), src


def read_before(out):
    out[0] = y  # noqa: F821  (assigned below: Numba reads it uninitialized)
    y = 2.0
    out[1] = y


def test_read_no_path_assigns_warns_in_numbas_words():
    assert cuda.NumbaWarning is UserWarning
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        src = cuda.jit(read_before).inspect_cuda(np.zeros(2))
    msgs = [str(w.message) for w in got if issubclass(w.category, cuda.NumbaWarning)]
    assert any("Detected uninitialized variable y" in m
               and ":%d:" % line_of(read_before, "out[0] = y") in m for m in msgs), msgs
    assert re.search(r"double y\{\};", src), src


@cuda.jit(device=True)
def apply(f, v):
    return f(v)


def capture_twice(out, c):
    if c:
        x = 3

        def inner(y):
            return y + x
        out[0] = apply(inner, 1)
    else:
        x = 6

        def inner2(y):
            return y + x
        out[0] = apply(inner2, 2)


def capture_nonconst(out, n):
    z = n * 2

    def inner(v):
        return 1 + z + v
    out[0] = apply(inner, n)


@pytest.mark.parametrize("func, words, at", [
    (capture_twice, "Cannot capture a constant value for variable 'x'",
     "out[0] = apply(inner, 1)"),
    (capture_nonconst, "Cannot capture the non-constant value associated with variable 'z'",
     "out[0] = apply(inner, n)"),
])
def test_capture_of_a_non_constant_that_escapes(func, words, at):
    """a def reading the kernel's variables handed to another function
    escapes: Numba's words, at the call that hands it on"""
    with pytest.raises(cujit.CompileTypeError) as e:
        cuda.jit(func).inspect_cuda(np.zeros(1), 1)
    assert words in str(e.value)
    assert e.value.lineno == line_of(func, at) and isinstance(e.value, TypeError)


def capture_called_here(out, n):
    z = n * 2

    def inner(v):
        return 1 + z + v
    out[0] = inner(n)


def test_capture_called_where_defined_compiles():
    """called in the kernel that defines it, the def gets z's value at the
    call (a parameter of its own), as Numba inlines such closures"""
    src = cuda.jit(capture_called_here).inspect_cuda(np.zeros(1), 1)
    assert re.search(r"cj_dev_inner\w*\(n, z\)", src), src


def with_nonlocal(out):
    x = 1000

    def closure():
        nonlocal x
        x = 0
    closure()
    out[0] = x


def test_nonlocal_in_a_def_is_a_reference():
    """nonlocal x: the def takes the kernel's x by reference (what it
    computes: tests/kernels/nonlocal_defs.py)"""
    src = cuda.jit(with_nonlocal).inspect_cuda(np.zeros(1))
    assert re.search(r"void cj_dev_closure\w*\(long long &x\)", src), src


def test_unknown_name_in_a_device_function_is_numbas_typing_error():
    @cuda.jit(device=True)
    def dev_func(x):
        return floor(x)  # noqa: F821

    @cuda.jit
    def kernel_func(out):
        out[0] = dev_func(1.5)

    with pytest.raises(cuda.TypingError) as e:
        kernel_func.inspect_cuda(np.zeros(1))
    assert "NameError: name 'floor' is not defined" in str(e.value)
    assert e.value.lineno == line_of(dev_func.py_func, "return floor(x)")


def test_growing_recursive_tuple():
    @cuda.jit(device=True)
    def make_list(n):
        if n <= 0:
            return None
        return (n, make_list(n - 1))

    with pytest.raises(cuda.TypingError) as e:
        @cuda.jit("void()")
        def kernel():
            make_list(100)
    assert "Return type of recursive function does not converge" in str(e.value)


def test_runaway_recursion():
    @cuda.jit(device=True)
    def runaway(x):
        return runaway(x)

    with pytest.raises(cuda.TypingError) as e:
        @cuda.jit("void()")
        def kernel():
            runaway(1)
    assert "cannot type infer runaway recursion" in str(e.value)
    # cupyx.jit's test of the same mistake expects a ValueError: it is both
    assert isinstance(e.value, ValueError) and type(e.value) is cujit.CompileRecursionError


def with_default(x, n=4):
    x[0] = n


def test_kernel_defaults_accepted_every_argument_passed():
    k = cuda.jit(with_default)
    assert "x.data[0] = (double)n" in k.inspect_cuda(np.zeros(1), 3)
    with pytest.raises(TypeError):
        k.inspect_cuda(np.zeros(1))


def test_jit_of_a_dispatcher():
    inner = cuda.jit(with_default)
    again = cuda.jit(inner)
    assert again.py_func is with_default
    assert "x.data[0]" in again.inspect_cuda(np.zeros(1), 2)


def test_for_targets_over_tuples_of_other_types_stay_apart():
    """Three loops rebinding one name to vectors of 2, 3 and 4 items (numba-cuda's
    test_fancy_creation_readout): no read sees two of them, so no copy joins
    them (frontend/webs.c's phi_read: a for target read only in its body)"""
    from cujit import cuda
    v2, v3, v4 = cuda.float32x2, cuda.float32x3, cuda.float32x4

    @cuda.jit
    def k(res):
        one = np.float32(1.0)
        j = 0
        a = v2(one, one)
        for v in (a, a):
            res[j] = v.x
            j += 2
        b = v3(one, one, one)
        for v in (b, b):
            res[j] = v.z
            j += 3
        c = v4(one, one, one, one)
        for v in (c, c):
            res[j] = v.w
            j += 4

    src = k.inspect_cuda(np.zeros(32, np.float32))
    assert "float4" in src or "cj_float32x4" in src or ".w" in src
