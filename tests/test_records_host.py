"""NumPy structured (record) dtypes in kernels, without a GPU: the C++ struct
cujit generates for a record dtype has NumPy's exact field offsets and size
(checked with the host compiler's offsetof, which NVRTC lacks), the kernels
compile to PTX, and the generated CUDA run on the CPU through
test_kernels_host.py's shim gives what NumPy gives on fresh random data."""
import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import cujit
from cujit import cuda

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_kernels_host import CXX, LAUNCH, SHIM, split_params  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "gpu"))
from test_records_gpu import random_records  # noqa: E402  (one helper for both)

ALIGNED = np.dtype([("a", np.float64), ("b", np.int32), ("c", np.complex64),
                    ("d", np.uint8, 5)], align=True)
PACKED = np.dtype([("a", np.uint8), ("b", np.float64), ("c", np.complex128), ("e", np.int16)])
INNER = np.dtype([("x", np.float32), ("y", np.int16)], align=True)
NESTED = np.dtype([("k", np.int8), ("in", INNER), ("m", np.float32, (3, 2)),
                   ("n", np.float64)], align=True)
OFFSETS = np.dtype({"names": ["p", "q"], "formats": [np.int32, np.float64],
                    "offsets": [4, 16], "itemsize": 40})
PACKED_ABCD = np.dtype([("a", np.float64), ("b", np.int16), ("c", np.complex64),
                        ("d", np.uint8, 5)])
DTYPES = [ALIGNED, NESTED, OFFSETS, PACKED_ABCD]

rng = np.random.default_rng()


def rec_name(src):
    """the struct name the first kernel parameter's record array uses"""
    m = re.search(r"cj_array<(cj_rec_\w+), ", src)
    return m.group(1)


@cuda.jit
def copy_first(ary, out):
    i = cuda.grid(1)
    if i < ary.size:
        out[i] = ary[i]


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler")
@pytest.mark.parametrize("dt", DTYPES, ids=["aligned", "nested", "offsets", "packed"])
def test_struct_layout_matches_numpy(dt, tmp_path):
    a = np.zeros(4, dt)
    src = copy_first.inspect_cuda(a, a.copy())
    name = rec_name(src)
    checks = ["static_assert(sizeof(%s) == %d, \"size\");" % (name, dt.itemsize)]
    for i, field in enumerate(dt.names):
        checks.append("static_assert(offsetof(%s, f%d) == %d, \"%s\");"
                      % (name, i, dt.fields[field][1], field))
    if dt is NESTED:
        inner = re.search(r"struct [^{]*\b(cj_rec_\w+) \{", src).group(1)
        for i, field in enumerate(INNER.names):
            checks.append("static_assert(offsetof(%s, f%d) == %d, \"%s\");"
                          % (inner, i, INNER.fields[field][1], field))
    cpp = tmp_path / "layout.cpp"
    cpp.write_text("#include <stddef.h>\n" + SHIM + src + "\n" + "\n".join(checks) + "\n")
    r = subprocess.run([CXX, "-std=c++17", "-fsyntax-only", "-w", str(cpp)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]


@pytest.mark.parametrize("dt", DTYPES, ids=["aligned", "nested", "offsets", "packed"])
def test_ptx_compiles(dt):
    a = np.zeros(4, dt)
    ptx = copy_first.inspect_ptx(a, a.copy())
    assert ".visible .entry" in ptx


# ---- kernels run on the CPU ----

def host_run(kernel, args, n, tmp):
    """runs kernel's generated CUDA for args on the CPU, one thread at a time
    (n threads in one block); arrays are changed in place"""
    src = kernel.inspect_cuda(*args)
    m = re.search(r'extern "C" __global__ void (\w+)\((.*)\)\s*$', src, re.M)
    params = split_params(m.group(2))
    call = []
    keep = []
    ptrs = (ctypes.c_void_p * len(args))()
    for k, (p, v) in enumerate(zip(params, args)):
        t = p.rsplit(" ", 1)[0].strip() if not p.endswith("*") else p
        if isinstance(v, np.ndarray) and v.ndim == 1:
            idx = ctypes.c_int32 if t.endswith("int>") else ctypes.c_int64
            st = type("A", (ctypes.Structure,), {"_fields_": [
                ("data", ctypes.c_void_p), ("shape", idx * 1), ("strides", idx * 1)]})
            s = st()
            s.data = v.__array_interface__["data"][0]
            s.shape[0] = v.shape[0]
            s.strides[0] = v.strides[0]
            call.append("*(cj_array<%s> *)args[%d]" % (t.split("<", 1)[1].rsplit(">", 1)[0], k))
        elif isinstance(v, np.void):
            s = ctypes.c_void_p(np.asarray(v).__array_interface__["data"][0])
            call.append("*(%s *)args[%d]" % (params[k].rsplit(" ", 1)[0].replace("*", "").strip()
                                              + " *", k))
        elif isinstance(v, (float, np.floating)):
            s = ctypes.c_double(float(v))
            call.append("*(double *)args[%d]" % k)
        else:
            s = ctypes.c_int64(int(v))
            call.append("*(long long *)args[%d]" % k)
        keep.append(s)
        ptrs[k] = ctypes.cast(ctypes.pointer(s), ctypes.c_void_p)
    cpp = os.path.join(tmp, "k.cpp")
    so = os.path.join(tmp, "k.so")
    with open(cpp, "w") as f:
        f.write(SHIM + src + "\n" + LAUNCH % (m.group(1), ", ".join(call)))
    r = subprocess.run([CXX, "-std=c++17", "-O1", "-w", "-shared", "-fPIC", "-o", so, cpp],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    lib = ctypes.CDLL(so)
    lib.cj_host_launch(ptrs, (ctypes.c_uint * 3)(1, 1, 1), (ctypes.c_uint * 3)(n, 1, 1))


@pytest.fixture
def tmp():
    d = tempfile.mkdtemp(prefix="cujit-rec-")
    yield d
    shutil.rmtree(d, ignore_errors=True)


@cuda.jit
def fields_kernel(ary, out, v):
    i = cuda.grid(1)
    if i < ary.size:
        r = ary[i]                  # a reference: writes reach the array
        r.a = r.a * 2.0 + v
        r["b"] += 3
        ary[i].c = ary[i].c * 1j
        r.d[1] = r.d[0] + r.d[4]
        out[i] = r.a + r.b + r.d[1]


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler")
@pytest.mark.parametrize("dt", [ALIGNED, PACKED_ABCD], ids=["aligned", "packed"])
def test_fields_on_host(dt, tmp):
    n = 7
    a = random_records(dt, n)
    out = np.zeros(n, np.float64)
    v = float(rng.standard_normal())
    exp = a.copy()
    exp["a"] = exp["a"] * 2.0 + v
    exp["b"] += 3
    exp["c"] = exp["c"] * 1j
    exp["d"][:, 1] = exp["d"][:, 0] + exp["d"][:, 4]
    eout = exp["a"] + exp["b"] + exp["d"][:, 1]
    host_run(fields_kernel, (a, out, v), n, tmp)
    for name in dt.names:
        np.testing.assert_allclose(a[name], exp[name], rtol=1e-6)
    np.testing.assert_allclose(out, eout, rtol=1e-12)


@cuda.jit
def nested_kernel(ary, src, out):
    i = cuda.grid(1)
    if i < ary.size:
        r = ary[i]
        inner = r["in"]
        inner.x = inner.x + r.m[2, 1]
        r.m[0, 1] = r.k
        ary[i]["in"].y = ary[i]["in"].y * 2
        r.n = src[i].n
        out[i] = r.m[1, 0] * 2


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler")
def test_nested_on_host(tmp):
    n = 5
    a = random_records(NESTED, n)
    src = random_records(NESTED, n)
    out = np.zeros(n, np.float32)
    exp = a.copy()
    exp["in"]["x"] = exp["in"]["x"] + exp["m"][:, 2, 1]
    exp["m"][:, 0, 1] = exp["k"]
    exp["in"]["y"] *= 2
    exp["n"] = src["n"]
    eout = exp["m"][:, 1, 0] * 2
    host_run(nested_kernel, (a, src, out), n, tmp)
    for name in ("k", "m", "n"):
        np.testing.assert_allclose(a[name], exp[name], rtol=1e-6)
    np.testing.assert_allclose(a["in"]["x"], exp["in"]["x"], rtol=1e-6)
    np.testing.assert_array_equal(a["in"]["y"], exp["in"]["y"])
    np.testing.assert_allclose(out, eout, rtol=1e-6)


@cuda.jit
def field_view_kernel(ary, out):
    i = cuda.grid(1)
    bs = ary.b                      # a strided view of one field (Numba's ary.b)
    if i < ary.size:
        ary.a[i] = ary.a[i] * 0.5 + bs[i]
        out[i] = ary[i].c.imag - bs[i]
        ary.b[i] = -bs[i]


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler")
def test_field_views_on_host(tmp):
    n = 9
    a = random_records(ALIGNED, n)
    out = np.zeros(n, np.float64)
    exp = a.copy()
    exp["a"] = exp["a"] * 0.5 + exp["b"]
    eout = exp["c"].imag - exp["b"]
    exp["b"] = -exp["b"]
    host_run(field_view_kernel, (a, out), n, tmp)
    for name in ("a", "b", "c"):
        np.testing.assert_allclose(a[name], exp[name], rtol=1e-6)
    np.testing.assert_allclose(out, eout, rtol=1e-6)


def test_field_view_ptx_of_records_without_complex():
    """cj_np_field is in the prelude whether or not the kernel has complex
    numbers (it was first with a.real's helpers, which come with complex
    only: NVRTC said cj_np_field is undefined on the GPU)"""
    a = np.zeros(5, INNER)
    src = "def k(ary, out):\n    ys = ary.y\n    out[0] = ys[1] + ary.x[2]\n"
    ns = {}
    exec(compile(src, "<field_view_ptx>", "exec"), ns)
    assert ".entry" in cuda.jit(ns["k"]).inspect_ptx(a, np.zeros(1))


@pytest.mark.parametrize("dt, field, text", [
    (ALIGNED, "d", "sub-array field"),
    (ALIGNED, "c", r"offset 12\) is not aligned to 8 bytes"),     # complex64 at 12
    (PACKED, "b", "not aligned"),
    (ALIGNED, "zz", "have no field 'zz'"),
    (ALIGNED, "['b']", r"write a\.b \(a view of the field\)"),
])
def test_field_view_errors(dt, field, text):
    src = "def k(ary, out):\n    v = ary%s\n    out[0] = 1\n" % (
        field if field.startswith("[") else "." + field)
    ns = {}
    exec(compile(src, "<field_view>", "exec"), ns)
    k = cuda.jit(ns["k"])
    with pytest.raises(TypeError, match=text):     # CompileTypeError
        k.inspect_cuda(np.zeros(3, dt), np.zeros(1))


@cuda.jit
def copy_kernel(dst, src, rec):
    i = cuda.grid(1)
    if i < dst.size:
        if i % 2 == 0:
            dst[i] = src[i]
        else:
            dst[i] = rec
        dst[i]["d"] = src[(i + 1) % src.size].d


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler")
def test_whole_record_copies_on_host(tmp):
    n = 6
    src = random_records(ALIGNED, n)
    dst = random_records(ALIGNED, n)
    one = random_records(ALIGNED, 1)
    rec = one[0]
    exp = dst.copy()
    for i in range(n):
        exp[i] = src[i] if i % 2 == 0 else rec
        exp[i]["d"] = src[(i + 1) % n]["d"]
    host_run(copy_kernel, (dst, src, rec), n, tmp)
    for name in ALIGNED.names:      # NumPy leaves the padding; the struct copies it
        np.testing.assert_array_equal(dst[name], exp[name])


@cuda.jit
def set_record_field(r, v):
    r.b = v
    r.d[2] = 9


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler")
def test_record_argument_on_host(tmp):
    a = random_records(ALIGNED, 3)
    v = int(rng.integers(1000, 2000))
    host_run(set_record_field, (a[1], v), 1, tmp)
    assert a[1]["b"] == v and a[1]["d"][2] == 9


# ---- errors at the user's line ----

def test_missing_field_names_the_fields():
    @cuda.jit
    def k(ary):
        ary[0].zz = 1

    with pytest.raises(cujit.CompileError, match=r"no field 'zz' \(its fields: 'a', 'b', "):
        k.inspect_cuda(np.zeros(2, ALIGNED))


def test_arithmetic_on_a_record_is_an_error():
    @cuda.jit
    def k(ary):
        ary[0] = ary[1] + ary[2]

    with pytest.raises(TypeError, match="unsupported operand types for \\+: Record"):
        k.inspect_cuda(np.zeros(3, ALIGNED))


def test_other_record_dtype_is_an_error():
    @cuda.jit
    def k(a, b):
        a[0] = b[0]

    with pytest.raises(TypeError, match="record of another dtype"):
        k.inspect_cuda(np.zeros(2, ALIGNED), np.zeros(2, NESTED))


def test_object_field_is_refused():
    dt = np.dtype([("a", np.float64), ("o", object)])

    @cuda.jit
    def k(a):
        a[0].a = 1

    with pytest.raises(TypeError, match="record field 'o' has dtype"):
        k.inspect_cuda(np.zeros(2, dt))


def test_field_by_a_global_name():
    @cuda.jit
    def k(a, out):
        out[0] = a[0][FIELD]

    src = k.inspect_cuda(np.zeros(2, ALIGNED), np.zeros(1))
    assert ".f1" in src


FIELD = "b"


def test_local_array_of_records():
    @cuda.jit
    def k(a, out):
        tmp = cuda.local.array(4, INNER)
        tmp[1].x = a[0]
        tmp[2] = tmp[1]
        out[0] = tmp[2].x

    src = k.inspect_cuda(np.zeros(1, np.float32), np.zeros(1, np.float32))
    assert re.search(r"cj_rec_\w+ tmp\[4\];", src)
    k.inspect_ptx(np.zeros(1, np.float32), np.zeros(1, np.float32))


def test_front_key_separates_layouts():
    """two dtypes with the same names and formats but other offsets get
    their own kernels (and binaries)"""
    d1 = np.dtype([("a", np.int32), ("b", np.float64)], align=True)
    d2 = np.dtype({"names": ["a", "b"], "formats": [np.int32, np.float64],
                   "offsets": [0, 16], "itemsize": 24})

    @cuda.jit
    def k(a):
        a[0].b = 1.5

    s1, s2 = k.inspect_cuda(np.zeros(2, d1)), k.inspect_cuda(np.zeros(2, d2))
    assert "== 16" in s1 and "== 24" in s2


FIVE = np.dtype([("a", np.uint32), ("b", np.uint8)])     # 5 bytes: a off 4 in odd elements


@pytest.mark.parametrize("dt", [PACKED, PACKED_ABCD, FIVE], ids=["packed", "packed_abcd", "five"])
def test_unaligned_fields_are_read_bytewise(dt):
    """a field off its alignment (NumPy's align=False, or a size that is not
    a multiple of the widest field) is a member of a packed struct aligned
    to 1: the PTX reads and writes the record array byte by byte only"""
    @cuda.jit
    def k(a, out):
        i = cuda.grid(1)
        if i < a.size:
            a[i].a = a[i].a + 1
            out[i] = a[i].b

    a = np.zeros(2, dt)
    src = k.inspect_cuda(a, np.zeros(2))
    assert "__attribute__((packed, aligned(1)))" in src
    ptx = k.inspect_ptx(a, np.zeros(2))
    loads = re.findall(r"ld\.global\.(\w+)", ptx)
    stores = re.findall(r"st\.global\.(\w+)", ptx)
    assert loads and set(loads) <= {"u8", "s8"}, loads
    assert len([s for s in stores if s not in ("u8", "s8")]) == 1, stores    # out[i] only


def test_unaligned_subarray_field_is_refused():
    """a sub-array of int16 off its alignment cannot be indexed through a
    pointer: refused at the field with the fix"""
    dt = np.dtype([("a", np.uint8), ("e", np.int16, 3)])

    @cuda.jit
    def k(a):
        a[0].e[1] = 2

    with pytest.raises(cujit.CompileTypeError, match="sub-array field 'e' of int16 .*align=True"):
        k.inspect_cuda(np.zeros(2, dt))


def test_unaligned_nested_record_is_refused():
    dt = np.dtype([("a", np.uint8), ("in", INNER)])
    with pytest.raises(TypeError, match="nested record field 'in'.*align=True"):
        copy_first.inspect_cuda(np.zeros(2, dt), np.zeros(2, dt))


TABLE = np.zeros(4, INNER)


def test_const_records_are_read_only():
    @cuda.jit
    def reads(out):
        t = cuda.const.array_like(TABLE)
        r = t[1]
        out[0] = r.x + t[2].y

    reads.inspect_ptx(np.zeros(1, np.float32))

    @cuda.jit
    def writes(out):
        t = cuda.const.array_like(TABLE)
        r = t[1]
        r.x = out[0]

    with pytest.raises(cujit.CompileError, match="the record is read-only"):
        writes.inspect_cuda(np.zeros(1, np.float32))


def test_record_variable_of_a_call():
    @cuda.jit(device=True)
    def make(a):
        return a[0]

    @cuda.jit
    def k(a, out):
        out[0] = make(a)        # a record returned by value: stored
        r = make(a)             # kept in r's own storage
        out[1] = r

    src = k.inspect_cuda(np.zeros(2, INNER), np.zeros(2, INNER))
    assert "r = &(cj_v_r = " in src

    @cuda.jit(device=True)
    def reassign(r, a):
        r = make(a)             # a new variable (web) with storage of its own: the
        return r                # parameter's element is left as it is

    @cuda.jit
    def k2(a, out):
        out[0] = reassign(a[0], a)

    src2 = k2.inspect_cuda(np.zeros(2, INNER), np.zeros(2, INNER))
    assert re.search(r"r_\d+ = &\(cj_v_r_\d+ = ", src2), src2
    assert ".entry" in k2.inspect_ptx(np.zeros(2, INNER), np.zeros(2, INNER))


def test_field_by_position():
    @cuda.jit
    def k(a, out):
        out[0] = a[0][0] + a[0][-1]     # NumPy's record[k]: the k-th field

    src = k.inspect_cuda(np.zeros(2, INNER), np.zeros(1, np.float32))
    assert ".f0 + " in src and ".f1" in src

    @cuda.jit
    def bad(a, out):
        out[0] = a[0][2]

    with pytest.raises(IndexError, match="record field index 2 out of range"):
        bad.inspect_cuda(np.zeros(2, INNER), np.zeros(1, np.float32))


# ---- one layout made with and without align=True ----

F16X2 = np.dtype([("x", np.float16), ("y", np.float16)])
F16X2_ALIGNED = np.dtype([("x", np.float16), ("y", np.float16)], align=True)


def test_align_flag_names_signatures_apart():
    """numba-cuda's test_from_dtype_caching_distiguish_custom_dtypes: the
    same layout, NumPy's align flag set on one, is a different type in
    signatures (Numba's Record carries `aligned`); the C++ struct is one"""
    assert F16X2 == F16X2_ALIGNED and not F16X2.isalignedstruct

    def body(inp, out):
        out[0] = inp[0].x + inp[0].y

    f1, f2 = cuda.jit(body), cuda.jit(body)
    out = np.zeros(2, np.float64)
    s1 = f1.inspect_cuda(np.zeros(1, F16X2), out)
    s2 = f2.inspect_cuda(np.zeros(1, F16X2_ALIGNED), out)
    assert f1.signatures[0] != f2.signatures[0]
    assert "aligned" in f2.signatures[0] and "aligned" not in f1.signatures[0]
    name = re.search(r"struct __align__\(\d+\) (cj_rec_\w+)", s1).group(1)
    assert "struct __align__(2) %s {" % name in s2, s2
    # both in one kernel: one struct, and a record of one copied into the other
    def both(p, q):
        i = cuda.grid(1)
        if i < p.size:
            p[i] = q[i]
    src = cuda.jit(both).inspect_cuda(np.zeros(2, F16X2), np.zeros(2, F16X2_ALIGNED))
    assert src.count("struct __align__(2) %s {" % name) == 1, src


def test_align_flag_second_signature_of_one_kernel():
    """one kernel given both: two signatures, each naming its own dtype"""
    @cuda.jit
    def k(inp, out):
        out[0] = inp[0].y
    out = np.zeros(1, np.float32)
    k.inspect_ptx(np.zeros(1, F16X2_ALIGNED), out)
    k.inspect_ptx(np.zeros(1, F16X2), out)
    assert len(set(k.signatures)) == 2, k.signatures
