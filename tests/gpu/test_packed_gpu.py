"""Fixed-width strings (S12, U12) and datetime64 / timedelta64 arrays in
kernels on the GPU, as Numba's test_const_string and test_datetime use them,
against NumPy on fresh random data.  (Packed records and record types in
signatures: test_records_gpu.py.)"""
import numpy as np
import pytest

from cujit import cuda

pytestmark = pytest.mark.gpu

rng = np.random.default_rng()
LETTERS = np.array(list("abcdefghijklmnopqrstuvwxyz"))


def random_strings(dt, n):
    """n random ASCII words of dt, never empty"""
    words = ["".join(rng.choice(LETTERS, rng.integers(1, 13))) for _ in range(n)]
    return np.array([w.encode() if np.dtype(dt).kind == "S" else w for w in words], dt)


@cuda.jit
def unicode_store(arr, flags):
    i = cuda.grid(1)
    if i < len(arr) and flags[i]:
        arr[i] = "XYZé"


@cuda.jit
def bytes_store(arr, flags):
    i = cuda.grid(1)
    if i < len(arr) and flags[i]:
        arr[i] = b"a longer word than twelve"


@pytest.mark.parametrize("dt, kernel, word", [("<U12", unicode_store, "XYZé"),
                                              ("S12", bytes_store, b"a longer word than twelve"),
                                              ("<U3", unicode_store, "XYZé")])
def test_string_constants_into_arrays(dt, kernel, word):
    n = 1000
    a = random_strings(dt, n)
    flags = rng.integers(0, 2, n).astype(np.bool_)
    exp = a.copy()
    exp[flags] = word                    # NumPy truncates to the width too
    kernel[(n + 127) // 128, 128](a, flags)
    np.testing.assert_array_equal(a, exp)
    d = cuda.to_device(random_strings(dt, n))
    exp = d.copy_to_host()
    exp[flags] = word
    kernel[(n + 127) // 128, 128](d, flags)
    np.testing.assert_array_equal(d.copy_to_host(), exp)


@pytest.mark.parametrize("sdt, word", [("<U12", "ABC"), ("S12", b"XYZ")])
def test_string_field_of_packed_record(sdt, word):
    """a string field after an int32 in a packed record (Numba's
    test_assign_const_*_in_record), neighbours random"""
    dt = np.dtype([("x", np.int32), ("y", np.dtype(sdt)), ("z", np.float64)])

    @cuda.jit
    def k(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i]["x"] = i + 1
            a[i]["y"] = word
            a[i].z = a[i].z * 2

    n = 333
    a = np.zeros(n, dt)
    a["y"] = random_strings(sdt, n)
    a["z"] = rng.standard_normal(n)
    exp = a.copy()
    exp["x"] = np.arange(1, n + 1)
    exp["y"] = word
    exp["z"] *= 2
    k[(n + 63) // 64, 64](a)
    np.testing.assert_array_equal(a, exp)


# ---- datetime64 / timedelta64 ----

def random_dates(n, unit="D"):
    return (np.datetime64("2005-02-01", unit)
            + rng.integers(-20000, 20000, n).astype(f"timedelta64[{unit}]"))


@cuda.jit
def dt_kernel(start, end, delta, later, same):
    i = cuda.grid(1)
    if i < delta.size:
        delta[i] = end[i] - start[i]
        later[i] = start[i] + delta[i] * 2
        same[i] = end[i] == start[i] + delta[i]


def test_datetime_arithmetic_in_a_kernel():
    n = 1000
    start, end = random_dates(n), random_dates(n)
    end[::7] = start[::7]
    delta = np.zeros(n, "m8[D]")
    later = np.zeros(n, "M8[D]")
    same = np.zeros(n, np.bool_)
    dt_kernel[(n + 127) // 128, 128](start, end, delta, later, same)
    np.testing.assert_array_equal(delta, end - start)
    np.testing.assert_array_equal(later, start + (end - start) * 2)
    assert same.all()


def test_datetime_ufunc_and_gufunc_signatures():
    """Numba's test_ufunc / test_gufunc: datetime64[D] in signatures"""
    from cujit.cuda import from_dtype
    datetime_t = from_dtype(np.dtype("datetime64[D]"))
    timedelta_t = from_dtype(np.dtype("timedelta64[D]"))

    @cuda.vectorize([(datetime_t, datetime_t)])
    def timediff(start, end):
        return end - start

    @cuda.guvectorize([(datetime_t, datetime_t, timedelta_t[:])], "(),()->()")
    def gtimediff(start, end, out):
        out[0] = end - start

    n = 500
    a, b = random_dates(n), random_dates(n)
    got = timediff(a, b)
    assert got.dtype == np.dtype("m8[D]")
    np.testing.assert_array_equal(got, b - a)
    got = gtimediff(a, b)
    assert got.dtype == np.dtype("m8[D]")
    np.testing.assert_array_equal(got, b - a)
