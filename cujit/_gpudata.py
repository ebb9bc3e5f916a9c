"""A device array's gpu_data (runtime/array.c makes it): Numba's
MemoryPointer of the allocation that views share, here its address as an
int, with the MemoryPointer's device_pointer (Numba's tests pass
int(a.gpu_data.device_pointer) to a types.CPointer parameter)."""


class GpuData(int):
    """The address of the allocation a device array and its views look into."""

    __slots__ = ()

    @property
    def device_pointer(self):
        """The address (Numba: a CUdeviceptr; int() of it is the address)"""
        return int(self)

    def __repr__(self):
        return f"<cujit gpu_data 0x{int(self):x}>"
