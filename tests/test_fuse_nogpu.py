"""@cujit.fuse without a GPU: the decorator's forms, the CUDA of fused
functions (one kernel, the operations inside it, kernel_name=, the
reduction's passes) and its PTX across dtypes, layouts and axes, and,
against the fake libcuda (tests/fakecuda/fuse_scenarios.py, in a fresh
process), the cases of tests/gpu/test_fuse_gpu.py run with the kernels
compiled for the host and compared with NumPy.  The compile errors, each at
its line, are in tests/errors/fuse_*.py."""
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import cujit
from test_runtime_nogpu import fake_driver, nvrtc_or_skip  # noqa: F401

FAKE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fakecuda")
ENTRY = re.compile(r'extern "C" __global__ void (\w+)\(')


@cujit.fuse
def chain(a, x, y, z):
    return np.exp(a * np.sin(x) + np.cos(y)) * z - 1


@cujit.fuse(kernel_name="rowdot")
def rowdot(x, y):
    return np.sum(x * y, axis=-1)


@cujit.fuse()
def inplace(x, y):
    x += y


def entries(src):
    return ENTRY.findall(src)


def test_decorator_forms():
    assert isinstance(chain, cujit._fuse.Fused)
    assert chain.__wrapped__(1.0, 0.0, 0.0, 2.0) == pytest.approx(np.exp(1.0) * 2 - 1)
    assert chain.__name__ == "chain" and rowdot.kernel_name == "rowdot"
    with pytest.raises(ValueError, match="kernel_name"):
        cujit.fuse(kernel_name="not a name")(lambda x: x)
    with pytest.raises(TypeError):
        cujit.fuse(42)


def test_one_kernel_for_a_chain():
    x = np.ones(1 << 12, np.float32)
    src = chain.inspect_cuda(np.float32(2), x, x, x)
    assert len(entries(src)) == 1
    # the whole expression is one device function: no temporary arrays
    body = src[src.index("cj_dev_chain"):]
    assert "expf(" in body and "sinf(" in body and "cosf(" in body
    assert "cj_pack<float, 4>" in src          # contiguous inputs in aligned packs
    # a weak Python float leaves float32 alone (NEP 50)
    assert "return expf((float)a * sinf(x)" in chain.inspect_cuda(2.0, x, x, x)


def test_strided_and_broadcast_layouts():
    x = np.ones((64, 32), np.float64)
    flat = chain.inspect_cuda(2.0, x, x, x)
    strided = chain.inspect_cuda(2.0, x[:, ::2], x[:, ::2], np.ones(16))
    assert "_flat" in entries(flat)[0] and "_nd" in entries(strided)[0]
    fo = np.asfortranarray(x)
    assert "_flat" in entries(chain.inspect_cuda(2.0, fo, fo, fo))[0]   # one F order


def test_inplace_kernel():
    x = np.ones(100, np.int32)
    src = inplace.inspect_cuda(x, x)
    assert len(entries(src)) == 1 and "int *out0" in src


def test_reduction_kernel():
    m = np.ones((128, 256), np.float32)
    src = rowdot.inspect_cuda(m, m)
    assert entries(src) == ["rowdot", "rowdot_final"]
    assert "cj_pack<float, 4> a0 = px0[j]" in src and "a1 = px1[j]" in src
    # F order: a kept dimension innermost, a thread per output
    f = np.asfortranarray(m)
    assert "chunk)" in rowdot.inspect_cuda(f, f)
    # a row broadcast over the outputs still reads in packs; a column
    # broadcast along the reduction does not
    assert "a1 = px1[j]" in rowdot.inspect_cuda(m, np.ones(256, np.float32))
    assert "cj_pack" not in rowdot.inspect_cuda(m, np.ones((128, 1), np.float32)).split(
        "void rowdot(")[1]


@cujit.fuse
def s_all(x, y):
    return np.sum(x * y)


@cujit.fuse
def s_axis0(x, y):
    return (x - y).sum(axis=0)


@cujit.fuse
def s_axes(x):
    return np.prod(x, axis=(0, -1), keepdims=True)


@cujit.fuse
def s_min(x):
    return np.min(x, axis=1)


@cujit.fuse
def s_max(x, y):
    return np.max(np.maximum(x, y), axis=-2)


@cujit.fuse
def s_mean(x):
    return x.mean(axis=-1)


@cujit.fuse
def s_any(x):
    return np.any(x > 1)


@cujit.fuse
def s_all_true(x):
    return np.all(x != 0, axis=0, keepdims=True)


@cujit.fuse
def s_argmin(x):
    return np.argmin(x, axis=-1)


@cujit.fuse
def s_argmax(x, y):
    return (x - y).argmax()


@cujit.fuse
def ew_mixed(x, y):
    return np.where(x > y, np.sqrt(abs(x)), y.astype(np.float32)), np.clip(x, -1, 1)


DTYPES = [np.bool_, np.int8, np.uint16, np.int32, np.int64, np.float16, np.float32,
          np.float64, np.complex64, np.complex128]


@pytest.mark.parametrize("dt", DTYPES, ids=[np.dtype(d).name for d in DTYPES])
def test_ptx_across_dtypes(dt):
    nvrtc_or_skip()
    a = np.ones((8, 16, 4), dt)
    for f, args in [(s_all, (a, a)), (s_axis0, (a[0], a[0])), (s_axes, (a,)), (s_mean, (a,)),
                    (s_any, (a,)), (s_all_true, (a,)), (chain, (2.0, a, a, a))
                    if np.dtype(dt).kind in "fiu" else (s_all, (a[0], a[0]))]:
        if f is s_axis0 and dt == np.bool_:
            continue                            # bool - bool: NumPy's TypeError too
        if f is chain and np.dtype(dt).kind != "f":
            continue
        if f is s_any and np.dtype(dt).kind == "c":
            continue                            # complex > 1: a CompileError (not ordered)
        ptx = f.inspect_ptx(*args)
        assert ".entry" in ptx, (f.__name__, dt)
    if np.dtype(dt).kind != "c":
        for f, args in [(s_min, (a,)), (s_max, (a, a[0])), (ew_mixed, (a, a)),
                        (s_argmin, (a,)), (s_argmax, (a, a[0, 0]))]:
            if (f is ew_mixed or f is s_argmax) and dt == np.bool_:
                continue
            assert ".entry" in f.inspect_ptx(*args), (f.__name__, dt)


def test_result_dtypes_in_the_cuda():
    i8 = np.ones((4, 5), np.int8)
    assert "long long *out" in s_all.inspect_cuda(i8, i8)         # sum of int8: int64
    assert "double *out" in s_mean.inspect_cuda(i8)                # mean of ints: float64
    h = np.ones((4, 5), np.float16)
    src = s_mean.inspect_cuda(h)
    assert "typedef float cj_acc" in src and "cj_half *out" in src   # float16 in float32
    assert "bool *out" in s_any.inspect_cuda(h)


def test_cupy_names_by_their_name():
    """cp.exp is 'cupy_exp': the table strips the prefix (an object of CuPy's
    ufunc type, faked here)"""
    class ufunc:
        __module__ = "cupy._core._kernel"

        def __init__(self, name):
            self.__name__ = name

        def __call__(self, *a):
            raise AssertionError("not called while compiling")

    import importlib.util
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write("import numpy as np\n\ndef f(x):\n    return cp_exp(x) + 1\n")
    try:
        spec = importlib.util.spec_from_file_location("fuse_cp_case", fh.name)
        mod = importlib.util.module_from_spec(spec)
        mod.cp_exp = ufunc("cupy_exp")
        spec.loader.exec_module(mod)
        src = cujit.fuse(mod.f).inspect_cuda(np.ones(4, np.float32))
        assert "expf(" in src
    finally:
        os.unlink(fh.name)


@pytest.mark.skipif(not (shutil.which(os.environ.get("CXX") or "g++") or shutil.which("clang++")),
                    reason="no host C++ compiler to run the kernels on")
def test_cases_on_host(fake_driver, tmp_path):  # noqa: F811
    nvrtc_or_skip()
    builds = tmp_path / "host"
    builds.mkdir()
    cache = tmp_path / "cache"
    e = dict(os.environ, CUJIT_CACHE_DIR=str(cache), CUJIT_HOST_BUILDS=str(builds),
             LD_LIBRARY_PATH=fake_driver + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    e.pop("CUJIT_CACHE", None)
    for _ in range(2):      # the second over the same cache: front-key hits
        r = subprocess.run([sys.executable, os.path.join(FAKE_DIR, "fuse_scenarios.py"),
                            "run_cases"], env=e, capture_output=True, text=True, timeout=1800)
        assert r.returncode == 0, "fuse cases failed:\n%s\n%s" % (r.stdout[-4000:],
                                                                   r.stderr[-4000:])
        assert "run_cases ok" in r.stdout
    assert [f for f in os.listdir(cache) if f.endswith(".cjr")]
