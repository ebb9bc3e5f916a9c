"""CUDA IPC: a cujit array's device memory opened by another process, with
Numba's objects (``a.get_ipc_handle()``, ``ctx.get_ipc_handle(a.gpu_data)``,
``cuda.open_ipc_array(handle, shape, dtype)``, ``IpcHandle`` and
``IpcArrayHandle``, both picklable).

cujit's arrays live in a stream-ordered memory pool, which the legacy
``cuIpcGetMemHandle`` cannot export.  The pool is created exportable instead
(a POSIX file descriptor handle type, runtime/driver.c), so any array can be
shared without a copy: the handle carries the allocation's export data
(``cuMemPoolExportPointer``, 64 bytes), and the importing process needs the
pool's file descriptor too.  The exporting process serves it: a daemon
thread listens on an abstract Unix socket (started at the first export) and
sends the descriptor over it (SCM_RIGHTS) to a process that gives the
handle's random token and runs as the same user.  The handle's bytes
(``handle.reserved``) name the socket, the token, the device and the export
data, so the bytes alone open the memory, as Numba's tests require.
ARCHITECTURE.md, "CUDA IPC exports pool memory", says why.

Rules (the driver's): the exporter must keep the array alive while others
use it, and importers must close their handles before it is freed.  A
handle opened in the process that made it gives the same memory.
"""
import os
import secrets
import socket
import struct
import threading

import cujit
from cujit import _cujit

_MAGIC = b"cujitIPC"
# magic, exporter pid, device, token, export data, allocation size; then the
# socket's address
_HEAD = struct.Struct("<8sqi16s64sQH")

_lock = threading.Lock()
_server = None                  # this process's _Server, from the first export
_pool_fds = {}                  # device -> the fd of its exported pool
_pools = {}                     # (address, device) -> (imported pool, fd)
_exported = {}                  # export data -> allocation base (this process)


def _after_fork():
    """a forked child has no server thread and none of the parent's imports"""
    global _server
    _server = None
    _pool_fds.clear()
    _pools.clear()
    _exported.clear()


os.register_at_fork(after_in_child=_after_fork)


class _Server:
    """Hands this process's exported pools' fds to the processes that open
    its handles."""

    def __init__(self):
        from multiprocessing.connection import Listener
        self.token = secrets.token_bytes(16)
        address = "\0cujit-ipc-%d-%s" % (os.getpid(), secrets.token_hex(8))
        self.listener = Listener(address, family="AF_UNIX", authkey=self.token)
        self.address = address
        t = threading.Thread(target=self._serve, name="cujit-ipc", daemon=True)
        t.start()

    def _serve(self):
        from multiprocessing import AuthenticationError
        from multiprocessing.reduction import send_handle
        while True:
            try:
                conn = self.listener.accept()
            except (AuthenticationError, EOFError, ConnectionError):
                continue        # a client without the token, or one that left
            except OSError:
                return          # the listener is closed
            with conn:
                try:
                    if _peer_uid(conn) != os.getuid():
                        continue
                    # bytes, never pickles: the device's number
                    dev = int.from_bytes(conn.recv_bytes(8), "little", signed=True)
                    fd = _pool_fds.get(dev)
                    conn.send_bytes(b"\1" if fd is not None else b"\0")
                    if fd is not None:
                        send_handle(conn, fd, None)
                except (EOFError, OSError, ValueError):
                    pass


def _peer_uid(conn):
    """the user id of the process at the other end of a Unix socket"""
    with socket.fromfd(conn.fileno(), socket.AF_UNIX, socket.SOCK_STREAM) as s:
        creds = s.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1]


def _ensure_server():
    global _server
    with _lock:
        if _server is None:
            _server = _Server()
        return _server


class _HandleBytes:
    """The handle itself (Numba's CUipcMemHandle): ``reserved`` is its bytes."""

    def __init__(self, reserved):
        self.reserved = bytes(reserved)

    def __eq__(self, other):
        return isinstance(other, _HandleBytes) and other.reserved == self.reserved

    def __hash__(self):
        return hash(self.reserved)

    def __repr__(self):
        return "<cujit IPC handle bytes, %d bytes>" % len(self.reserved)


def _decode(reserved):
    """(pid, device, token, export data, allocation size, address) of
    handle bytes; ValueError for bytes that are no cujit handle"""
    b = bytes(reserved)
    if len(b) < _HEAD.size or not b.startswith(_MAGIC):
        raise ValueError("open_ipc_array: the handle is not a cujit IPC handle (give "
                         "handle.reserved of an IpcHandle that cujit made, or the IpcHandle)")
    _, pid, dev, token, data, size, n = _HEAD.unpack_from(b)
    address = b[_HEAD.size:_HEAD.size + n].decode()
    return pid, dev, token, data, size, address


def _export(ptr, base, size=None, owned=(0, 0)):
    """an IpcHandle of the device memory at address ptr (size bytes from it:
    None, to the end of its allocation); base is kept alive by the handle;
    owned: (start, size) of the allocation when cujit owns it, else the
    driver is asked which allocation holds ptr"""
    if os.name != "posix":
        raise OSError("OS does not support CUDA IPC: cujit shares memory through POSIX "
                      "file descriptors")
    cujit.synchronize()         # the importer may read as soon as it has the handle
    data, alloc, alloc_size, dev = _cujit._ipc_export(int(ptr), *owned)
    offset = int(ptr) - alloc
    if size is None:
        size = alloc_size - offset
    if dev not in _pool_fds:
        _pool_fds[dev] = _cujit._ipc_pool_fd()
    server = _ensure_server()
    _exported[data] = alloc
    addr = server.address.encode()
    reserved = _HEAD.pack(_MAGIC, os.getpid(), dev, server.token, data, alloc_size,
                          len(addr)) + addr
    return IpcHandle(base, _HandleBytes(reserved), size, _source_info(dev), offset)


def _source_info(dev):
    return {"device": dev, "pid": os.getpid()}


def _fetch_fd(address, token, dev):
    from multiprocessing.connection import Client
    from multiprocessing.reduction import recv_handle
    try:
        with Client(address, family="AF_UNIX", authkey=token) as conn:
            conn.send_bytes(dev.to_bytes(8, "little", signed=True))
            if conn.recv_bytes(1) != b"\1":
                raise ValueError("open_ipc_array: the exporting process has no memory pool "
                                 f"of device {dev} exported")
            return recv_handle(conn)
    except (ConnectionError, FileNotFoundError, EOFError) as e:
        raise ValueError("open_ipc_array: cannot reach the process that made the handle (it "
                         f"must still be running, and its arrays alive): {e}") from None


def _open(reserved):
    """(address of the allocation in this process, device, close needed)"""
    pid, dev, token, data, size, address = _decode(reserved)
    if pid == os.getpid() and data in _exported:
        return _exported[data], dev, False          # our own memory
    with _lock:
        pool, fd = _pools.get((address, dev), (0, -1))
        if not pool:
            fd = _fetch_fd(address, token, dev)
        try:
            ptr, pool = _cujit._ipc_import(pool, fd, data)
        except BaseException:
            if (address, dev) not in _pools:
                os.close(fd)
            raise
        _pools[(address, dev)] = (pool, fd)         # the fd stays open with the pool
    return ptr, cujit.get_device().id, True


class _Opened:
    """An opened handle's memory in this process: holds the import, and is
    the base of the arrays over it (their __cuda_array_interface__ owner)."""

    def __init__(self, reserved):
        self._close = False
        self.ptr, self.device, self._close = _open(reserved)

    def close(self):
        if self._close:
            self._close = False
            _cujit._ipc_close(self.ptr, self.device)

    def __del__(self):
        self.close()


class _View:
    """An object with a __cuda_array_interface__ over opened memory (the base
    of the DeviceArray made of it, keeping the opened memory alive)."""

    def __init__(self, opened, ptr, shape, dtype, strides):
        self.opened = opened
        self.__cuda_array_interface__ = {
            "shape": tuple(shape), "typestr": dtype.str, "data": (ptr, False),
            "strides": None if strides is None else tuple(strides), "version": 3,
            "stream": None}


def _shape(shape):
    return (int(shape),) if isinstance(shape, int) or hasattr(shape, "__index__") \
        else tuple(int(n) for n in shape)


class IpcHandle:
    """Numba's IpcHandle: the handle of device memory another process can
    open.  ``base`` is the exported object (None once pickled), ``handle``
    the bytes (``handle.reserved``), ``size`` the bytes shared and
    ``offset`` where they start in the allocation."""

    def __init__(self, base, handle, size, source_info=None, offset=0):
        self.base = base
        if isinstance(handle, (bytes, bytearray)):
            handle = _HandleBytes(handle)
        self.handle = handle
        self.size = size
        self.source_info = source_info
        self.offset = offset
        self._opened = None

    def __reduce__(self):
        return (IpcHandle, (None, self.handle, self.size, self.source_info, self.offset))

    def open(self, context=None):
        """The memory in this process (on the current device), as a pointer
        object (an int with ``device_pointer``)."""
        if self._opened is not None:
            raise ValueError("IpcHandle is already opened")
        self._opened = _Opened(self.handle.reserved)
        from cujit._gpudata import GpuData
        return GpuData(self._opened.ptr + self.offset)

    def open_staged(self, context=None):
        """As open(): cujit grants the current device access to the exporter's
        pool, so another device of this machine needs no staging."""
        return self.open(context)

    def open_array(self, context, shape, dtype, strides=None):
        """A cujit.DeviceArray of that shape, dtype and strides over the memory."""
        import numpy as np
        dtype = np.dtype(dtype)
        shape = _shape(shape)
        ptr = int(self.open(context))
        nbytes = dtype.itemsize
        for n in shape:
            nbytes *= n
        if strides is None and nbytes > self.size:
            self.close()
            raise ValueError(f"open_array: shape {shape} of {dtype} needs {nbytes} bytes; the "
                             f"handle shares {self.size}")
        view = _View(self._opened, ptr, shape, dtype, strides)
        return _cujit._as_device_array(view)

    def close(self):
        """Closes what open() opened (arrays over it must not be used after)."""
        if self._opened is not None:
            self._opened.close()
            self._opened = None

    def __repr__(self):
        return f"<cujit.cuda IpcHandle of {self.size} bytes at offset {self.offset}>"


class IpcArrayHandle:
    """Numba's IpcArrayHandle (what ``a.get_ipc_handle()`` gives): ``with h
    as arr:`` opens the array in this process and closes it at the end."""

    def __init__(self, ipc_handle, array_desc):
        self._ipc_handle = ipc_handle
        self._array_desc = array_desc

    def open(self):
        return self._ipc_handle.open_array(None, **self._array_desc)

    def close(self):
        self._ipc_handle.close()

    def __enter__(self):
        return self.open()

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"<cujit.cuda IpcArrayHandle {self._array_desc}>"


def array_handle(arr):
    """``arr.get_ipc_handle()``: an IpcArrayHandle of a device array (any
    view of cujit's memory, a foreign array's view of it too)."""
    import numpy as np
    cai = arr.__cuda_array_interface__
    dtype = np.dtype(arr.dtype)
    shape = tuple(arr.shape)
    strides = tuple(arr.strides)
    lo, hi = _extent(shape, strides, dtype.itemsize)
    if lo < 0:
        raise NotImplementedError("get_ipc_handle(): an array with negative strides; share "
                                  "a.copy() instead")
    device = getattr(arr, "device", None)
    with device if isinstance(device, cujit.Device) else _nullcontext():
        ipch = _export(cai["data"][0], arr, hi, _owned(arr.gpu_data))   # its device's pool
    return IpcArrayHandle(ipch, {"shape": shape, "strides": strides, "dtype": dtype})


def _nullcontext():
    import contextlib
    return contextlib.nullcontext()


def _owned(gpu_data):
    """(start, size) of the allocation cujit owns behind a gpu_data, or
    (0, 0) for another library's memory"""
    size = getattr(gpu_data, "alloc_size", 0)
    return (int(gpu_data), size) if size else (0, 0)


def _extent(shape, strides, itemsize):
    """the byte range [lo, hi) a view touches from its first element"""
    if any(n == 0 for n in shape):
        return 0, 0
    lo = sum(s * (n - 1) for n, s in zip(shape, strides) if s < 0)
    hi = sum(s * (n - 1) for n, s in zip(shape, strides) if s > 0) + itemsize
    return lo, hi


def memory_handle(memory):
    """``ctx.get_ipc_handle(memory)``: an IpcHandle of a device array's
    gpu_data (its view's bytes), a device array, or an address."""
    if isinstance(memory, cujit.DeviceArray):
        return array_handle(memory)._ipc_handle
    ptr = getattr(memory, "view_pointer", None)
    if ptr is not None:
        return _export(ptr, memory, memory.view_size, _owned(memory))
    if not isinstance(memory, int):
        raise TypeError("get_ipc_handle() takes a device array, its gpu_data or a device "
                        f"address, not {type(memory).__name__}")
    return _export(memory, memory)


def open_ipc_array(handle, shape, dtype, strides=None, offset=0):
    """``with cuda.open_ipc_array(handle, shape, dtype) as arr:``: the array
    another process shared (handle: the handle's bytes, its ``handle``
    object, or an IpcHandle), closed at the end of the block."""
    import contextlib
    if isinstance(handle, IpcHandle):
        ipch = IpcHandle(None, handle.handle, handle.size, handle.source_info,
                         handle.offset + offset)
    else:
        reserved = getattr(handle, "reserved", handle)
        if not isinstance(reserved, (bytes, bytearray)):
            raise TypeError("open_ipc_array: the handle must be bytes (an IpcHandle's "
                            f"handle.reserved) or an IpcHandle, not {type(handle).__name__}")
        size = _decode(reserved)[4] - offset
        ipch = IpcHandle(None, reserved, size, None, offset)

    @contextlib.contextmanager
    def cm():
        arr = ipch.open_array(None, shape, dtype, strides)
        try:
            yield arr
        finally:
            ipch.close()
    return cm()
