"""Compiled foreign code linked into kernels by the driver's JIT linker
(runtime/link.c), on the GPU, against NumPy on fresh random data: PTX that
NVRTC makes here at test time (for the device's architecture) declared with
cuda.declare_device(link=) in Numba's ABI and the C ABI, a kernel's own
cuda.jit(link=) defining a function declared without link=, a pointer from
ffi.from_buffer, a .ptx changed between two kernels (linked again), and,
where nvcc is on the machine, a cubin, fatbin, object file and archive made
by nvcc; LTO-IR (NVRTC's -dlto, through ctypes) linked by nvJitLink.  tests/test_link_nogpu.py checks the same paths on the fake
driver."""
import os
import shutil
import subprocess

import numpy as np
import pytest

from cujit import _cujit as C
from cujit import cuda
from cujit.cuda import types

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()

# Numba's ABI: int name(ret *out, args...), the result through the pointer
SRC = r'''
extern "C" __device__ int lk_axpy(float *out, float a, float x, float y) {
    *out = a * x + y;
    return 0;
}
extern "C" __device__ int lk_mix(long long *out, int a, int b) {
    *out = (long long)a * 3 - (b >> 2);
    return 0;
}
extern "C" __device__ double lk_poly(double a, double b) { return a * b + 0.5 * a - b; }
extern "C" __device__ int lk_swap(void *out, int *p) {
    int t = p[0]; p[0] = p[1]; p[1] = t;
    return 0;
}
'''


def arch():
    major, minor = cuda.get_current_device().compute_capability
    return f"{major}{minor}"


def ptx_of(src, name="lk"):
    ptx, _, _ = C._nvrtc_compile(src, name, f"compute_{arch()}", options=["-rdc=true"])
    return ptx


@pytest.fixture(scope="module")
def ptx_file(tmp_path_factory):
    p = tmp_path_factory.mktemp("link") / "lk.ptx"
    p.write_text(ptx_of(SRC))
    return str(p)


def nvcc():
    p = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")
    return p if os.path.exists(p) else shutil.which("nvcc")


def grid(n, threads=128):
    return (n + threads - 1) // threads, threads


def check_axpy(link=None, kernel_link=None):
    axpy = cuda.declare_device("lk_axpy", "float32(float32, float32, float32)", link=link)

    def body(a, x, y, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = axpy(a, x[i], y[i])

    k = cuda.jit(link=kernel_link)(body) if kernel_link else cuda.jit(body)
    n = int(rng.integers(3000, 9000))
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    a = np.float32(rng.uniform(-3, 3))
    out = cuda.device_array(n, np.float32)
    k[grid(n)](a, cuda.to_device(x), cuda.to_device(y), out)
    np.testing.assert_allclose(out.copy_to_host(), a * x + y, rtol=1e-6, atol=1e-6)


def test_ptx_file_numba_abi(ptx_file):
    check_axpy(link=ptx_file)


def test_kernel_link_defines_a_declared_function(ptx_file):
    check_axpy(kernel_link=[ptx_file])


def test_ptx_source_object_int_and_c_abi(ptx_file):
    code = cuda.PTXSource(open(ptx_file).read(), name="lk_in_memory")
    mix = cuda.declare_device("lk_mix", "int64(int32, int32)", link=code)
    poly = cuda.declare_device("lk_poly", "float64(float64, float64)", abi="c", link=code)

    @cuda.jit
    def k(a, b, x, y, r1, r2):
        i = cuda.grid(1)
        if i < r1.size:
            r1[i] = mix(a[i], b[i])
            r2[i] = poly(x[i], y[i])

    n = 4099
    a = rng.integers(-10**6, 10**6, n, dtype=np.int32)
    b = rng.integers(-10**6, 10**6, n, dtype=np.int32)
    x, y = rng.standard_normal(n), rng.standard_normal(n)
    r1, r2 = cuda.device_array(n, np.int64), cuda.device_array(n, np.float64)
    k[grid(n)](*(cuda.to_device(v) for v in (a, b, x, y)), r1, r2)
    np.testing.assert_array_equal(r1.copy_to_host(), a.astype(np.int64) * 3 - (b >> 2))
    np.testing.assert_allclose(r2.copy_to_host(), x * y + 0.5 * x - y, rtol=1e-14)


def test_from_buffer_pointer_into_linked_code(ptx_file):
    cffi = pytest.importorskip("cffi")
    ffi = cffi.FFI()
    swap = cuda.declare_device("lk_swap", types.void(types.CPointer(types.int32)))

    @cuda.jit(link=[ptx_file])
    def k(x):
        i = cuda.grid(1)
        if 2 * i + 1 < x.size:
            swap(ffi.from_buffer(x[2 * i:]))

    x = rng.integers(-10**9, 10**9, 2 * 1500, dtype=np.int32)
    dx = cuda.to_device(x)
    k[grid(1500)](dx)
    want = x.reshape(-1, 2)[:, ::-1].ravel()
    np.testing.assert_array_equal(dx.copy_to_host(), want)


def test_changed_ptx_links_again(tmp_path):
    path = tmp_path / "scale.ptx"
    x = rng.integers(-10**6, 10**6, 3000, dtype=np.int64)
    for factor in rng.choice(np.arange(2, 50), 2, replace=False):
        path.write_text(ptx_of('extern "C" __device__ int lk_scale(long long *o, long long a) '
                               '{ *o = a * %d; return 0; }' % factor, "scale"))
        scale = cuda.declare_device("lk_scale", "int64(int64)", link=str(path))

        @cuda.jit
        def k(x, out):
            i = cuda.grid(1)
            if i < x.size:
                out[i] = scale(x[i])

        out = cuda.device_array(x.size, np.int64)
        k[grid(x.size)](cuda.to_device(x), out)
        np.testing.assert_array_equal(out.copy_to_host(), x * factor)


def ltoir_of(src):
    """LTO-IR of src by NVRTC (-dlto) for this device, through ctypes on the
    libnvrtc cujit loaded (found again by its soname)"""
    import ctypes
    C._nvrtc_version()
    lib = ctypes.CDLL("libnvrtc.so.13")
    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), b"lto.cu", 0, None,
                                  None) == 0
    opts = [b"-dlto", b"-rdc=true", f"--gpu-architecture=compute_{arch()}".encode()]
    assert lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts)) == 0
    n = ctypes.c_size_t()
    assert lib.nvrtcGetLTOIRSize(prog, ctypes.byref(n)) == 0
    buf = ctypes.create_string_buffer(n.value)
    assert lib.nvrtcGetLTOIR(prog, buf) == 0
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return buf.raw


def test_ltoir_through_nvjitlink(tmp_path):
    path = tmp_path / "lk.ltoir"
    path.write_bytes(ltoir_of(SRC))
    try:
        check_axpy(link=str(path))
    except Exception as e:          # noqa: BLE001
        if "needs nvJitLink" in str(e):
            pytest.skip(f"no nvJitLink on this machine: {e}")
        raise
    mix = cuda.declare_device("lk_mix", "int64(int32, int32)", link=cuda.LTOIR(path.read_bytes()))

    @cuda.jit
    def k(a, b, r):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = mix(a[i], b[i])

    n = 3001
    a = rng.integers(-10**6, 10**6, n, dtype=np.int32)
    b = rng.integers(-10**6, 10**6, n, dtype=np.int32)
    r = cuda.device_array(n, np.int64)
    k[grid(n)](cuda.to_device(a), cuda.to_device(b), r)
    np.testing.assert_array_equal(r.copy_to_host(), a.astype(np.int64) * 3 - (b >> 2))


@pytest.mark.parametrize("kind", ["cubin", "fatbin", "o", "a", "ptx"])
def test_nvcc_outputs(tmp_path, kind):
    cc = nvcc()
    if not cc:
        pytest.skip("nvcc is not on this machine (CUDA_HOME/bin, PATH): cubin, fatbin, object "
                    "and archive files are made with it")
    (tmp_path / "lk.cu").write_text(SRC)
    out = {"a": "lk.o", "o": "lk.o"}.get(kind, "lk." + kind)
    flag = {"cubin": "-cubin", "fatbin": "-fatbin", "ptx": "-ptx"}.get(kind, "-dc")
    r = subprocess.run([cc, f"-arch=sm_{arch()}", "-rdc=true", flag, "lk.cu", "-o", out],
                       cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    if kind == "a":
        r = subprocess.run(["ar", "rcs", "liblk.a", "lk.o"], cwd=tmp_path, capture_output=True,
                           text=True)
        assert r.returncode == 0, r.stderr
        out = "liblk.a"
    check_axpy(link=str(tmp_path / out))
