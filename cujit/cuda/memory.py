"""Host side, arrays: to_device, device_array(_like), pinned, mapped and
managed arrays, and cuda.In / Out / InOut (how a host array goes to a
launch, ``_arg_value``).  The arrays are cujit's DeviceArray with Numba's
host rules (``_numba_rules``)."""

import cujit
from cujit.cuda.interop import is_cuda_array


# ---- cuda.In / Out / InOut: how a host array goes to a launch ----

class _ArgHint:
    """Numba's argument hints: the array goes to the device for the launch;
    In is not copied back, Out is not copied in, InOut both (what cujit does
    with a plain host array)."""
    copy_in = copy_back = True
    _cujit_explicit_copy = True     # no PerformanceWarning: the copy was asked for

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return f"cuda.{type(self).__name__}({self.value!r})"


class In(_ArgHint):
    """A host array copied to the device for a launch and not back: the
    launch reads a device copy made at the first use."""
    copy_back = False

    @property
    def __cuda_array_interface__(self):
        if is_cuda_array(self.value):
            return self.value.__cuda_array_interface__
        dev = self.__dict__.get("_dev")
        if dev is None:
            import numpy as np
            dev = self.__dict__["_dev"] = to_device(np.asarray(self.value))
        return dev.__cuda_array_interface__


class Out(_ArgHint):
    """A host array the launch writes: copied back after it (cujit also
    copies it in, which Numba skips)."""
    copy_in = False

    def __array__(self, dtype=None, copy=None):
        return self.value


class InOut(_ArgHint):
    """A host array copied in and back, as cujit does with any host array."""

    def __array__(self, dtype=None, copy=None):
        return self.value


def _arg_value(a, stream, retr):
    """An argument as the launch takes it: a hint (cujit's, or Numba's by
    its class name) becomes a device array, copied back after the launch
    through retr where the hint says so."""
    name = type(a).__name__
    if not (isinstance(a, _ArgHint) or (name in ("In", "Out", "InOut") and hasattr(a, "value"))):
        return a
    host = a.value
    if hasattr(host, "__cuda_array_interface__"):
        return host
    import numpy as np
    host_arr = np.asarray(host)
    copy_in = getattr(a, "copy_in", name != "Out")
    copy_back = getattr(a, "copy_back", name != "In")
    dev = to_device(host_arr, stream) if copy_in else device_array_like(host_arr, stream)
    if copy_back:
        retr.append(lambda: dev.copy_to_host(host_arr, stream=_stream(stream)))
    return dev


# ---- host arrays: cujit's DeviceArray with Numba's host rules, NumPy arrays ----

def _stream(stream):
    return None if stream == 0 else stream


def to_device(obj, stream=0, copy=True, to=None):
    """A DeviceArray holding a copy of obj (to=: copy into that array)."""
    if to is not None:
        to.copy_to_device(obj, stream=_stream(stream))
        return to
    return cujit.to_device(obj, stream=_stream(stream))._numba_rules()


def device_array(shape, dtype=float, strides=None, order="C", stream=0):
    """An uninitialised DeviceArray (strides= must be None)."""
    if strides is not None:
        raise NotImplementedError("cuda.device_array(strides=...): give order= instead")
    import numpy as np
    return cujit.empty(shape, dtype=np.dtype(dtype), order=order,
                       stream=_stream(stream))._numba_rules()


def device_array_like(ary, stream=0):
    """An uninitialised contiguous DeviceArray of ary's shape and dtype
    (Fortran order for a Fortran-only contiguous ary, else C)."""
    return cujit.empty(ary.shape, dtype=ary.dtype, order=_like_order(ary),
                       stream=_stream(stream))._numba_rules()


def pinned_array(shape, dtype=float, strides=None, order="C"):
    """A NumPy array (cujit copies host arrays itself; this one is not
    page-locked)."""
    import numpy as np
    if strides is not None:
        raise NotImplementedError("cuda.pinned_array(strides=...): give order= instead")
    return np.empty(shape, dtype, order=order)


def _f_only(a):
    flags = getattr(a, "flags", None)
    return flags is not None and flags["F_CONTIGUOUS"] and not flags["C_CONTIGUOUS"]


def _like_order(ary):
    """The order of a new contiguous array like ary, as Numba picks it: 'F'
    for a Fortran-only contiguous array, or a view of one whose strides grow
    along its axes (not transposed); else 'C'."""
    if _f_only(ary):
        return "F"
    flags = getattr(ary, "flags", None)
    if flags is None or flags["C_CONTIGUOUS"] or not _f_only(getattr(ary, "base", None)):
        return "C"
    st = [abs(s) for s, n in zip(ary.strides, ary.shape) if n > 1]
    return "F" if st == sorted(st) else "C"


def pinned_array_like(ary):
    """A NumPy array of ary's shape and dtype (ary may be on the device)."""
    import numpy as np
    return np.empty(ary.shape, ary.dtype, order=_like_order(ary))


def mapped_array(shape, dtype=float, strides=None, order="C", stream=0, portable=False,
                 wg=False):
    """A NumPy array in page-locked host memory mapped into the device:
    kernels read and write it in place (cujit._hostmem)."""
    from cujit import _hostmem
    return _hostmem.mapped_array(shape, dtype, strides, order, stream, portable, wg)


def mapped_array_like(ary, stream=0, portable=False, wg=False):
    """A mapped array of ary's shape and dtype (see mapped_array)."""
    return mapped_array(ary.shape, ary.dtype, order=_like_order(ary), stream=stream,
                        portable=portable, wg=wg)


def managed_array(shape, dtype=float, strides=None, order="C", stream=0, attach_global=True):
    """A NumPy array in managed memory (cuMemAllocManaged): the host uses it
    as NumPy (after a synchronize, once kernels wrote it), kernels take it in
    place (cujit._hostmem)."""
    from cujit import _hostmem
    return _hostmem.managed_array(shape, dtype, strides, order, stream, attach_global)


def pinned(*arrays):
    """``with cuda.pinned(a):``: a no-op (cujit does not page-lock host arrays)."""
    import contextlib
    return contextlib.nullcontext()
