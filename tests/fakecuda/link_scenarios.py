"""Foreign compiled code linked into kernels (runtime/link.c) against the
fake libcuda (fakecuda.c), each scenario in a fresh process started by
tests/test_link_nogpu.py:

    python link_scenarios.py NAME DATA_DIR

DATA_DIR holds the code to link, made by the test with NVRTC (PTX, a
relocatable cubin) and nvcc where the machine has it (fatbin, object,
archive).  The fake's linker checks each input (non-empty, of its stated
kind) and links them for real with the toolkit's nvJitLink, so a function
the code does not define fails here as on a GPU; launches run nothing, so
the values are checked by tests/gpu/test_link_gpu.py."""
import ctypes
import os
import sys

import numpy as np

import cujit
from cujit import cuda

FAKE = ctypes.CDLL("libcuda.so.1")
DATA = sys.argv[2] if len(sys.argv) > 2 else ""


def counter(name):
    return ctypes.c_longlong.in_dll(FAKE, name).value


def path(name):
    return os.path.join(DATA, name)


def expect(exc, fn, *text):
    try:
        fn()
    except exc as e:
        for t in text:
            assert t in str(e), (t, str(e))
        return e
    raise AssertionError(f"no {exc.__name__}")


def kinds():
    """Each kind of compiled code declared with declare_device(link=) links:
    one link per kernel, the kernel and the file as its two inputs"""
    files = ["f.ptx", "f.cubin"] + [f for f in ("f.fatbin", "f.o", "libf.a")
                                     if os.path.exists(path(f))]
    x = cujit.to_device(np.arange(8, dtype=np.int32))
    for f in files:
        mul3 = cuda.declare_device("mul3", "int32(int32)", link=path(f))

        @cuda.jit
        def k(x):
            i = cuda.grid(1)
            if i < x.size:
                x[i] = mul3(x[i])

        links, inputs = counter("fake_links"), counter("fake_link_inputs")
        k[1, 8](x)
        cuda.synchronize()
        assert counter("fake_links") == links + 1, f
        assert counter("fake_link_inputs") == inputs + 2, f
        # the kernel's own code declares it and stays relocatable
        src = k.inspect_cuda("(int32[::1],)")
        assert 'extern "C" __device__ int mul3(void *, int);' in src, src[-800:]
        assert "//@cujit-link " in src
        ptx = k.inspect_ptx("(int32[::1],)")
        assert ".extern .func" in ptx and "mul3" in ptx
        # launched again: the loaded module, no link
        k[1, 8](x)
        assert counter("fake_links") == links + 1
    print("kinds ok", len(files))


def objects_and_abis():
    """Code objects (PTXSource, Cubin) as link items; abi='c'; a function
    declared without link= that the kernel's cuda.jit(link=) defines"""
    with open(path("f.ptx")) as f:
        ptx = f.read()
    with open(path("f.cubin"), "rb") as f:
        cubin = f.read()
    addf = cuda.declare_device("addf", "float32(float32, float32)", abi="c",
                               link=cuda.Cubin(cubin, name="f_cubin"))
    mul3 = cuda.declare_device("mul3", "int32(int32)")

    @cuda.jit
    def c_abi(r, a):
        r[0] = addf(a[0], a[1])

    @cuda.jit(link=[cuda.PTXSource(ptx, name="f_ptx")])
    def kernel_link(x):
        x[0] = mul3(x[0])

    @cuda.jit
    def unlinked(x):
        x[0] = mul3(x[0])

    links = counter("fake_links")
    c_abi[1, 1](cujit.zeros(1, np.float32), cujit.ones(2, np.float32))
    kernel_link[1, 1](cujit.ones(1, np.int32))
    cuda.synchronize()
    assert counter("fake_links") == links + 2
    assert 'extern "C" __device__ float addf(float, float);' in \
        c_abi.inspect_cuda("(float32[::1], float32[::1])")
    # no link anywhere: the error at the call, naming what to give
    e = expect(cujit.CompileError, lambda: unlinked.inspect_cuda("(int32[::1],)"),
               "'mul3' is defined in none", "cuda.jit(link=)", ".ptx")
    assert isinstance(e, ValueError)
    print("objects_and_abis ok")


def jitlink_from_buffer():
    """numba-cuda's test_cffi.test_from_buffer: jitlink.ptx (PTX 6.5 for
    sm_50, linked for sm_90) defines array_mutator, called with
    ffi.from_buffer(x) through the kernel's link="""
    import cffi
    ffi = cffi.FFI()
    array_mutator = cuda.declare_device("array_mutator",
                                        cuda.types.void(cuda.types.CPointer(cuda.types.int32)))

    @cuda.jit(link=[path("jitlink.ptx")])
    def mutate_array(x):
        x_ptr = ffi.from_buffer(x)
        array_mutator(x_ptr)

    links = counter("fake_links")
    mutate_array[1, 1](np.arange(2).astype(np.int32))
    assert counter("fake_links") == links + 1
    print("jitlink_from_buffer ok")


def lto():
    """LTO-IR goes through nvJitLink (the runtime's, not the driver's
    linker: the fake counts no link), Numba's ABI and the C ABI, with the
    kernel's relocatable cubin; a function it lacks is nvJitLink's error"""
    mul3 = cuda.declare_device("mul3", "int32(int32)", link=path("f.ltoir"))
    addf = cuda.declare_device("addf", "float32(float32, float32)", abi="c",
                               link=path("f.ltoir"))
    absent = cuda.declare_device("absent", "int32(int32)", link=path("f.ltoir"))

    @cuda.jit
    def k(x, r):
        x[0] = mul3(x[0])
        r[0] = addf(r[0], r[1])

    @cuda.jit
    def bad(x):
        x[0] = absent(x[0])

    links = counter("fake_links")
    k[1, 1](cujit.ones(1, np.int32), cujit.ones(2, np.float32))
    cuda.synchronize()
    assert counter("fake_links") == links
    expect(cujit.CudaError, lambda: bad[1, 1](cujit.ones(1, np.int32)), "nvJitLink failed",
           "f.ltoir", "absent")
    print("lto ok")


def _kernel():
    mul3 = cuda.declare_device("mul3", "int32(int32)", link=path("g.ptx"))

    @cuda.jit
    def k(x):
        x[0] = mul3(x[0])
    return k


def cache_first():
    """the linked image goes to the disk cache"""
    links = counter("fake_links")
    _kernel()[1, 1](cujit.ones(1, np.int32))
    assert counter("fake_links") == links + 1
    print("cache_first ok")


def cache_second():
    """another process: the linked image from the disk cache, no link; a
    changed .ptx (the test rewrote it, its bytes in the key) links again"""
    k = _kernel()
    links = counter("fake_links")
    k[1, 1](cujit.ones(1, np.int32))
    assert counter("fake_links") == links, "linked again: the disk cache missed"
    if os.environ.get("CHANGED"):
        with open(path("g.ptx")) as f:
            text = f.read()
        with open(path("g.ptx"), "w") as f:
            f.write(text.replace("// g", "// g changed"))
        _kernel()[1, 1](cujit.ones(1, np.int32))
        assert counter("fake_links") == links + 1, "a changed .ptx was not linked again"
    print("cache_second ok")


def link_errors():
    """what goes wrong: a function the code does not define (the linker's
    log, naming it), a file that is not of its kind, LTO-IR, a device
    function's link=, cache=True with link="""
    absent = cuda.declare_device("absent", "int32(int32)", link=path("f.ptx"))

    @cuda.jit
    def k(x):
        x[0] = absent(x[0])

    e = expect(cujit.CudaError, lambda: k[1, 1](cujit.ones(1, np.int32)),
               "kernel 'cj_k_", "linker", "f.ptx", "Undefined reference to 'absent'")
    print(str(e).splitlines()[0])
    with open(path("bad.ptx"), "w") as f:
        f.write("this is no PTX\n")
    bad = cuda.declare_device("mul3", "int32(int32)", link=path("bad.ptx"))

    @cuda.jit
    def k2(x):
        x[0] = bad(x[0])

    expect(ValueError, lambda: k2[1, 1](cujit.ones(1, np.int32)), "bad.ptx", "is not PTX")
    expect(ValueError, lambda: cuda.declare_device("f", "int32()", link=cuda.Cubin(b"")),
           "is empty")
    expect(ValueError, lambda: cuda.declare_device("f", "int32()",
                                                   link=cuda.Fatbin(b"\x7fELF....")),
           "is not a fatbin")
    expect(ValueError, lambda: cuda.declare_device("f", "int32()", link=cuda.LTOIR(b"x")),
           "is not LTO-IR")
    expect(ValueError, lambda: cuda.jit(link=[path("f.ptx")], device=True), "device function")
    expect(RuntimeError, lambda: cuda.jit(link=[path("f.ptx")], cache=True),
           "Cannot pickle CUDACodeLibrary with linking files")
    expect(FileNotFoundError, lambda: cuda.jit(link=[path("none.ptx")]), "does not exist")
    print("link_errors ok")


if __name__ == "__main__":
    globals()[sys.argv[1]]()
