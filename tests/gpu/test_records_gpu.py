"""NumPy structured (record) dtypes in kernels on the GPU, as a Numba user
writes them, against NumPy on fresh random records: fields by attribute and
by name, references (r = a[i]), sub-array and nested fields, whole-record
copies, np.void arguments written back, local arrays of records,
cuda.const.array_like of records, device arrays that keep their dtype."""
import numpy as np
import pytest

import cujit
from cujit import cuda

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()

ALIGNED = np.dtype([("a", np.float64), ("b", np.int32), ("c", np.complex64),
                    ("d", np.uint8, 5)], align=True)
INNER = np.dtype([("x", np.float32), ("y", np.int16)], align=True)
NESTED = np.dtype([("k", np.int8), ("in", INNER), ("m", np.float32, (3, 2)),
                   ("n", np.float64)], align=True)
# NumPy's default packing (align=False): fields off their alignment, 23 and 24 bytes
PACKED_ABCD = np.dtype([("a", np.float64), ("b", np.int16), ("c", np.complex64),
                        ("d", np.uint8, 5)])
PACKED_DBCA = np.dtype([("d", np.uint8, 5), ("b", np.int32), ("c", np.complex128),
                        ("a", np.float32)])
FIVE = np.dtype([("a", np.uint32), ("b", np.uint8)])      # a off 4 in odd elements


def random_records(dt, n):
    """n records of dt with every field random (never zeros)"""
    a = np.zeros(n, dt)
    for name in dt.names:
        fd = dt.fields[name][0]
        if fd.names:
            a[name] = random_records(fd, n)
            continue
        base = fd.subdtype[0] if fd.subdtype else fd
        shape = (n,) + (fd.subdtype[1] if fd.subdtype else ())
        if base.kind == "c":
            v = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
        elif base.kind == "f":
            v = rng.standard_normal(shape)
        else:
            v = rng.integers(1, 100, size=shape)
        a[name] = v.astype(base)
    return a


def assert_fields(got, exp, rtol=1e-6):
    for name in exp.dtype.names:
        if exp.dtype.fields[name][0].names:
            assert_fields(got[name], exp[name], rtol)
        else:
            np.testing.assert_allclose(got[name], exp[name], rtol=rtol)


@cuda.jit
def fields_kernel(ary, out, v):
    i = cuda.grid(1)
    if i < ary.size:
        r = ary[i]
        r.a = r.a * 2.0 + v
        r["b"] += 3
        ary[i].c = ary[i].c * 1j
        r.d[1] = r.d[0] + r.d[4]
        out[i] = r.a + r.b + r.d[1]


@pytest.mark.parametrize("dt", [ALIGNED, PACKED_ABCD, PACKED_DBCA],
                         ids=["aligned", "packed_abcd", "packed_dbca"])
@pytest.mark.parametrize("n", [1, 1000])
def test_fields(dt, n):
    a = random_records(dt, n)
    v = float(rng.standard_normal())
    exp = a.copy()
    # v is a float64 argument in the kernel (not NumPy's weak Python float,
    # which a float32 field would round first): the sum is in float64
    exp["a"] = (exp["a"].astype(np.float64) * 2.0 + v).astype(dt["a"])
    exp["b"] += 3
    exp["c"] = exp["c"] * 1j
    exp["d"][:, 1] = exp["d"][:, 0] + exp["d"][:, 4]
    eout = exp["a"] + exp["b"] + exp["d"][:, 1]
    out = np.zeros(n)
    fields_kernel[(n + 127) // 128, 128](a, out, v)     # host arrays: copied back
    assert_fields(a, exp)
    np.testing.assert_allclose(out, eout, rtol=1e-6 if dt["a"] == np.float32 else 1e-12)


@cuda.jit
def five_kernel(ary, out):
    i = cuda.grid(1)
    if i < ary.size:
        old = ary[i].a
        ary[i].a = ary[i].a * 3 + ary[i].b
        ary[i].b = ary[i].b + 1
        out[i] = old


def test_record_size_not_a_multiple_of_its_widest_field():
    """5-byte records on a device array: element 1's uint32 sits at byte 5"""
    n = 777
    a = random_records(FIVE, n)
    exp = a.copy()
    exp["a"] = exp["a"] * 3 + exp["b"]
    exp["b"] += 1
    d = cuda.to_device(a)
    out = cuda.device_array(n, np.uint32)
    five_kernel[(n + 127) // 128, 128](d, out)
    got = d.copy_to_host()
    assert got.dtype == FIVE
    np.testing.assert_array_equal(out.copy_to_host(), a["a"])
    np.testing.assert_array_equal(got["a"], exp["a"])
    np.testing.assert_array_equal(got["b"], exp["b"])


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


def test_nested_on_device_arrays():
    n = 777
    a = random_records(NESTED, n)
    src = random_records(NESTED, n)
    exp = a.copy()
    exp["in"]["x"] = exp["in"]["x"] + exp["m"][:, 2, 1]
    exp["m"][:, 0, 1] = exp["k"]
    exp["in"]["y"] *= 2
    exp["n"] = src["n"]
    da, dsrc = cuda.to_device(a), cuda.to_device(src)
    assert da.dtype == NESTED
    out = cuda.device_array(n, np.float32)
    nested_kernel[(n + 63) // 64, 64](da, dsrc, out)
    got = da.copy_to_host()
    assert got.dtype == NESTED
    assert_fields(got, exp)
    np.testing.assert_allclose(out.copy_to_host(), exp["m"][:, 1, 0] * 2, rtol=1e-6)


@cuda.jit
def copy_kernel(dst, src, rec):
    i = cuda.grid(1)
    if i < dst.size:
        if i % 2 == 0:
            dst[i] = src[i]
        else:
            dst[i] = rec
        dst[i]["d"] = src[(i + 1) % src.size].d


def test_whole_records_and_subarray_assignment():
    n = 300
    src = random_records(ALIGNED, n)
    dst = random_records(ALIGNED, n)
    rec = random_records(ALIGNED, 1)[0]
    exp = dst.copy()
    for i in range(n):
        exp[i] = src[i] if i % 2 == 0 else rec
        exp[i]["d"] = src[(i + 1) % n]["d"]
    copy_kernel[(n + 127) // 128, 128](dst, src, rec)
    assert_fields(dst, exp)


@cuda.jit
def set_record(r, v, w):
    r.b = v
    r.d[2] = w
    r.c = r.c + 1


def test_record_argument_is_written_back():
    a = random_records(ALIGNED, 3)
    exp = a.copy()
    v, w = int(rng.integers(1000, 2000)), int(rng.integers(1, 200))
    set_record[1, 1](a[1], v, w)
    exp[1]["b"], exp[1]["d"][2] = v, w
    exp[1]["c"] += 1
    assert_fields(a, exp)


@cuda.jit
def local_records(x, out):
    i = cuda.grid(1)
    if i < x.size:
        tmp = cuda.local.array(3, INNER)
        for k in range(3):
            tmp[k].x = x[i] * (k + 1)
            tmp[k].y = k
        tmp[0] = tmp[2]
        out[i] = tmp[0].x + tmp[1].x + tmp[0].y


def test_local_array_of_records():
    x = rng.standard_normal(500).astype(np.float32)
    out = np.zeros_like(x)
    local_records[4, 128](x, out)
    # sums near zero cancel: an ulp of the 2 added is an absolute 2.4e-7
    np.testing.assert_allclose(out, x * 3 + x * 2 + 2, rtol=1e-6, atol=1e-6)


TABLE = random_records(INNER, 16)


@cuda.jit
def const_records(idx, out):
    i = cuda.grid(1)
    if i < idx.size:
        t = cuda.const.array_like(TABLE)
        out[i] = t[idx[i]].x + t[idx[i]].y


def test_const_array_of_records():
    idx = rng.integers(0, 16, size=400).astype(np.int32)
    out = np.zeros(400, np.float32)
    const_records[4, 128](idx, out)
    np.testing.assert_allclose(out, TABLE["x"][idx] + TABLE["y"][idx], rtol=1e-6)


def test_cai_import_of_records():
    a = random_records(ALIGNED, 64)
    d = cuda.to_device(a)

    class Foreign:
        __cuda_array_interface__ = d.__cuda_array_interface__

    out = np.zeros(64)
    v = float(rng.standard_normal())
    fields_kernel[1, 64](Foreign(), out, v)
    got = d.copy_to_host()
    np.testing.assert_allclose(got["a"], a["a"] * 2.0 + v, rtol=1e-12)
    assert cujit.to_device(a).dtype == ALIGNED


@cuda.jit
def field_view_kernel(ary, out):
    i, j = cuda.grid(2)
    ns = ary.n                              # a 2-d strided view of one field
    if i < ary.shape[0] and j < ary.shape[1]:
        ary.k[i, j] = ary.k[i, j] + 1
        out[i, j] = ns[i, j] * 2 + ary[i, j]["in"].x
        ns[i, j] = -ns[i, j]


def test_field_views_2d():
    """Numba's attribute access on arrays of records: a.name is a strided
    view of that field of every element, read and written"""
    a = random_records(NESTED, 37 * 11).reshape(37, 11)
    exp = a.copy()
    exp["k"] += 1
    eout = exp["n"] * 2 + exp["in"]["x"]
    exp["n"] = -exp["n"]
    d = cuda.to_device(a)
    out = cuda.device_array((37, 11))
    field_view_kernel[(3, 2), (16, 8)](d, out)
    got = d.copy_to_host()
    assert_fields(got, exp)
    np.testing.assert_allclose(out.copy_to_host(), eout, rtol=1e-6)
def test_record_types_in_signatures():
    """Numba's from_dtype(dt)[:] and its Record(...) text as signatures
    (test_alignment's kernel): np.recarray and device arrays"""
    from cujit import _ntypes
    dt = np.dtype([("a", np.int32), ("b", np.float64)], align=True)
    text = "(Record(a[type=int32;offset=0],b[type=float64;offset=8];16;True)[:],)"
    for sig in ((_ntypes.from_dtype(dt)[:],), text):
        @cuda.jit(sig)
        def copy_b_to_a(a):
            i = cuda.grid(1)
            if i < a.size:
                a[i].a = a[i].b * 2

        n = 300
        a = np.recarray(n, dtype=dt)
        a.a = 0
        a.b = rng.integers(-1000, 1000, n)
        copy_b_to_a[(n + 63) // 64, 64](a)
        np.testing.assert_array_equal(a.a, (a.b * 2).astype(np.int32))
        d = cuda.to_device(np.asarray(random_records(dt, n)))
        exp = d.copy_to_host()
        copy_b_to_a[(n + 63) // 64, 64](d)
        np.testing.assert_array_equal(d.copy_to_host()["a"], (exp["b"] * 2).astype(np.int32))
