"""Tuple and namedtuple kernel arguments without a GPU: the generated CUDA
compiles, each tuple type (element types, nesting, namedtuple fields) gets a
signature of its own, the errors for what a tuple argument cannot hold, and
the cases of tests/gpu/test_tuples_gpu.py run on the host through the fake
libcuda with cujit's own packing (tests/fakecuda/tuples_scenarios.py)."""
import os
import shutil
import subprocess
import sys
from collections import namedtuple

import numpy as np
import pytest

import cujit
from cujit import cuda
from test_runtime_nogpu import fake_driver, nvrtc_or_skip  # noqa: F401

FAKE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fakecuda")

P2 = namedtuple("P2", ("x", "y"))
Q2 = namedtuple("Q2", ("a", "b"))


def sum2(r, t):
    r[0] = t[0] + t[1]


def test_signatures_differ_by_tuple_type():
    k = cujit.jit.rawkernel()(sum2)
    r = np.zeros(1)
    srcs = [k.inspect_cuda(r, t) for t in [(1, 2), (1.0, 2), (np.int32(1), np.int32(2)),
                                           P2(1, 2), Q2(1, 2), ((1,), 2)[0] + (2,)]]
    assert len(set(srcs[:5])) == 5
    assert srcs[5] == srcs[0]          # (1, 2) built another way: the same type
    assert "cj_T2_i8_i8_ t" in srcs[0]
    assert "cj_T2_f8_i8_ t" in srcs[1]
    assert "cj_T2_i4_i4_ t" in srcs[2]
    assert "N1xN1y" in srcs[3] and "N1aN1b" in srcs[4]
    assert len(k.inspect_cuda()) == 5


def test_namedtuple_fields_and_ptx():
    def f(r, p):
        r[0] = p.x * p.y
        r[1] = p[1]
    k = cujit.jit.rawkernel()(f)
    ptx = k.inspect_ptx(np.zeros(2), P2(2.0, 3))
    assert ".entry" in ptx
    with pytest.raises(cujit.CompileError, match="no field 'z'"):
        def g(r, p):
            r[0] = p.z
        cujit.jit.rawkernel()(g).inspect_cuda(np.zeros(1), P2(1, 2))


def test_tuple_of_arrays_types():
    def f(t):
        i = cuda.grid(1)
        if i < t[0].size:
            t[0][i] = t[1][i, 0]
    k = cuda.jit(f)
    src = k.inspect_cuda((np.zeros(3, np.float32), np.asfortranarray(np.zeros((3, 2)))))
    assert "cj_array<float, 1," in src and "cj_array<double, 2," in src


@pytest.mark.parametrize("bad, what", [
    (("a", 1), "tuple element 0 has type 'str'"),
    ((1, {}), "tuple element 1 has type 'dict'"),
    ((1, (2, object())), "tuple element 1 has type 'object'"),
])
def test_unsupported_elements(bad, what):
    k = cujit.jit.rawkernel()(sum2)
    with pytest.raises(TypeError, match=what):
        k.inspect_cuda(np.zeros(1), bad)


def test_launch_error_names_the_parameter(fake_driver):  # noqa: F811
    nvrtc_or_skip()
    r = subprocess.run([sys.executable, "-c", (
        "import cujit, numpy as np\n"
        "def sum2(r, t):\n"
        "    r[0] = t[0] + t[1]\n"
        "k = cujit.jit.rawkernel()(sum2)\n"
        "try:\n"
        "    k[1, 1](np.zeros(1), ('a', 1))\n"
        "except TypeError as e:\n"
        "    print('ERR', e)\n")],
        env=dict(os.environ, LD_LIBRARY_PATH=fake_driver), capture_output=True, text=True,
        timeout=300)
    assert "ERR sum2() parameter 't': tuple element 0 has type 'str'" in r.stdout, (
        r.stdout + r.stderr)


@pytest.mark.skipif(not (shutil.which(os.environ.get("CXX") or "g++") or shutil.which("clang++")),
                    reason="no host C++ compiler to run the kernels on")
def test_cases_on_host(fake_driver, tmp_path):  # noqa: F811
    nvrtc_or_skip()
    e = dict(os.environ, CUJIT_CACHE_DIR=str(tmp_path),
             LD_LIBRARY_PATH=fake_driver + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    e.pop("CUJIT_CACHE", None)
    r = subprocess.run([sys.executable, os.path.join(FAKE_DIR, "tuples_scenarios.py"),
                        "run_cases"], env=e, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    assert "run_cases ok" in r.stdout


# ---- Enum and IntEnum members ----

from enum import Enum, IntEnum  # noqa: E402


class Color(Enum):
    red = 1
    green = 2


class Shade(Enum):
    red = 1


class Size(IntEnum):
    small = 1
    big = 9


class Name(Enum):
    a = "alpha"


def test_enum_arguments_are_keyed_by_class():
    def f(out, a):
        out[0] = a == a
    k = cujit.jit.rawkernel()(f)
    out = np.zeros(1, np.bool_)
    srcs = {k.inspect_cuda(out, x) for x in [Color.red, Color.green, Shade.red, Size.big, 1]}
    assert len(srcs) == 4          # Color.red and Color.green: one type


def test_enum_is_between_classes_is_a_constant():
    def f(out, a, b):
        out[0] = a is b
        out[1] = a == b
    k = cujit.jit.rawkernel()(f)
    src = k.inspect_cuda(np.zeros(2, np.bool_), Color.red, Shade.red)
    assert "= false;" in src
    src = k.inspect_cuda(np.zeros(2, np.bool_), Color.red, Color.green)
    assert " == " in src and "false" not in src.split("extern")[-1]


@pytest.mark.parametrize("body, what", [
    ("out[0] = Color.red + 1", "arithmetic on an Enum member"),
    ("out[0] = Color.red < Color.green", "compared with ==, != and is only"),
    ("out[0] = Name.a == Name.a", "has a value of type str"),
    ("out[0] = Color.red.name == 1", "only .value"),
    ("out[0] = Color['blue'] == 1", "has no member 'blue'"),
])
def test_enum_errors(tmp_path, body, what):
    src = ("from enum import Enum\nimport numpy as np\nfrom cujit import cuda\n"
           "class Color(Enum):\n    red = 1\n    green = 2\n"
           "class Name(Enum):\n    a = 'alpha'\n"
           "@cuda.jit\ndef k(out):\n    " + body + "\n")
    p = tmp_path / "enum_err_mod.py"
    p.write_text(src)
    sys.path.insert(0, str(tmp_path))
    try:
        import enum_err_mod
        with pytest.raises(cujit.CompileError, match=what) as e:
            enum_err_mod.k.inspect_cuda(np.zeros(1))
        assert isinstance(e.value, TypeError)
        assert e.value.lineno == 11      # the line of the body
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("enum_err_mod", None)


def test_enum_argument_of_strings_is_refused():
    def f(out, a):
        out[0] = 1
    k = cujit.jit.rawkernel()(f)
    with pytest.raises(TypeError, match="Name members have values of type str"):
        k.inspect_cuda(np.zeros(1), Name.a)


def test_enum_value_and_intenum_arithmetic():
    def f(out, a, s):
        out[0] = a.value + s * 2 + Size.big
    src = cujit.jit.rawkernel()(f).inspect_cuda(np.zeros(1), Color.green, Size.small)
    assert "extern" in src


def test_enum_signatures_are_inspectable():
    def f(out, a):
        out[0] = a.value
    k = cuda.jit(f)
    k.inspect_cuda(np.zeros(1), Color.red)
    (sig,) = k.signatures
    assert "Color(int64)" in sig
    assert ".entry" in k.inspect_asm(sig)          # the listed signature finds its entry
    with pytest.raises(TypeError, match="cannot take Enum members"):
        k.specialize(np.zeros(1), Color.red)
    t = cuda.jit(sum2)
    assert t.specialize(np.zeros(1), (1, 2.0)).signatures == [
        "(float64[::1], Tuple(int64, float64))"]
