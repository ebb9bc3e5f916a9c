"""Memory that both the host and the device address, as NumPy arrays that
kernels take without a copy: ``cuda.managed_array`` (cuMemAllocManaged) and
``cuda.mapped_array`` (page-locked host memory mapped into the device,
cuMemHostAlloc).  As Numba's ManagedNDArray / MappedNDArray, such an array
is a ``numpy.ndarray`` (host code reads and writes it in place, after the
kernels that write it have finished: synchronize first) with a
``__cuda_array_interface__`` (a kernel, or any CUDA library, reads and
writes the same memory).  runtime/args.c reads a NumPy array that has the
interface through it, instead of copying it in and back.

The memory is freed when the last array over it is gone (a finalizer of
the allocation, which every view keeps alive through its ``base``).  A copy
(``a.copy()``, a ufunc's result) is ordinary host memory: a plain
``numpy.ndarray``."""
import weakref

import numpy as np

from cujit import _cujit

_MANAGED, _MAPPED = 0, 1


class _Memory:
    """One allocation: NumPy views it through __array_interface__."""

    def __init__(self, kind, nbytes, flag):
        self.host, self.device_address, self.device = _cujit._host_alloc(kind, nbytes, flag)
        self.nbytes = nbytes
        self.kind = kind
        self.__array_interface__ = {"shape": (nbytes,), "typestr": "|u1",
                                    "data": (self.host, False), "version": 3}
        weakref.finalize(self, _cujit._host_free, kind, self.host, self.device)


class HostDeviceArray(np.ndarray):
    """A NumPy array in managed or mapped memory (Numba's ManagedNDArray /
    MappedNDArray): host code uses it as NumPy; kernels take it in place."""

    def __array_finalize__(self, obj):
        mem = getattr(obj, "_mem", None)
        # a view keeps the allocation; a copy (new memory) has none
        self._mem = mem if mem is not None and _inside(self, mem) else None
        self._stream = getattr(obj, "_stream", 0)

    def __array_wrap__(self, arr, context=None, return_scalar=False):
        """a ufunc's result is new host memory (a plain NumPy array), unless
        it was written into one of these arrays (out=, a += 1)"""
        if return_scalar and arr.ndim == 0:
            return arr[()]
        if isinstance(arr, HostDeviceArray) and arr._mem is not None:
            return arr
        return arr.view(np.ndarray)

    def __reduce__(self):
        """pickled as the plain NumPy array of its values (the memory stays here)"""
        return np.array(self, subok=False).__reduce__()

    def copy(self, order="C"):
        """a host copy: a plain numpy.ndarray"""
        return np.array(self, order=order, subok=False)

    @property
    def __cuda_array_interface__(self):
        mem = self._mem
        if mem is None:
            raise AttributeError("this array is a host copy, not managed or mapped memory")
        host = self.__array_interface__["data"][0]
        strides = None if self.flags.c_contiguous else self.strides
        stream = int(getattr(self._stream, "handle", self._stream) or 0)
        return {"shape": self.shape, "typestr": self.dtype.str, "descr": self.dtype.descr,
                "data": (host - mem.host + mem.device_address, False), "strides": strides,
                "version": 3, "stream": stream if stream not in (0, 1) else None}

    # what Numba's device arrays also have

    @property
    def stream(self):
        return self._stream

    @property
    def device_ctypes_pointer(self):
        import ctypes
        return ctypes.c_void_p(self.__cuda_array_interface__["data"][0])

    def copy_to_host(self, ary=None, stream=0):
        """a NumPy copy (into ary if given), once the device's work is done"""
        import cujit
        cujit.synchronize()
        if ary is None:
            return np.array(self, subok=False)
        ary[...] = self
        return ary

    def copy_to_device(self, ary, stream=0):
        """ary's data into this array (host memory written in place)"""
        import cujit
        cujit.synchronize()
        if hasattr(ary, "copy_to_host") and not isinstance(ary, np.ndarray):
            ary = ary.copy_to_host()
        self[...] = ary

    def is_c_contiguous(self):
        return bool(self.flags.c_contiguous)

    def is_f_contiguous(self):
        return bool(self.flags.f_contiguous)


def _inside(arr, mem):
    if arr.size == 0:
        return True
    host = arr.__array_interface__["data"][0]
    return mem.host <= host < mem.host + max(mem.nbytes, 1)


def _array(kind, flag, shape, dtype, strides, order, stream):
    dtype = np.dtype(dtype)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if order not in ("C", "F"):
        raise ValueError(f"order={order!r}: give 'C' or 'F'")
    if any(n < 0 for n in shape):
        raise ValueError(f"negative dimensions are not allowed: shape {shape}")
    nbytes = dtype.itemsize * int(np.prod(shape, dtype=np.int64))
    if strides is not None:
        strides = tuple(strides)
        if len(strides) != len(shape):
            raise ValueError(f"strides {strides} do not match shape {shape}")
        if any(s < 0 for s in strides):
            raise ValueError(f"negative strides {strides}: give non-negative ones")
        nbytes = 0 if 0 in shape else \
            sum(s * (n - 1) for n, s in zip(shape, strides)) + dtype.itemsize
    mem = _Memory(kind, nbytes, flag)
    raw = np.asarray(mem)
    arr = np.ndarray(shape, dtype, buffer=raw, strides=strides, order=order)
    out = arr.view(HostDeviceArray)
    out._mem = mem
    out._stream = stream
    return out


def managed_array(shape, dtype=np.float64, strides=None, order="C", stream=0,
                  attach_global=True):
    """A NumPy array in managed memory that kernels take in place
    (attach_global=False: attached to the host until a stream uses it)."""
    return _array(_MANAGED, attach_global, shape, dtype, strides, order, stream)


def mapped_array(shape, dtype=np.float64, strides=None, order="C", stream=0, portable=False,
                 wg=False):
    """A NumPy array in page-locked host memory mapped into the device
    (wg=True: write-combined, fast for the device to read and slow for the
    host to read)."""
    return _array(_MAPPED, wg, shape, dtype, strides, order, stream)
