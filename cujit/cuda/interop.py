"""Host side, arrays of other libraries and processes: objects with a
__cuda_array_interface__ viewed as DeviceArrays (as_cuda_array,
from_cuda_array_interface) after Numba's consumer rule on the producer's
stream (``_cai_sync``, ``_launch_sync``, which cuda.jit launches call too),
and CUDA IPC (get_ipc_handle, open_ipc_array)."""

import os
import sys

import cujit
from cujit.cuda.streams import external_stream


# ---- arrays of other libraries ----

def get_ipc_handle(ary):
    """ary.get_ipc_handle(): an IpcArrayHandle another process opens."""
    return ary.get_ipc_handle()


def open_ipc_array(handle, shape, dtype, strides=None, offset=0):
    """``with cuda.open_ipc_array(handle, shape, dtype) as arr:``, the array
    another process shared (cujit._ipc)."""
    from cujit import _ipc
    return _ipc.open_ipc_array(handle, shape, dtype, strides, offset)


def is_cuda_array(obj):
    return hasattr(obj, "__cuda_array_interface__")


def _producer_stream(desc):
    """the stream a __cuda_array_interface__ names (v3's 'stream': None, or
    a handle, 1 and 2 the legacy and per-thread default streams) as Numba's
    consumer takes it: an external stream object, None for none"""
    h = desc.get("stream") if isinstance(desc, dict) else None
    return external_stream(h) if isinstance(h, int) and h not in (0, 1, 2) else None


def as_cuda_array(obj, sync=True):
    """A cujit.DeviceArray viewing the memory of obj (its
    __cuda_array_interface__), no copy; obj stays alive while the view
    does.  The stream the interface names becomes the view's default stream
    (``.stream``, an external stream), as in Numba."""
    if not is_cuda_array(obj):
        raise TypeError("as_cuda_array: the object has no __cuda_array_interface__; copy "
                        "host data with cuda.to_device()")
    if isinstance(obj, cujit.DeviceArray):
        return obj if obj._numba else obj[...]._numba_rules()
    stream = _producer_stream(obj.__cuda_array_interface__)
    if sync and stream is not None and _cai_sync():
        stream.synchronize()        # Numba's consumer rule: the data is ready
    return cujit._cujit._as_device_array(obj, stream)._numba_rules()


def _cai_sync():
    """Numba's CUDA_ARRAY_INTERFACE_SYNC: whether importing an array whose
    interface names a stream waits for that stream (numba's config when
    numba is loaded, else NUMBA_CUDA_ARRAY_INTERFACE_SYNC, default on)"""
    for name in ("numba.cuda.core.config", "numba.core.config"):
        config = sys.modules.get(name)
        if config is not None and hasattr(config, "CUDA_ARRAY_INTERFACE_SYNC"):
            return bool(config.CUDA_ARRAY_INTERFACE_SYNC)
    return not _env_off(os.environ.get("NUMBA_CUDA_ARRAY_INTERFACE_SYNC", "1"))


def _launch_sync(handle):
    """Numba's rule at a cuda.jit launch (module/launch.c calls this for an
    argument whose __cuda_array_interface__ names a stream): the producer's
    stream is synchronized first, unless CUDA_ARRAY_INTERFACE_SYNC is off.
    The legacy and per-thread default streams (1, 2) are left, as in
    as_cuda_array: the launch is already ordered after them."""
    if handle not in (1, 2) and _cai_sync():
        external_stream(handle).synchronize()


def _env_off(v):
    return v.strip().lower() in ("0", "false", "no", "off")


class _Interface:
    """An object holding a __cuda_array_interface__ dict (the base of
    from_cuda_array_interface's views)."""

    def __init__(self, desc, owner):
        self.__cuda_array_interface__ = desc
        self.owner = owner


def from_cuda_array_interface(desc, owner=None, sync=True):
    """A cujit.DeviceArray over the memory a __cuda_array_interface__ dict
    describes, no copy; owner, if given, stays alive while the view does."""
    if not isinstance(desc, dict):
        raise TypeError("from_cuda_array_interface takes a __cuda_array_interface__ dict")
    if desc.get("mask") is not None:
        raise NotImplementedError("Masked arrays are not supported: cujit's arrays have no "
                                  "mask; apply it with cujit.where first")
    stream = _producer_stream(desc)
    if sync and stream is not None and _cai_sync():
        stream.synchronize()
    return cujit._cujit._as_device_array(_Interface(desc, owner), stream)._numba_rules()


cujit._cujit._set_cai_sync(_launch_sync)
