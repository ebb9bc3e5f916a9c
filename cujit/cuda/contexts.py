"""Host side, devices and contexts: select_device, get_current_device,
is_available, detect, cuda.gpus, list_devices, current_context()
(``_Context``: memory info, reset, IPC handles), the profiler's start and
stop, defer_cleanup."""

import contextlib

import cujit


def select_device(device_id):
    d = cujit.Device(device_id)
    d.use()
    return d


def get_current_device():
    return cujit.get_device()


def close():
    """Numba's cuda.close(): cujit keeps its context; this synchronizes."""
    if cujit.is_available():
        cujit.synchronize()


def is_available():
    return cujit.is_available()


def is_bfloat16_supported():
    """Numba's answer: the current device has compute capability 8.0 or more.
    (cujit's bfloat16 is plain C++ on 16-bit integers, which any device runs;
    Numba's tests and users ask this before they use cuda.bf16.)  False where
    no GPU can be reached."""
    try:
        return tuple(get_current_device().compute_capability) >= (8, 0)
    except cujit.CudaError:
        return False


def detect():
    """Prints the GPUs found and returns True when there is at least one."""
    try:
        n = cujit.device_count()
    except Exception as e:          # no driver
        print(f"cujit found no CUDA driver: {e}")
        return False
    print(f"Found {n} CUDA devices")
    for i in range(n):
        d = cujit.Device(i)
        major, minor = d.compute_capability
        print(f"id {i} {d.name} compute capability {major}.{minor}")
    return n > 0


# ---- cuda.gpus, cuda.current_context() ----

class _GPUs:
    """``cuda.gpus``: the devices, list-like (``len``, ``gpus[i]``,
    iteration); each is a cujit.Device, which as a context manager makes
    itself current and restores the previous device (``with
    cuda.gpus[1]:``)."""

    def _count(self):
        try:
            return cujit.device_count()
        except Exception:           # no driver: no GPUs
            return 0

    def __len__(self):
        return self._count()

    def __getitem__(self, i):
        n = self._count()
        if isinstance(i, slice):
            return [cujit.Device(j) for j in range(n)[i]]
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"cuda.gpus[{i}]: there are {n} GPUs")
        return cujit.Device(i)

    def __iter__(self):
        return iter([cujit.Device(j) for j in range(self._count())])

    @property
    def current(self):
        """The current device."""
        return cujit.get_device()

    def __repr__(self):
        return f"<cujit.cuda.gpus: {self._count()} devices>"


gpus = _GPUs()


class _Context:
    """What ``cuda.current_context()`` gives: the current device's (primary)
    context as far as cujit has one."""

    def __init__(self, device):
        self.device = device

    def get_memory_info(self):
        """(free, total) bytes of the device."""
        info = cujit.memory_info()
        return _MemoryInfo(info["free"], info["total"])

    def synchronize(self):
        with self.device:
            cujit.synchronize()

    def reset(self):
        """Synchronizes and gives the memory cujit's pools hold but do not use
        back to the driver (cujit's context and compiled kernels stay)."""
        with self.device:
            cujit.release_memory()

    def get_ipc_handle(self, memory):
        """An IpcHandle of memory (a device array's gpu_data, the array, or a
        device address) that another process opens (cujit._ipc)."""
        from cujit import _ipc
        with self.device:
            return _ipc.memory_handle(memory)

    def __eq__(self, other):
        return isinstance(other, _Context) and other.device.id == self.device.id

    def __hash__(self):
        return hash(self.device.id)

    def __repr__(self):
        return f"<cujit.cuda context of device {self.device.id}>"


class _MemoryInfo(tuple):
    """(free, total), also by name."""

    def __new__(cls, free, total):
        return super().__new__(cls, (free, total))

    free = property(lambda self: self[0])
    total = property(lambda self: self[1])


def current_context(devnum=None):
    """The current device's context (after select_device(devnum) when given)."""
    if devnum is not None:
        select_device(devnum)
    return _Context(cujit.get_device())


def get_context(devnum=None):
    return current_context(devnum)


def list_devices():
    """The GPUs, as cuda.gpus lists them."""
    return list(gpus)


def _profiler(name):
    """cuProfilerStart / cuProfilerStop in the current device's context: what
    Nsight Systems (--capture-range=cudaProfilerApi) or nvprof record between
    them."""
    import ctypes
    try:
        fn = getattr(ctypes.CDLL("libcuda.so.1"), name)
    except (OSError, AttributeError) as e:
        raise cujit.CudaError(f"cuda.profile_{name[10:].lower()}(): the CUDA driver has no "
                              f"{name} ({e})") from None
    fn.restype = ctypes.c_int
    with cujit.get_device():
        r = fn()
    if r != 0:
        raise cujit.CudaError(f"{name} failed: CUDA error {r}")


def profile_start():
    """Starts the profiler's collection (cuProfilerStart)."""
    _profiler("cuProfilerStart")


def profile_stop():
    """Stops the profiler's collection (cuProfilerStop)."""
    _profiler("cuProfilerStop")


@contextlib.contextmanager
def profiling():
    """``with cuda.profiling():`` collects only what runs inside."""
    profile_start()
    try:
        yield
    finally:
        profile_stop()


@contextlib.contextmanager
def defer_cleanup():
    """Numba's context manager that holds memory frees back until it exits,
    so that no free synchronizes inside it.  cujit's frees never synchronize
    (they are ordered on the array's stream, cuMemFreeAsync), so there is
    nothing to hold back: freeing inside it is already safe and cheap."""
    yield
