"""Random inputs and poisoned outputs shared by the kernel modules."""
import numpy as np

_rng = np.random.default_rng(20261122)

# What an output holds before a launch: never a value a kernel computes by
# accident (zero), so an element the kernel forgot to write is seen.
SENTINEL = {"i": -77, "u": 0xA5}


def rand(shape, dtype=np.float32, lo=-10, hi=10):
    """Uniform random values in [lo, hi] of any dtype (integers inclusive)."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return _rng.uniform(lo, hi, shape).astype(dt)
    if dt.kind == "c":
        re = _rng.uniform(lo, hi, shape)
        im = _rng.uniform(lo, hi, shape)
        return (re + 1j * im).astype(dt)
    if dt.kind == "b":
        return _rng.random(shape) < 0.5
    info = np.iinfo(dt)
    lo, hi = max(lo, info.min), min(hi, info.max)
    return _rng.integers(lo, hi, shape, endpoint=True, dtype=dt)


def nonzero(shape, dtype=np.int32, lo=-10, hi=10):
    """Like rand, with every zero replaced (for divisors)."""
    a = rand(shape, dtype, lo, hi)
    a[a == 0] = 3
    return a


def poison(shape, dtype=np.float32):
    """An output array that holds no value a kernel would compute."""
    dt = np.dtype(dtype)
    if dt.kind in "fc":
        return np.full(shape, np.nan, dt)
    if dt.kind == "b":
        return np.ones(shape, dt)
    return np.full(shape, SENTINEL[dt.kind], dt)


def huge(dtype, n=(1 << 31) + 5):
    """A 1-d array of more than 2**31 elements that costs no memory: a
    zero-stride view (for inspect_cuda only, never launched); it forces
    64-bit index arithmetic."""
    base = np.zeros(1, dtype)
    return np.lib.stride_tricks.as_strided(base, shape=(n,), strides=(0,))


INT_DTYPES = [np.int8, np.int16, np.int32, np.int64,
              np.uint8, np.uint16, np.uint32, np.uint64]
FLOAT_DTYPES = [np.float16, np.float32, np.float64]
COMPLEX_DTYPES = [np.complex64, np.complex128]
ALL_DTYPES = [np.bool_] + INT_DTYPES + FLOAT_DTYPES + COMPLEX_DTYPES
