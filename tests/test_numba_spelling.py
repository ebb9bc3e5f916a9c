"""cujit.cuda, Numba's spelling of the kernel API, without a GPU: the
decorator's forms and options, eager signatures, the CUDA C++ and PTX each
spelling compiles to (the same as jit's spelling of the same builtin), the
dispatcher's methods, the host functions that need no GPU, and errors.
Kernels in Numba's spelling run on the CPU host shim from
tests/kernels/numba_spelling.py, and on the GPU from tests/gpu."""
import os
import io
import re
import sys

import numpy as np
import pytest

import cujit
from cujit import cuda, jit
from test_runtime_nogpu import nvrtc_or_skip

SIG1 = "(float32[::1],)"


def body(src):
    """The kernel's body, without its name, #line marks and prelude."""
    src = src[src.index("__global__"):]
    src = src[src.index("{"):]
    return re.sub(r"#line \d+.*\n", "", src)     # with or without the file name


# ---- the decorator ----

def test_bare_decorator_and_empty_call():
    @cuda.jit
    def a(x):
        x[0] = 1

    @cuda.jit()
    def b(x):
        x[0] = 1
    for k in (a, b):
        assert isinstance(k, cujit.Kernel) and isinstance(k, cuda.Dispatcher)
        assert k.signatures == [] and not k.device
        assert "= 1.0f;" in k.inspect_cuda(SIG1)


def test_eager_signature_compiles_at_decoration():
    @cuda.jit("void(float32[:], int32)")
    def k(x, n):
        i = cuda.grid(1)
        if i < n:
            x[i] = n
    assert k.signatures == ["(float32[:], int32)"]
    assert "int n)" in k.inspect_cuda(k.signatures[0])


def test_list_of_signatures():
    @cuda.jit(["void(float32[::1])", "void(float64[::1])"])
    def k(x):
        x[0] = 2
    assert sorted(k.signatures) == ["(float32[::1])", "(float64[::1])"]


def test_eager_signature_type_error_raises_at_decoration():
    with pytest.raises(cujit.CompileError, match="complex"):
        @cuda.jit("void(complex64[:], int32[:])")
        def k(x, y):
            cuda.atomic.add(x, 0, 1)            # no complex atomics


def test_options_accepted():
    @cuda.jit(fastmath=True, lineinfo=True, debug=False, opt=True, inline=True, cache=True,
              max_registers=64)
    def k(x):
        x[0] = 1
    assert "__global__" in k.inspect_cuda(SIG1)


def test_unknown_option_and_link():
    with pytest.raises(TypeError, match="nonsense"):
        cuda.jit(nonsense=1)
    with pytest.raises(FileNotFoundError, match="cuda.jit\\(link=...\\): link file 'f.cu'"):
        cuda.jit(link=["f.cu"])         # linked once it exists (test_link_nogpu.py)


def test_device_function_with_signature():
    @cuda.jit("float32(float32)", device=True)
    def twice(v):
        return v * 2

    @cuda.jit
    def k(x):
        x[0] = twice(x[0])
    assert twice.device
    assert "twice" in k.inspect_cuda(SIG1)


# ---- the same builtin through both spellings ----

@cuda.jit
def numba_shared(x):
    s = cuda.shared.array((4, 8), np.float32)
    d = cuda.shared.array(shape=0, dtype=np.float32)
    t = cuda.local.array(shape=3, dtype=np.int32)
    s[1, 2] = x[0] + d[0] + t[0]
    cuda.syncthreads()
    x[1] = s[1, 2]


@jit.rawkernel()
def jit_shared(x):
    s = jit.shared_memory(np.float32, (4, 8))
    d = jit.shared_memory(np.float32, None)
    t = jit.local_memory(np.int32, 3)
    s[1, 2] = x[0] + d[0] + t[0]
    jit.syncthreads()
    x[1] = s[1, 2]


@cuda.jit
def numba_atomics(a, m):
    cuda.atomic.add(a, 0, 1)
    cuda.atomic.sub(a, 1, 1)
    cuda.atomic.max(m, (0, 1), 3)
    cuda.atomic.min(m, (1, 0), 3)
    cuda.atomic.exch(a, 2, 5)
    cuda.atomic.and_(a, 3, 6)
    cuda.atomic.or_(a, 3, 1)
    cuda.atomic.xor(a, 3, 2)
    cuda.atomic.cas(a, 4, 0, 1)
    cuda.atomic.compare_and_swap(a, 7, 8)


@jit.rawkernel()
def jit_atomics(a, m):
    jit.atomic_add(a, 0, 1)
    jit.atomic_sub(a, 1, 1)
    jit.atomic_max(m, (0, 1), 3)
    jit.atomic_min(m, (1, 0), 3)
    jit.atomic_exch(a, 2, 5)
    jit.atomic_and(a, 3, 6)
    jit.atomic_or(a, 3, 1)
    jit.atomic_xor(a, 3, 2)
    jit.atomic_cas(a, 4, 0, 1)
    jit.atomic_cas(a, 0, 7, 8)


@cuda.jit
def numba_warp(x):
    i = cuda.grid(1)
    v = cuda.shfl_down_sync(0xffffffff, x[i], 1) + cuda.shfl_up_sync(0xffffffff, x[i], 1)
    v += cuda.shfl_xor_sync(0xffffffff, x[i], 1) + cuda.shfl_sync(0xffffffff, x[i], 0)
    b = cuda.ballot_sync(cuda.activemask(), v > 0)
    x[i] = cuda.popc(b) + cuda.laneid + cuda.all_sync(b, v > 0) + cuda.any_sync(b, v > 0) \
        + cuda.eq_sync(b, v > 0) + cuda.lanemask_lt() + cuda.warpsize + cuda.gridsize(1)
    cuda.syncwarp()
    cuda.threadfence()
    cuda.threadfence_block()
    cuda.threadfence_system()


@jit.rawkernel()
def jit_warp(x):
    i = jit.grid(1)
    v = jit.shfl_down_sync(0xffffffff, x[i], 1) + jit.shfl_up_sync(0xffffffff, x[i], 1)
    v += jit.shfl_xor_sync(0xffffffff, x[i], 1) + jit.shfl_sync(0xffffffff, x[i], 0)
    b = jit.ballot_sync(jit.activemask(), v > 0)
    x[i] = jit.popc(b) + jit.laneid() + jit.all_sync(b, v > 0) + jit.any_sync(b, v > 0) \
        + jit.eq_sync(b, v > 0) + jit.lanemask_lt() + jit.warpsize + jit.gridsize(1)
    jit.syncwarp()
    jit.threadfence()
    jit.threadfence_block()
    jit.threadfence_system()


@pytest.mark.parametrize("numba_k, jit_k, sig", [
    (numba_shared, jit_shared, SIG1),
    (numba_atomics, jit_atomics, "(int32[::1], float64[:, ::1])"),
    (numba_warp, jit_warp, "(int32[::1],)"),
])
def test_numba_spelling_compiles_as_jit_spelling(numba_k, jit_k, sig):
    # the names are one compiler's; the typing follows the spelling (Numba's
    # rules for cuda.jit), so the jit spelling is compiled with Numba's rules here
    numba_typed = cujit.Kernel(jit_k.py_func, numba=True)
    assert body(numba_k.inspect_cuda(sig)) == body(numba_typed.inspect_cuda(sig))


@pytest.mark.parametrize("code, expected", [
    ("cuda.syncthreads_count(x[0] > 0)", "__syncthreads_count("),
    ("cuda.syncthreads_and(x[0] > 0)", "__syncthreads_and("),
    ("cuda.syncthreads_or(x[0] > 0)", "__syncthreads_or("),
    ("cuda.eq_sync(0xffffffff, x[0] > 0)", "__uni_sync("),
    ("cuda.lanemask_lt()", "cj_lanemask_lt()"),
    ("cuda.fma(x[0], x[1], x[2])", "fmaf("),
    ("cuda.cbrt(x[0])", "cbrtf("),
    ("cuda.selp(x[0] > 0, x[1], x[2])", " ? "),
    ("cuda.clz(np.int32(x[0]))", "__clz("),
    ("cuda.ffs(np.int32(x[0]))", "__ffs("),
    ("cuda.brev(np.uint32(x[0]))", "__brev("),
    ("np.float32(x[0] * np.float64(2.0))", "(float)("),
    ("cuda.threadIdx.y + cuda.blockIdx.z + cuda.blockDim.x + cuda.gridDim.y", "gridDim.y"),
])
def test_builtin_spellings(tmp_path, code, expected):
    src = ("import numpy as np\nfrom cujit import cuda\n\n@cuda.jit\ndef k(x):\n"
           "    x[3] = %s\n" % code)
    path = tmp_path / "k.py"
    path.write_text(src)
    ns = {"__file__": str(path)}
    exec(compile(src, str(path), "exec"), ns)
    cu = ns["k"].inspect_cuda("(float32[::1],)")
    assert expected in cu
    ptx = ns["k"].inspect_ptx("(float32[::1],)")
    assert ".entry" in ptx


def test_every_plain_spelling_is_a_jit_name():
    """One table: every Numba name maps to a builtin jit also spells."""
    for numba_name, tag in cuda.SPELLINGS.items():
        if not tag.startswith("numba."):
            assert tag in jit.__all__ or (tag.startswith("cg.")
                                          and tag[3:] in jit.cg.__all__), numba_name
            obj = cuda
            for part in numba_name.split("."):
                obj = getattr(obj, part)
            target = jit
            for part in tag.split("."):
                target = getattr(target, part)
            assert obj.__cujit_builtin__ == target.__cujit_builtin__


# ---- the dispatcher ----

@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


SAXPY = "(float32, float32[::1], float32[::1], float32[::1])"


def test_inspect_asm_is_ptx_and_llvm_is_cuda_with_a_note():
    ptx = saxpy.inspect_asm(SAXPY)
    assert ".entry" in ptx and ".version" in ptx
    llvm = saxpy.inspect_llvm(SAXPY)
    assert llvm.startswith("// cujit generates CUDA C++")
    assert "__global__" in llvm
    assert set(saxpy.inspect_asm()) == set(saxpy.signatures)
    import shutil
    if shutil.which("nvdisasm") or os.path.isfile("/usr/local/cuda/bin/nvdisasm"):
        assert "cj_saxpy" in saxpy.inspect_sass(SAXPY)      # SASS, by nvdisasm
    else:
        with pytest.raises(NotImplementedError, match="nvdisasm was not found.*SASS"):
            saxpy.inspect_sass(SAXPY)


def test_overloads_definitions_and_inspect_types():
    saxpy.inspect_cuda(SAXPY)
    assert SAXPY[1:-1] in "".join(saxpy.overloads)
    assert saxpy.definitions.keys() == saxpy.overloads.keys()
    out = io.StringIO()
    saxpy.inspect_types(file=out)
    assert "__global__" in out.getvalue()


def test_specialize():
    x = np.zeros(4, np.float64)
    s = saxpy.specialize(np.float64(1), x, x, x)
    assert isinstance(s, cuda.Dispatcher) and s is not saxpy
    assert s.signatures == ["(float64, float64[::1], float64[::1], float64[::1])"]


def test_forall_checks_its_task_count():
    # the launcher itself needs the driver: tests/gpu/test_numba_spelling_gpu.py
    with pytest.raises(ValueError, match="ntasks"):
        saxpy.forall(-1)


def test_builtins_raise_outside_kernels():
    with pytest.raises(RuntimeError, match="cuda.syncthreads"):
        cuda.syncthreads()
    with pytest.raises(RuntimeError, match="inside a @cuda.jit"):
        cuda.atomic.add(np.zeros(1), 0, 1)
    assert cuda.warpsize == 32


# ---- host side without a GPU ----

def test_host_arrays_without_gpu():
    p = cuda.pinned_array((3, 4), np.float32)
    assert isinstance(p, np.ndarray) and p.shape == (3, 4) and p.dtype == np.float32
    with cuda.pinned(p):
        pass
    # mapped and managed memory come from the driver (tests/test_ipc_nogpu.py
    # runs them on the fake driver)
    for make in (cuda.mapped_array, cuda.managed_array):
        if cujit.is_available():
            m = make(5, np.int64)
            assert isinstance(m, np.ndarray) and m.shape == (5,)
        else:
            with pytest.raises(cujit.CudaError):
                make(5, np.int64)


def test_availability_matches_cujit(capsys):
    assert cuda.is_available() == cujit.is_available()
    found = cuda.detect()
    assert found == cujit.is_available() or not found
    assert capsys.readouterr().out


def test_vectorize_target():
    vec = cujit.vectorize(["float32(float32, float32)"], target="cuda")(lambda a, b: a + b)
    assert vec is not None
    with pytest.raises(ValueError, match="CUDA only"):
        cujit.vectorize(["float32(float32)"], target="cpu")
    with pytest.raises(TypeError, match="bogus"):
        cujit.vectorize(bogus=1)


def test_reduce_object():
    @cuda.reduce
    def add(a, b):
        return a + b
    assert isinstance(add, cuda.Reduce) and add.__name__ == "add"
    assert cuda.reduce(lambda a, b: max(a, b)) is not None


TABLE = (np.arange(12, dtype=np.float32) * 1.5).reshape(3, 4)
WEIGHTS = np.array([1, -2, 3], np.int64)


def test_const_array_like():
    """a global NumPy array's values become a __constant__ table, read-only,
    with its static shape"""
    @cuda.jit
    def k(x, out):
        c = cuda.const.array_like(TABLE)
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] * c[i % 3, i % 4] + cuda.const.array_like(WEIGHTS)[i % 3] + c.size
    src = k.inspect_cuda("(float32[::1], float32[::1])")
    assert "__constant__ __align__(16) unsigned char cj_table0[48]" in src
    assert "cj_table1[24]" in src and "const float *c = (const float *)cj_table0;" in src
    assert "(3 * 4)" in src or "12" in src
    head = src[src.index("cj_table0[48] = {") + 17:]
    raw = bytes(int(b) for b in head[:head.index("}")].replace("\n", "").split(","))
    assert raw == TABLE.tobytes()
    nvrtc_or_skip()
    assert ".const" in k.inspect_ptx("(float32[::1], float32[::1])")


def test_const_array_like_of_a_closure_and_views():
    def make(table):
        @cuda.jit
        def k(out):
            c = cuda.const.array_like(table)
            out[0] = c[1, 0]
        return k
    t = np.arange(6, dtype=np.int16).reshape(2, 3).T        # a view: copied in C order
    src = make(t).inspect_cuda("(int16[::1],)")
    assert "cj_table0[12]" in src and "short" in src


def test_const_array_like_errors():
    @cuda.jit
    def local(x):
        a = x
        c = cuda.const.array_like(a)
        x[0] = c[0]
    with pytest.raises(TypeError, match="global or closure variable"):
        local.inspect_cuda("(float32[::1],)")

    @cuda.jit
    def writes(x):
        c = cuda.const.array_like(TABLE)
        c[0, 0] = x[0]
    with pytest.raises(cujit.CompileError, match="read-only"):
        writes.inspect_cuda("(float32[::1],)")
    big = np.zeros(20000, np.float32)

    @cuda.jit
    def too_big(x):
        x[0] = cuda.const.array_like(big)[0]
    with pytest.raises(ValueError, match="64 KiB"):
        too_big.inspect_cuda("(float32[::1],)")
    obj = [1, 2, 3]

    @cuda.jit
    def not_array(x):
        x[0] = cuda.const.array_like(obj)[0]
    with pytest.raises(TypeError, match="'list'"):
        not_array.inspect_cuda("(float32[::1],)")


def test_laneid_is_a_value_not_a_function():
    @cuda.jit
    def k(x):
        x[0] = cuda.laneid()
    with pytest.raises(cujit.CompileError, match="drop the"):
        k.inspect_cuda("(int32[::1],)")


# ---- Numba's type objects ----

def test_type_objects_print_as_signature_strings():
    from cujit.cuda import float32, float64, int32, types, uint8, void
    assert str(void(float32[:], int32)) == "void(float32[:], int32)"
    assert str(float64[:, ::1]) == "float64[:, ::1]" and str(float64[::1, :]) == "float64[::1, :]"
    assert str(float32[::1]) == "float32[::1]" and str(types.int64[:, :]) == "int64[:, :]"
    assert str(float32(float32, float32)) == "float32(float32, float32)"
    assert types.f4 is float32 and str(types.boolean) == "bool" and str(types.c8) == "complex64"
    assert np.dtype(float32) == np.float32 and np.zeros(2, uint8).dtype == np.uint8
    v = float32(1.5)
    assert type(v) is np.float32 and v == 1.5
    with pytest.raises(TypeError, match="':' and '::1'"):
        float32[1:2]
    with pytest.raises(TypeError, match="last .* or the first"):
        float32[:, ::1, :]
    with pytest.raises(TypeError):
        void[:]


def test_jit_with_a_signature_object_and_dtypes_in_kernels():
    from cujit.cuda import float32, int32, types, void

    @cuda.jit(void(float32[:], int32))
    def k(x, n):
        a = cuda.local.array(4, float32)
        s = cuda.shared.array(32, dtype=types.float64)
        a[0] = float32(n)
        s[0] = a[0]
        x[0] = s[0]
    assert k.signatures == ["(float32[:], int32)"]
    src = k.inspect_cuda(k.signatures[0])
    assert "float a[4];" in src and "__shared__ double s[32];" in src and "(float)n" in src

    @cuda.jit([(float32[::1],), void(types.float64[::1])])
    def two(x):
        x[0] = 1
    assert sorted(two.signatures) == ["(float32[::1])", "(float64[::1])"]


def test_real_numba_type_objects(tmp_path, monkeypatch):
    """numba's own objects (numba.float32, numba.void(...), array types) are
    read by their attributes; where numba is not installed, stand-ins defined
    in a package named numba play its part"""
    try:
        import numba  # noqa: F401
        fake = False
    except ImportError:
        fake = True
        pkg = tmp_path / "numba"
        (pkg / "core").mkdir(parents=True)
        (pkg / "__init__.py").write_text("from numba.core.types import *\n")
        (pkg / "core" / "__init__.py").write_text("")
        (pkg / "core" / "types.py").write_text('''
class Type:
    def __init__(self, name):
        self.name = name
    def __str__(self):
        return self.name
    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        lay = "C" if key[-1].step == 1 else "F" if key[0].step == 1 else "A"
        return Array(self, len(key), lay)
    def __call__(self, *args):
        return Signature(self, args)
class Array(Type):
    def __init__(self, dtype, ndim, layout):
        self.dtype, self.ndim, self.layout = dtype, ndim, layout
        self.name = "array(%s, %dd, %s)" % (dtype, ndim, layout)
class Signature:
    def __init__(self, ret, args):
        self.return_type, self.args = ret, args
float32, float64, int32, void = Type("float32"), Type("float64"), Type("int32"), Type("none")
''')
        monkeypatch.syspath_prepend(str(tmp_path))
    import numba
    from numba import float32, int32, void
    try:
        @cuda.jit(void(float32[:, ::1], int32))
        def k(x, n):
            a = cuda.local.array(2, numba.float64)
            a[0] = numba.float32(n)
            x[0, 0] = a[0]
        assert k.signatures == ["(float32[:, ::1], int32)"]
        assert "double a[2];" in k.inspect_cuda(k.signatures[0])
    finally:
        if fake:
            for name in [m for m in sys.modules if m == "numba" or m.startswith("numba.")]:
                del sys.modules[name]


# ---- `from numba import cuda, float32` renamed: cujit's top level ----

def test_numba_top_level_names_from_cujit():
    """Numba's types and helpers imported beside cuda (`from numba import
    cuda, float32, void`) come from cujit too, as cujit.cuda's, loaded on
    first use (import cujit does not import cujit.cuda)"""
    import subprocess
    r = subprocess.run([sys.executable, "-c", "import sys, cujit; "
                        "print('cujit.cuda' in sys.modules)"], capture_output=True, text=True)
    assert r.stdout.split() == ["False"], r.stdout + r.stderr
    from cujit import float32, from_dtype, int32, literal_unroll, types, uint8, void
    assert float32 is cuda.float32 and types is cuda.types and void is cuda.void
    assert from_dtype is cuda.from_dtype and literal_unroll is cuda.literal_unroll
    assert str(void(float32[:], int32)) == str(cuda.void(cuda.float32[:], cuda.int32))
    assert uint8 is cuda.uint8 and "float32" in dir(cujit)
    with pytest.raises(AttributeError, match="no attribute 'njit'"):
        cujit.njit          # Numba's CPU compiler is not cujit's


def _tile_sum(a, out):
    s = cujit.cuda.shared.array(32, dtype=_F32)
    s[cuda.threadIdx.x] = a[cuda.grid(1)]
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        t = _F32(0)
        for k in range(32):
            t += s[k]
        out[cuda.blockIdx.x] = t


_F32 = cujit.float32


def test_top_level_type_in_a_kernel():
    nvrtc_or_skip()
    k = cuda.jit("void(float32[::1], float32[::1])")(_tile_sum)
    (src,) = k.inspect_cuda().values()
    src = body(src)
    assert re.search(r"__shared__\s+(alignas\(\d+\)\s+)?float\b", src), src
