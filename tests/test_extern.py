"""Foreign device functions without a GPU: cuda.declare_device's API and its
errors, the errors of their calls at the user's line, the code generated
(sources once, the wrappers of both ABIs), ffi.from_buffer, a changed .cu
compiled again (and the front key hit when nothing changed), and the
overloads' objects.  tests/kernels/externs.py runs such kernels on the CPU
(test_kernels_host.py) and the GPU; the fake-driver scenario 'foreign'
(test_runtime_nogpu.py) checks the cooperative launches."""
import inspect
import os
import subprocess
import sys

import pytest

import cujit
from cujit import cuda
from cujit.cuda import float32, int32, types

TIMES2 = cuda.CUSource("""
extern "C" __device__ int times2(int *out, int a) { *out = 2 * a; return 0; }
""", name="times2.cu")


def error_at(k, sig, exc, text):
    """k's compile error: its type, a message with text, at the line marked
    # <- here"""
    with pytest.raises(exc) as ei:
        k.inspect_cuda(sig)
    e = ei.value
    assert isinstance(e, cujit.CompileError) and text in str(e), str(e)
    src, first = inspect.getsourcelines(k.py_func)
    marked = [first + i for i, line in enumerate(src) if "# <- here" in line]
    assert e.lineno == marked[0], (e.lineno, marked)


# ---- declare_device ----

def test_declaration_api():
    for sig in (int32(float32[:]), "int32(float32[:])"):
        f = cuda.declare_device("f1", sig)
        assert f.name == "f1" and f.sig.args == (float32[:],) and f.sig.return_type == int32
        assert f.abi == "numba" and not f.use_cooperative and f.link == ()
    g = cuda.declare_device("g", "void(int32)", link=[TIMES2], abi="c", use_cooperative=True)
    assert g.abi == "c" and g.use_cooperative and g.link == (TIMES2,)
    assert "declared device function g" in repr(g)
    with pytest.raises(TypeError, match="from a kernel"):
        g(1)
    # Numba's documentation spells pointers CPointer(...) in signature strings
    p = cuda.declare_device("sum_reduce", "float32(CPointer(float32), int32)")
    assert "float32(float32*, int32)" in repr(p)


@pytest.mark.parametrize("sig", [(float32[:],), "(float32[:],)"])
def test_declaration_needs_a_return_type(sig):
    with pytest.raises(TypeError, match="Return type"):
        cuda.declare_device("f1", sig)


def test_declaration_errors(tmp_path):
    with pytest.raises(NotImplementedError, match="Unsupported ABI: fortran"):
        cuda.declare_device("f", "int32()", abi="fortran")
    with pytest.raises(ValueError, match="C identifier"):
        cuda.declare_device("not a name", "int32()")
    with pytest.raises(TypeError, match="cannot read the signature"):
        cuda.declare_device("f", "int32(float33)")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        cuda.declare_device("f", "int32()", link=str(tmp_path / "missing.cu"))
    # compiled code is linked (tests/test_link_nogpu.py), once it is of its kind
    for item in (cuda.LTOIR(b"..."), cuda.PTXSource("..."), cuda.Fatbin(b"\x7fELF")):
        with pytest.raises(ValueError, match="cannot link .*: it is not "):
            cuda.declare_device("f", "int32()", link=item)
    for name in ("f.fatbin", "f.ltoir", "f.ptx"):
        with pytest.raises(FileNotFoundError, match="does not exist"):
            cuda.declare_device("f", "int32()", link=str(tmp_path / name))
    with pytest.raises(ValueError, match="don't know how to link"):
        cuda.declare_device("f", "int32()", link=str(tmp_path / "f.txt"))
    with pytest.raises(TypeError, match="paths or code objects"):
        cuda.declare_device("f", "int32()", link=[3])


def test_kernel_link_checks_its_items(tmp_path):
    with pytest.raises(FileNotFoundError, match="cuda.jit\\(link=...\\)"):
        cuda.jit(link=[str(tmp_path / "f.cu")])
    src = tmp_path / "times2.cu"
    src.write_text('extern "C" __device__ int times2(int *out, int a) { *out = 2 * a; '
                   'return 0; }')
    times2 = cuda.declare_device("times2", "int32(int32)")

    @cuda.jit(link=[str(src)])
    def k(r, x):
        r[0] = times2(x[0])

    # CUDA C++ of the kernel's link= is compiled into its program, as a
    # declaration's own link= is
    text = k.inspect_cuda("(int32[::1], int32[::1])")
    assert "(linked CUDA C++)" in text and "//@cujit-link" not in text


def test_linkable_code_objects(tmp_path):
    p = tmp_path / "k.cu"
    p.write_text("// cu")
    code = cuda.LinkableCode.from_path(str(p))
    assert isinstance(code, cuda.CUSource) and code.name == "k" and code.data == "// cu"
    assert cuda.CUSource("x").name == "<unnamed-cu>"
    with pytest.raises(TypeError, match="callable"):
        cuda.CUSource("x", setup_callback=3)


# ---- the code generated ----

def test_sources_once_and_both_abis():
    times2 = cuda.declare_device("times2", "int32(int32)", link=TIMES2)
    times2_again = cuda.declare_device("times2", "int32(int32)", link=[TIMES2])
    cabi = cuda.declare_device("addf", "float32(float32, float32)", abi="c", link=cuda.CUSource(
        'extern "C" __device__ float addf(float a, float b) { return a + b; }'))

    @cuda.jit(device=True)
    def dev(x):
        return times2_again(x)

    @cuda.jit
    def k(r, x):
        i = cuda.grid(1)
        r[i] = times2(x[i]) + dev(x[i]) + cabi(x[i], 1)

    src = k.inspect_cuda("(float32[::1], int32[::1])")
    assert src.count("int times2(int *out, int a)") == 1
    assert "times2(cj_extptr{&r}, a0)" in src and "return (float)addf(a0, a1)" in src
    assert '#line 1 "times2.cu (linked CUDA C++)"' in src
    assert ".entry" in k.inspect_ptx("(float32[::1], int32[::1])")


def test_from_buffer_needs_a_contiguous_array():
    cffi = pytest.importorskip("cffi")
    ffi = cffi.FFI()
    mut = cuda.declare_device("mut", types.void(types.CPointer(types.float32)),
                              link=cuda.CUSource('extern "C" __device__ int mut(void *o, '
                                                 'float *p) { *p = 1; return 0; }'))

    @cuda.jit
    def k(x):
        mut(ffi.from_buffer(x[::2]))            # <- here

    error_at(k, "(float32[::1],)", cujit.CompileTypeError, "contiguous")

    @cuda.jit
    def ok(x):
        mut(ffi.from_buffer(x[3:]))

    assert "cj_ext_mut((float *)" in ok.inspect_cuda("(float32[::1],)")


# ---- errors at the call ----

def test_call_errors_at_the_line():
    times2 = cuda.declare_device("times2", "int32(int32)", link=TIMES2)
    ptr = cuda.declare_device("times2", types.int32(types.CPointer(types.float64)), link=TIMES2)
    nowhere = cuda.declare_device("absent", "int32(int32)", link=TIMES2)
    arr = cuda.declare_device("takes_array", "int32(float32[:])", link=cuda.CUSource(
        "// takes_array"))

    @cuda.jit
    def arity(r):
        r[0] = times2(1, 2)                     # <- here

    @cuda.jit
    def array_arg(r):
        r[0] = times2(r)                        # <- here

    @cuda.jit
    def pointer_arg(r):
        r[0] = ptr(r[0])                        # <- here

    @cuda.jit
    def undefined(r):
        r[0] = nowhere(r[0])                    # <- here

    @cuda.jit
    def array_param(r):
        r[0] = arr(r)                           # <- here

    @cuda.jit
    def keywords(r):
        r[0] = times2(a=1)                      # <- here

    @cuda.jit
    def two_signatures(r):
        r[0] = times2(r[0])
        r[1] = ptr(r[1])                        # <- here

    sig = "(int32[::1],)"
    error_at(arity, sig, cujit.CompileTypeError, "times2() takes 1 argument")
    error_at(array_arg, sig, cujit.CompileTypeError, "must be a real number")
    error_at(pointer_arg, sig, cujit.CompileTypeError, "must be a raw pointer to float64")
    error_at(undefined, sig, cujit.CompileValueError, "defined in none of the CUDA C++")
    error_at(array_param, sig, cujit.CompileTypeError, "numbers and raw pointers")
    error_at(keywords, sig, cujit.CompileTypeError, "no keyword arguments")
    with pytest.raises(cujit.CompileError, match="float64"):
        two_signatures.inspect_cuda(sig)


def test_source_error_names_the_source():
    bad = cuda.declare_device("bad", "int32(int32)", link=cuda.CUSource(
        'extern "C" __device__ int bad(int *o, int a) { *o = a +; return 0; }', name="bad.cu"))

    @cuda.jit
    def k(r):
        r[0] = bad(r[0])

    with pytest.raises(cujit.CompileError) as ei:
        k.inspect_ptx("(int32[::1],)")
    e = ei.value
    assert "NVRTC rejected the CUDA C++ linked from bad.cu: expected an expression" in str(e)
    assert e.filename == "bad.cu" and e.lineno == 1 and "cujit bug" not in str(e), str(e)


# ---- caching: a changed .cu compiles again; the same one is a front-key hit ----

SCRIPT = """
import sys
from cujit import cuda
f = cuda.declare_device("mul", "int32(int32)", link=sys.argv[1])

@cuda.jit
def k(r):
    r[0] = f(r[0])

print(k.inspect_cuda("(int32[::1],)").count("a * %s" % sys.argv[2]))
"""


def test_changed_source_compiles_again(tmp_path):
    script, cu = tmp_path / "k.py", tmp_path / "mul.cu"
    script.write_text(SCRIPT)
    env = dict(os.environ, CUJIT_CACHE_DIR=str(tmp_path / "cache"), CUJIT_LOG="1")
    env.pop("CUJIT_CACHE", None)

    def run(factor):
        cu.write_text('extern "C" __device__ int mul(int *o, int a) { *o = a * %d; return 0; }'
                      % factor)
        r = subprocess.run([sys.executable, str(script), str(cu), str(factor)], env=env,
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        return r.stdout.strip(), r.stderr

    out, log = run(3)
    assert out == "1" and "front key miss" in log, log
    out, log = run(3)
    assert out == "1" and "front key hit" in log, log
    out, log = run(5)
    assert out == "1" and "front key miss" in log, log


# ---- overloads ----

def test_overloads_are_compiled_kernels():
    @cuda.jit("void(float32[::1])")
    def k(x):
        x[0] = 1

    ov = k.overloads[(float32[::1],)]
    assert ov.signature == "(float32[::1])" and not ov.cooperative
    assert "__global__" in ov.inspect_cuda() and ov.inspect_llvm().startswith("// cujit")
    assert (float32[::1],) in k.overloads and "(float32[::1])" in k.overloads
    assert (int32[::1],) not in k.overloads
    assert k.definitions["(float32[::1])"] == k.definition
    with pytest.raises(ValueError, match="blockdim"):
        ov.max_cooperative_grid_blocks((0, 2))

    @cuda.jit
    def grid(x):
        x[0] = cuda.cg.this_grid().size()

    assert grid.overloads[(types.int64[::1],)].cooperative


def test_device_function_as_kernel_and_sass():
    @cuda.jit(device=True)
    def f():
        pass

    with pytest.raises(RuntimeError, match="Cannot compile a device function as a kernel"):
        f[1, 1]()
    with pytest.raises(RuntimeError, match="Cannot inspect SASS of a device function"):
        f.inspect_sass((int32, int32))


def test_inspect_dicts_take_numba_keys():
    @cuda.jit
    def foo(x, y):
        pass

    foo.inspect_cuda(1, 1)
    foo.inspect_cuda(1.5, 2.5)
    for d in (foo.inspect_llvm(), foo.inspect_asm(), foo.overloads):
        assert len(d) == 2
        assert (types.intp, types.intp) in d and (types.float64, types.float64) in d



def test_compile_device_names_the_function():
    @cuda.jit(device=True)
    def foo(x, y):
        return x + y

    cres = foo.compile_device((int32, int32))
    name = cres.fndesc.mangled_name
    assert name == "foo" and "int32, int32" in cres.signature
    # int32 + int32 is int64 in Numba's typing
    assert name in foo.inspect_llvm((int32, int32))
    assert "return (long long)x + (long long)y" in cres.inspect_llvm()
    assert ".func" in foo.inspect_asm((int32, int32)) and name in foo.inspect_asm((int32, int32))
