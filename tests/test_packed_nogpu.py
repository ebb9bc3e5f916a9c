"""Record types named in signatures (Numba's from_dtype(dt)[:] objects and its
Record(...) text), checked without a GPU: the kernels compile for them, an
argument finds its signature, and an unaligned record is refused as Numba
refuses it.  (Packed record arrays themselves: test_records_host.py.)"""
import os
import subprocess
import sys

import numpy as np
import pytest

from cujit import cuda, _ntypes

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_runtime_nogpu import fake_driver, nvrtc_or_skip  # noqa: E402,F401

REC = np.dtype([("a", np.int32), ("b", np.float64)], align=True)
NUMBA_TEXT = "Record(a[type=int32;offset=0],b[type=float64;offset=8];16;True)"


def body(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i].a = a[i].b


def test_record_type_object_in_a_signature():
    rec = _ntypes.from_dtype(REC)
    k = cuda.jit((rec[:],))(body)
    assert k.signatures == ["(Record(a: int32, b: float64; 16 bytes, aligned)[:])"]
    assert ".visible .entry" in k.inspect_ptx(k.signatures[0])


def test_numba_record_text_in_a_signature():
    k = cuda.jit(f"({NUMBA_TEXT}[::1],)")(body)
    assert k.signatures == ["(Record(a: int32, b: float64; 16 bytes, aligned)[::1])"]
    src = k.inspect_cuda(k.signatures[0])
    assert "static_assert(sizeof(cj_rec_" in src


def test_nested_and_subarray_fields_in_numba_text():
    inner = np.dtype([("x", np.float32), ("y", np.int16)], align=True)
    dt = np.dtype([("k", np.int8), ("in", inner), ("m", np.float32, (3, 2))], align=True)
    numba_text = ("Record(k[type=int8;offset=0],in[type=Record(x[type=float32;offset=0],"
                  "y[type=int16;offset=4];8;True);offset=4],m[type=nestedarray(float32, "
                  "(3, 2));offset=12];36;True)")
    from cujit import _recsig
    assert _recsig.rewrite(numba_text + "[:]") == _recsig.sig_name(dt) + "[:]"


def test_one_record_in_a_signature():
    d = np.dtype([("a", np.int32), ("b", np.float32)])

    @cuda.jit((_ntypes.from_dtype(d),))
    def k(data):
        data.a = 3
    assert k.signatures == ["(Record(a: int32, b: float32; 8 bytes))"]


def test_unaligned_record_in_a_signature_is_refused():
    """Numba's test_record_alignment_error: a record type named in a
    signature must be aligned ('type float64 is not aligned')"""
    rec = _ntypes.from_dtype(np.dtype([("a", "int32"), ("b", "float64")]))
    with pytest.raises(TypeError, match="field 'b' of type float64 is not aligned .*align=True"):
        cuda.jit((rec[:],))(body)


@pytest.mark.parametrize("text, where", [
    ("(Record(a[type=int32;offset=0];4)[:],)", "';'"),
    ("(Record(a[type=foo;offset=0];4;True)[:],)", "a number type"),
    ("(Record(a[type=int32,offset=0];4;True)[:],)", "';offset='"),
])
def test_bad_record_text_says_where(text, where):
    with pytest.raises(TypeError, match="expected " + where + " at column"):
        cuda.jit(text)(body)


def test_recarray_finds_the_record_signature():
    """a C-contiguous np.recarray for a rec[:] ('A') signature: the launch's
    resolution converts nothing and takes the signature"""
    rec = _ntypes.from_dtype(REC)
    k = cuda.jit((rec[:],))(body)
    a = np.recarray(3, dtype=REC)
    (got,) = k._resolve_args(a)
    assert got is a
    with pytest.raises(TypeError, match="No matching definition"):
        k._resolve_args(np.zeros(3, np.dtype([("a", np.int32), ("b", np.float32)])))


LAUNCH = r'''
import numpy as np
from cujit import cuda, _ntypes
REC = np.dtype([("a", np.int32), ("b", np.float64)], align=True)
@cuda.jit((_ntypes.from_dtype(REC)[:],))
def k(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i].a = a[i].b
k[1, 3](np.recarray(3, dtype=REC))
k[1, 3](np.zeros(3, REC))
print("launched ok")
'''


def test_record_signature_launches(fake_driver, tmp_path):  # noqa: F811
    nvrtc_or_skip()
    script = tmp_path / "rec_launch.py"
    script.write_text(LAUNCH)
    env = dict(os.environ, CUJIT_CACHE_DIR=str(tmp_path / "cache"),
               LD_LIBRARY_PATH=fake_driver + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    r = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                       timeout=300, cwd=str(tmp_path))
    assert r.returncode == 0 and "launched ok" in r.stdout, r.stdout + r.stderr


def test_record_code_is_stable():
    """the signature name hashes the layout: the same in another process"""
    from cujit import _recsig
    here = _recsig.sig_name(REC)
    r = subprocess.run([sys.executable, "-c", "import numpy as np; from cujit import _recsig; "
                        "print(_recsig.sig_name(np.dtype([('a', np.int32), ('b', np.float64)], "
                        "align=True)))"], capture_output=True, text=True, timeout=120)
    assert r.stdout.strip() == here and here.startswith("rec_"), r.stderr


# ---- fixed-width strings (S12, U12): constants stored into elements and fields ----

from test_records_host import CXX, host_run  # noqa: E402

rng = np.random.default_rng()
WORDS = ["XYZ", "A", "", "twelve chars", "thirteen char", "héllo", "日本"]


def random_strings(dt, n):
    """n random ASCII words of dt, never empty (fresh each run)"""
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    words = ["".join(rng.choice(letters, rng.integers(1, 13))) for _ in range(n)]
    return np.array([w.encode() if np.dtype(dt).kind == "S" else w for w in words], dt)


def store_kernel(word):
    """a kernel storing the constant word (str or bytes) into a[i] for
    odd i, leaving even elements as they are"""
    src = f"def k(a):\n    i = cuda.grid(1)\n    if i < a.size and i % 2 == 1:\n        a[i] = {word!r}\n"
    ns = {"cuda": cuda}
    exec(compile(src, f"<store {word!r}>", "exec"), ns)
    return cuda.jit(ns["k"])


@pytest.fixture
def tmp(tmp_path):
    return str(tmp_path)


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler")
@pytest.mark.parametrize("dt", ["U12", "S12", "S3", "U1"])
@pytest.mark.parametrize("word", WORDS)
def test_string_constant_stored_like_numpy(dt, word, tmp):
    """NumPy's assignment: truncated to the width, zeros after; bytes for S"""
    if dt.startswith("S"):
        word = word.encode() if word.isascii() else word.encode("utf-8")
    n = 7
    a = random_strings(dt, n)
    exp = a.copy()
    exp[1::2] = word
    host_run(store_kernel(word), (a,), n, tmp)
    np.testing.assert_array_equal(a, exp)
    assert a.tobytes() == exp.tobytes()


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler")
@pytest.mark.parametrize("sdt, word", [("<U12", "ABC"), ("S12", b"ABC")])
def test_string_field_of_a_record(sdt, word, tmp):
    """Numba's test_assign_const_*_in_record, with random neighbours"""
    dt = np.dtype([("x", np.int32), ("y", np.dtype(sdt)), ("z", np.float64)])

    @cuda.jit
    def k(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i]["x"] = i + 1
            a[i].y = word
    a = np.zeros(5, dt)
    a["z"] = rng.standard_normal(5)
    a["y"] = random_strings(sdt, 5)
    exp = a.copy()
    exp["x"] = np.arange(1, 6)
    exp["y"] = word
    host_run(k, (a,), 5, tmp)
    np.testing.assert_array_equal(a, exp)


def test_string_arrays_take_only_constants():
    @cuda.jit
    def copy(a, b):
        a[0] = b[0]

    @cuda.jit
    def bytes_into_unicode(a):
        a[0] = b"x"

    @cuda.jit
    def wide_into_bytes(a):
        a[0] = "é"

    @cuda.jit
    def chained(a):
        a[0] = a[1] = "x"
    u = np.zeros(2, "U4")
    with pytest.raises(cujit_errors(), match="a string element .*assigned a string constant"):
        copy.inspect_cuda(u, u.copy())
    with pytest.raises(cujit_errors(), match="cannot store bytes into a unicode element"):
        bytes_into_unicode.inspect_cuda(u)
    with pytest.raises(cujit_errors(), match="outside ASCII .*bytes constant"):
        wide_into_bytes.inspect_cuda(np.zeros(2, "S4"))
    with pytest.raises(cujit_errors(), match="one string element .* at a time"):
        chained.inspect_cuda(u)


def cujit_errors():
    import cujit
    return cujit.CompileError


def test_string_dtype_signature_text():
    @cuda.jit
    def k(a):
        a[0] = "x"
    k.inspect_ptx(np.zeros(2, "U3"))
    assert k.signatures == ["([unichr x 3][::1])"]


# ---- datetime64 / timedelta64 in vectorize / guvectorize signatures and CAI ----

def test_datetime_types_from_dtype():
    dt_t = cuda.from_dtype(np.dtype("M8[D]"))
    td_t = cuda.from_dtype(np.dtype("m8[s]"))
    assert (str(dt_t), str(td_t), str(dt_t[:])) == ("datetime64[D]", "timedelta64[s]",
                                                    "datetime64[D][:]")
    assert dt_t.dtype == np.dtype("M8[D]") and td_t.unit == "s"


@pytest.mark.parametrize("func, ret", [(lambda a, b: b - a, np.dtype("m8[D]")),
                                       (lambda a, b: a + (b - a), np.dtype("M8[D]")),
                                       (lambda a, b: a < b, None)])
def test_vectorize_return_type_by_numpy_rules(func, ret):
    """Numba's (datetime_t, datetime_t) without a return type: NumPy's
    result type of the function on the host"""
    t = cuda.from_dtype(np.dtype("M8[D]"))
    u = cuda.vectorize([(t, t)])(func)
    assert u._plans[0].ret == ret
    assert u._plans[0].text == ("int64(int64, int64)" if ret is not None
                                else "bool(int64, int64)")


def test_kernel_signature_takes_datetime_as_int64():
    t = cuda.from_dtype(np.dtype("M8[D]"))

    @cuda.jit((t[:], cuda.from_dtype(np.dtype("m8[D]"))[:]))
    def k(a, d):
        d[0] = a[1] - a[0]
    assert k.signatures == ["(int64[:], int64[:])"]


DT_SCENARIO = r'''
import numpy as np
from cujit import cuda
t, d = cuda.from_dtype(np.dtype("M8[D]")), cuda.from_dtype(np.dtype("m8[D]"))

@cuda.vectorize([(t, t)])
def diff(a, b):
    return b - a

@cuda.guvectorize([(t, t, d[:])], "(),()->()")
def gdiff(a, b, out):
    out[0] = b - a

a = np.arange("2005-02", "2006-02", dtype="M8[D]")
b = a + np.random.randint(1, 1000, a.size)
for f in (diff, gdiff):
    r = f(a, b)
    assert type(r) is np.ndarray and r.dtype == np.dtype("m8[D]") and r.shape == a.shape, r

class Foreign:       # another library's datetime array: typestr <M8[D]
    def __init__(self, n):
        self.d = cuda.device_array(n, np.int64)
        cai = dict(self.d.__cuda_array_interface__)
        cai["typestr"] = "<M8[D]"
        self.__cuda_array_interface__ = cai

@cuda.jit
def assign(out, arr):
    for i in range(arr.shape[0]):
        out[i] = arr[i]
assign[1, 1](Foreign(5), Foreign(5))
print(assign.signatures)
print("datetime ok")
'''


def test_datetime_forms_view_results(fake_driver, tmp_path):  # noqa: F811
    """on the fake driver (nothing runs): the results' dtypes and a foreign
    datetime array's typestr"""
    nvrtc_or_skip()
    script = tmp_path / "dt_scenario.py"
    script.write_text(DT_SCENARIO)
    env = dict(os.environ, CUJIT_CACHE_DIR=str(tmp_path / "cache"),
               LD_LIBRARY_PATH=fake_driver + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
    r = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                       timeout=300, cwd=str(tmp_path))
    assert r.returncode == 0 and "datetime ok" in r.stdout, r.stdout + r.stderr
    assert "int64[::1], int64[::1]" in r.stdout


def test_compiled_signature_text_is_taken_back():
    rec = _ntypes.from_dtype(REC)
    k = cuda.jit((rec[:],))(body)
    k2 = cuda.jit(k.signatures[0])(body)
    assert k2.signatures == k.signatures


def test_zero_d_record_array_assigned_whole():
    """test_caching's record_return: r[()] = ary[i] of a packed record"""
    packed = np.dtype([("a", np.int8), ("b", np.float64)])

    @cuda.jit
    def record_return(r, ary, i):
        r[()] = ary[i]
    src = record_return.inspect_cuda(np.ndarray((), dtype=packed), np.zeros(2, packed), 1)
    assert "__attribute__((packed, aligned(1)))" in src


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler")
def test_zero_d_record_copy_on_host(tmp):
    packed = np.dtype([("a", np.int8), ("b", np.float64), ("c", np.complex64)])

    @cuda.jit
    def record_return(r, ary, i):
        r[()] = ary[i]
        r[()].a = r[()].a + 1
    src = np.zeros(3, packed)
    src["a"] = rng.integers(-100, 100, 3)
    src["b"] = rng.standard_normal(3)
    src["c"] = rng.standard_normal(3) + 1j * rng.standard_normal(3)
    dst = np.zeros(1, packed)
    host_run(record_return, (dst[0], src, 2), 1, tmp)      # dst[0]: a view of dst
    exp = src[2:3].copy()
    exp["a"] += 1
    np.testing.assert_array_equal(dst, exp)
