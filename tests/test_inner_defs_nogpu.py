"""Functions defined in kernels (frontend/inner.c) and Numba's typing errors
around them, at compile time: a def that reads the kernel's variables and is
handed to another function is Numba's "Cannot capture" error, raised before
any error of the statements around it; an attribute of a number class
(float.as_integer_ratio) is Numba's "Unknown attribute" TypingError, never
run by Python at compile time."""
import numpy as np
import pytest

import cujit
from cujit import cuda


@cuda.jit(device=True)
def consumer(func, *args):
    return func(*args)


def test_capture_error_comes_before_the_captured_statement():
    def impl(x):
        z = np.arange(x)         # not a kernel function: would fail first

        def inner(val):
            return 1 + z + val

        return consumer(inner, x)
    with pytest.raises(cujit.CompileTypeError) as e:
        cuda.jit("void(int64)")(impl)
    assert "Cannot capture the non-constant value associated" in str(e.value), str(e.value)
    assert "'z'" in str(e.value)
    assert e.value.lineno == impl.__code__.co_firstlineno + 6


def test_capture_of_a_variable_assigned_twice_names_the_constant_form():
    def impl(r, x):
        t = x
        t = t + 1

        def inner(v):
            return v + t
        r[0] = consumer(inner, 2)
    with pytest.raises(cujit.CompileTypeError) as e:
        cuda.jit(impl).inspect_cuda(np.zeros(1), 3)
    assert "Cannot capture a constant value for variable 't'" in str(e.value), str(e.value)


def test_def_called_in_place_still_compiles():
    def impl(r, x):
        z = x * 2

        def inner(v):
            return v + z
        r[0] = inner(1)
    src = cuda.jit(impl).inspect_cuda(np.zeros(1), 3)
    assert "inner" in src


@pytest.mark.parametrize("expr, attr, cls", [
    ("float.as_integer_ratio(1.23)", "as_integer_ratio", "float64"),
    ("int.bit_length(5)", "bit_length", "int64"),
    ("np.float32.fromhex('0x1p-2')", "fromhex", "float32")])
def test_attribute_of_a_number_class_is_a_typing_error(expr, attr, cls):
    ns = {"np": np}
    exec("def f(r):\n    r[0] = 0\n    %s\n" % expr, ns)
    with pytest.raises(cujit.CompileTypeError) as e:
        cuda.jit(ns["f"]).inspect_cuda(np.zeros(1))
    assert "Unknown attribute '%s' of type class(%s)" % (attr, cls) in str(e.value), str(e.value)


def test_dtype_object_attributes_still_run_at_compile_time():
    def impl(r):
        r[0] = np.dtype(np.float32).itemsize + np.dtype(np.int32).type(7)
    src = cuda.jit(impl).inspect_cuda(np.zeros(1))
    assert "(4LL + (long long)7)" in src or "11" in src, src


def test_nonlocal_is_a_reference_parameter():
    def impl(r, n):
        total = 0

        def bump(k):
            nonlocal total
            total += k
        bump(n)
        bump(2)
        r[0] = total
    src = cuda.jit(impl).inspect_cuda(np.zeros(1), 5)
    assert "long long &total" in src, src


def test_nonlocal_assigning_another_type_is_refused():
    def impl(r):
        x = 1

        def f():
            nonlocal x
            x = 2.5
        f()
        r[0] = x
    with pytest.raises(cujit.CompileTypeError) as e:
        cuda.jit(impl).inspect_cuda(np.zeros(1))
    assert "nonlocal 'x'" in str(e.value) and "float64" in str(e.value), str(e.value)
    assert e.value.lineno == impl.__code__.co_firstlineno + 5


def test_nonlocal_def_passed_on_is_a_capture_error():
    def impl(r):
        x = 1

        def f(v):
            nonlocal x
            x = v
            return v
        r[0] = consumer(f, 3)
    with pytest.raises(cujit.CompileTypeError) as e:
        cuda.jit(impl).inspect_cuda(np.zeros(1))
    assert "Cannot capture" in str(e.value), str(e.value)


def test_nonlocal_of_a_name_the_kernel_does_not_bind():
    y = 3

    def impl(r):
        def f():
            nonlocal y
            y = 4
        f()
        r[0] = 1
    with pytest.raises(cujit.CompileError) as e:
        cuda.jit(impl).inspect_cuda(np.zeros(1))
    assert "nonlocal 'y'" in str(e.value), str(e.value)
    assert y == 3
