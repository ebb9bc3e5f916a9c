"""cujit's type rules against the installed NumPy: the whole 14x14
np.result_type table, np.can_cast(..., "safe"), the float loop np.sqrt picks,
and NEP 50 promotion of Python scalars.

common/types.c is plain C, so it is compiled here into a small shared
library and called through ctypes: no GPU and no built extension needed."""
import ctypes
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
         "uint64", "float16", "float32", "float64", "complex64", "complex128"]
TY_SCALAR, TY_WEAK_INT, TY_WEAK_FLOAT, TY_WEAK_COMPLEX = 1, 2, 3, 4

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="builds with cc")


class Type(ctypes.Structure):
    # the first fields of struct Type in common/cj.h
    _fields_ = [("kind", ctypes.c_int), ("dtype", ctypes.c_int)]


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler")
    out = str(tmp_path_factory.mktemp("types") / "libcjtypes.so")
    srcs = [os.path.join(ROOT, "common", f) for f in ("types.c", "recdtype.c", "util.c")]
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-I" + os.path.join(ROOT, "common"),
                    "-o", out, *srcs], check=True)
    so = ctypes.CDLL(out)
    for f in ("cj_scalar", "cj_weak", "cj_promote"):
        getattr(so, f).restype = ctypes.POINTER(Type)
    so.cj_promote.argtypes = [ctypes.POINTER(Type), ctypes.POINTER(Type)]
    return so


def test_dtype_names_match_numpy(lib):
    for i, name in enumerate(NAMES):
        assert np.dtype(name).name == name
        assert lib.cj_scalar(i).contents.dtype == i


@pytest.mark.parametrize("a", NAMES)
def test_result_type_row(lib, a):
    got = [NAMES[lib.cj_promote_dt(NAMES.index(a), j)] for j in range(len(NAMES))]
    want = [str(np.result_type(np.dtype(a), np.dtype(b))) for b in NAMES]
    assert got == want


@pytest.mark.parametrize("a", NAMES)
def test_can_cast_safe_row(lib, a):
    got = [bool(lib.cj_can_cast_safe(NAMES.index(a), j)) for j in range(len(NAMES))]
    want = [bool(np.can_cast(a, b, "safe")) for b in NAMES]
    assert got == want


def test_float_for_is_sqrt_loop(lib):
    got = [NAMES[lib.cj_float_for(i)] for i in range(len(NAMES))]
    want = [str(np.sqrt(np.ones(1, dtype=n)).dtype) for n in NAMES]
    assert got == want


@pytest.mark.parametrize("kind,literal", [(TY_WEAK_INT, 1), (TY_WEAK_FLOAT, 1.0),
                                          (TY_WEAK_COMPLEX, 1j)])
def test_weak_scalars_nep50(lib, kind, literal):
    for i, name in enumerate(NAMES):
        want = str((np.ones(1, dtype=name) * literal).dtype)
        for x, y in ((lib.cj_weak(kind), lib.cj_scalar(i)), (lib.cj_scalar(i), lib.cj_weak(kind))):
            r = lib.cj_promote(x, y).contents
            assert r.kind == TY_SCALAR
            assert NAMES[r.dtype] == want, (name, literal)


def test_result_type_table_through_extension():
    """The same table through the built extension's testing hook."""
    try:
        from cujit import _cujit
    except ImportError as e:
        pytest.skip(f"extension not built: {e}")
    if not hasattr(_cujit, "_promote"):
        pytest.skip("cujit._cujit._promote not present")
    got = [[_cujit._promote(i, j) for j in range(len(NAMES))] for i in range(len(NAMES))]
    want = [[str(np.result_type(a, b)) for b in NAMES] for a in NAMES]
    assert got == want
