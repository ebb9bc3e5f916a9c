"""Stand-ins of numba.cuda's submodules that users touch: cudadrv (driver,
devicearray, error, nvrtc), devices and np.numpy_support; Numba's error and
warning classes (TypingError, NumbaPerformanceWarning ...) and ``config``,
the switches of Numba's warnings."""

import cujit
from cujit import _extern
from cujit import _ntypes
from cujit import _warnings
from cujit.cuda import kernelnames
from cujit.cuda.contexts import current_context, gpus
from cujit.cuda.interop import _Interface, is_cuda_array
from cujit.cuda.memory import device_array_like, to_device
from cujit.cuda.streams import Stream


class _DeviceArrayModule:
    """cuda.cudadrv.devicearray / cuda.devicearray: Numba's array class names
    (cujit's DeviceArray, usable with isinstance)."""
    DeviceNDArray = cujit.DeviceArray
    DeviceNDArrayBase = cujit.DeviceArray
    DeviceRecord = cujit.DeviceArray

    @staticmethod
    def is_cuda_ndarray(obj):
        return isinstance(obj, cujit.DeviceArray)

    @staticmethod
    def auto_device(obj, stream=0, copy=True, user_explicit=False):
        """(device array, whether it was copied): obj itself when it is on the
        device, else a copy.  A host array whose elements are not one
        contiguous block (x[::2]; axes of stride 0 aside) is a ValueError, as
        in Numba: it cannot be copied as one memory region."""
        if is_cuda_array(obj):
            return obj, False
        import numpy as np
        ary = np.asarray(obj)
        core = ary[tuple(0 if s == 0 else slice(None) for s in ary.strides)]
        if not core.flags.c_contiguous and not core.flags.f_contiguous:
            raise ValueError("auto_device(): the array is not contiguous (its strides are "
                             f"{ary.strides} for shape {ary.shape}), so it cannot be copied "
                             "as one memory region; pass np.ascontiguousarray(a)")
        return to_device(ary, stream), True

    @staticmethod
    def from_array_like(ary, stream=0, gpu_data=None):
        """A new device array of ary's shape, strides and dtype (not filled)."""
        return device_array_like(ary, stream)

    def __repr__(self):
        return "<cujit.cuda.cudadrv.devicearray>"


class CudaSupportError(ImportError):
    """No CUDA driver or device (Numba's cuda.cudadrv.error.CudaSupportError)."""


# numba.core.errors.TypingError: a kernel's type error at compile time
TypingError = cujit.CompileTypeError
# numba.cuda.core.errors' warnings (cujit/_warnings.py), and the switches that silence
# them under Numba's names (cuda.config.CUDA_LOW_OCCUPANCY_WARNINGS = 0)
NumbaPerformanceWarning = _warnings.PerformanceWarning
NumbaInvalidConfigWarning = _warnings.InvalidConfigWarning
config = _warnings.config
_warnings._push()


# numba.core.errors.NumbaWarning: what cujit warns about at compile time (a
# variable read where no path assigned it: Numba's "Detected uninitialized
# variable") is a UserWarning
NumbaWarning = UserWarning


class _DriverModule:
    """cuda.cudadrv.driver: Numba's error classes and stream class names."""
    CudaAPIError = cujit.CudaError
    CudaDriverError = cujit.CudaError
    LinkerError = cujit.CompileError
    CudaSupportError = CudaSupportError
    Stream = Stream              # cuda.stream()'s class (a cujit.Stream)
    Event = cujit.Event
    Device = cujit.Device

    @staticmethod
    def _have_nvjitlink():
        return False

    @property
    def IpcHandle(self):            # noqa: N802  (Numba's class name)
        from cujit import _ipc
        return _ipc.IpcHandle

    @staticmethod
    def device_to_host(dst, src, size, stream=0):
        """Copies size bytes from device address src (an int, an object with
        device_pointer, or a device array) into the host array dst."""
        import numpy as np
        host = np.asarray(dst).reshape(-1).view(np.uint8)
        if size > host.nbytes:
            raise ValueError(f"device_to_host: {size} bytes do not fit the {host.nbytes} "
                             "bytes of the destination")
        _raw_device(src, size).copy_to_host(host[:size])

    @staticmethod
    def host_to_device(dst, src, size, stream=0):
        """Copies size bytes of the host array src to device address dst."""
        import numpy as np
        host = np.ascontiguousarray(src).reshape(-1).view(np.uint8)
        _raw_device(dst, size).copy_to_device(host[:size])

    def __repr__(self):
        return "<cujit.cuda.cudadrv.driver>"


class _RuntimeModule:
    """cuda.runtime (numba.cuda.cudadrv.runtime): cujit links no CUDA runtime
    library; the toolkit version it compiles with is NVRTC's, which ships
    with the runtime of the same version."""

    @staticmethod
    def get_version():
        """(major, minor) of the CUDA toolkit cujit compiles with (NVRTC's)."""
        return cujit._cujit._nvrtc_version()

    @staticmethod
    def is_supported_version():
        return True

    def __repr__(self):
        return "<cujit.cuda.runtime>"


runtime = _RuntimeModule()


class _CudadrvModule:
    """cuda.cudadrv: the parts of Numba's driver package users touch."""
    runtime = runtime
    devicearray = _DeviceArrayModule()
    driver = _DriverModule()
    devices = gpus
    nvrtc = _extern.NvrtcModule()

    class error:            # noqa: N801  (Numba's module name)
        CudaSupportError = CudaSupportError
        CudaDriverError = cujit.CudaError

    def __repr__(self):
        return "<cujit.cuda.cudadrv>"


def _raw_device(ptr, size):
    """a uint8 DeviceArray over size bytes at a device address"""
    if hasattr(ptr, "__cuda_array_interface__"):
        ptr = ptr.__cuda_array_interface__["data"][0]
    ptr = int(getattr(ptr, "device_pointer", ptr))
    desc = {"shape": (int(size),), "typestr": "|u1", "data": (ptr, False), "version": 3,
            "strides": None, "stream": None}
    return cujit._cujit._as_device_array(_Interface(desc, None))


class _DevicesModule:
    """cuda.devices (numba.cuda.cudadrv.devices): the GPUs and contexts."""
    gpus = None         # set below

    @staticmethod
    def get_context(devnum=None):
        return current_context(devnum)

    def __repr__(self):
        return "<cujit.cuda.devices>"


cudadrv = _CudadrvModule()
devicearray = cudadrv.devicearray
driver = cudadrv.driver
devices = _DevicesModule()
devices.gpus = gpus
DeviceNDArray = cujit.DeviceArray
CudaAPIError = cujit.CudaError
CudaDriverError = cujit.CudaError       # numba.cuda.cudadrv.error's (a forked child's)


class _NumpySupport:
    """numba.cuda.np.numpy_support's conversions between NumPy dtypes and
    the type objects of cujit.cuda (numba's own reject cujit's objects)."""

    from_dtype = staticmethod(_ntypes.from_dtype)

    @property
    def numpy_version(self):
        """NumPy's version as a tuple of ints, (2, 4) (Numba's tests pick
        the NumPy behaviour they expect by it)."""
        import numpy as np
        return tuple(int(p) for p in np.__version__.split(".")[:2])

    @staticmethod
    def as_dtype(nbtype):
        """The NumPy dtype of a number or boolean type object (cujit's or
        numba's); NotImplementedError for anything else, as Numba raises."""
        import numpy as np
        dt = getattr(nbtype, "dtype", None)
        if isinstance(nbtype, _ntypes.Scalar) or (_ntypes._from_numba(nbtype)
                                                   and isinstance(dt, np.dtype)):
            return dt
        try:
            return np.dtype(str(nbtype))
        except TypeError:
            raise NotImplementedError("%r cannot be represented as a NumPy dtype"
                                      % (nbtype,)) from None


numpy_support = _NumpySupport()
# numba.cuda.np.numpy_support.carray / farray: cuda.carray / farray
numpy_support.carray = kernelnames.carray
numpy_support.farray = kernelnames.farray
