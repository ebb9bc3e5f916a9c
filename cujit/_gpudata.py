"""A device array's gpu_data (runtime/array.c makes it): Numba's
MemoryPointer of the allocation that views share, here its address as an
int, with the MemoryPointer's device_pointer (Numba's tests pass
int(a.gpu_data.device_pointer) to a types.CPointer parameter).  It also
knows the view it came from (``view_pointer``, ``view_size``: the bytes
from the view's first element), which ``ctx.get_ipc_handle(a.gpu_data)``
shares, as Numba's MemoryPointer of a view does, and ``alloc_size``: the
bytes of the allocation at the address when cujit owns it (0 for memory of
another library)."""


class GpuData(int):
    """The address of the allocation a device array and its views look into."""

    def __new__(cls, address, view_pointer=None, view_size=None, alloc_size=0):
        self = super().__new__(cls, address)
        self.view_pointer = view_pointer
        self.view_size = view_size
        self.alloc_size = alloc_size
        return self

    @property
    def device_pointer(self):
        """The address (Numba: a CUdeviceptr; int() of it is the address)"""
        return int(self)

    def __repr__(self):
        return f"<cujit gpu_data 0x{int(self):x}>"
