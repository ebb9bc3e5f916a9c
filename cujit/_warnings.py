"""Numba's performance and configuration warnings for Numba's spelling
(cujit.cuda), with cujit's names and switches.

- ``PerformanceWarning`` (Numba's ``NumbaPerformanceWarning``): a cuda.jit
  kernel launched on a grid of fewer than 128 blocks (at ``k[grid, block]``),
  or given a host NumPy array, which the launch copies to the device and back
  (not a cuda.mapped_array, nor one wrapped in cuda.In / Out / InOut: their
  class says ``_cujit_explicit_copy``); a
  cuda.guvectorize function whose launch has fewer than 128 blocks.
- ``InvalidConfigWarning`` (Numba's ``NumbaInvalidConfigWarning``):
  ``cuda.jit(debug=True)`` with ``opt`` on, and ``debug`` with ``lineinfo``.

The switches are the attributes of ``config`` (``cujit.cuda.config``), read
at import from Numba's environment variables (``NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS``,
``NUMBA_CUDA_WARN_ON_IMPLICIT_COPY``, ``NUMBA_DISABLE_PERFORMANCE_WARNINGS``,
``NUMBA_CUDA_DEBUGINFO``, ``NUMBA_OPT``, ``NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS``:
linked CUDA C++'s include directories), defaults as Numba's: the two
launch warnings on.  The launch checks are in C (module/launch.c): a
Dispatcher carries ``_numba_warnings``, and the C side calls ``_launch_warning``
here only while a switch is on (``_cujit._set_launch_warnings``)."""
import os
import warnings


class PerformanceWarning(UserWarning):
    """Code that runs correctly but slower than it could (Numba's
    NumbaPerformanceWarning)."""


class InvalidConfigWarning(UserWarning):
    """Options that do not go together (Numba's NumbaInvalidConfigWarning)."""


def _env_int(names, default):
    for n in names:
        v = os.environ.get(n)
        if v not in (None, ""):
            try:
                return int(v)
            except ValueError:
                return default
    return default


class _Config:
    """cujit.cuda.config: the switches of Numba's warnings (Numba's names);
    setting one takes effect at once."""

    # CUDA_NVRTC_EXTRA_SEARCH_PATHS: directories (colon-separated) NVRTC
    # searches for the #include files of linked CUDA C++ (cujit/_extern.py)
    NAMES = ("CUDA_LOW_OCCUPANCY_WARNINGS", "CUDA_WARN_ON_IMPLICIT_COPY",
             "DISABLE_PERFORMANCE_WARNINGS", "CUDA_DEBUGINFO_DEFAULT", "OPT",
             "CUDA_NVRTC_EXTRA_SEARCH_PATHS")
    # Numba switches code written for Numba sets or saves and restores that
    # change nothing in cujit: kept, so reading and setting them work (no
    # runtime library to enable)
    INERT = {"CUDA_ENABLE_NRT": 0, "ENABLE_CUDASIM": 0, "CUDA_PER_THREAD_DEFAULT_STREAM": 0,
             "CUDA_LOG_LEVEL": "", "DUMP_ASSEMBLY": 0, "CUDA_USE_NVIDIA_BINDING": 1}

    def __init__(self):
        d = self.__dict__
        d["CUDA_LOW_OCCUPANCY_WARNINGS"] = _env_int(
            ("CUJIT_LOW_OCCUPANCY_WARNINGS", "NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS"), 1)
        d["CUDA_WARN_ON_IMPLICIT_COPY"] = _env_int(
            ("CUJIT_WARN_ON_IMPLICIT_COPY", "NUMBA_CUDA_WARN_ON_IMPLICIT_COPY"), 1)
        d["DISABLE_PERFORMANCE_WARNINGS"] = _env_int(
            ("CUJIT_DISABLE_PERFORMANCE_WARNINGS", "NUMBA_DISABLE_PERFORMANCE_WARNINGS"), 0)
        d["CUDA_DEBUGINFO_DEFAULT"] = _env_int(("NUMBA_CUDA_DEBUGINFO",), 0)
        d["OPT"] = _env_int(("NUMBA_OPT",), 3)
        d["CUDA_NVRTC_EXTRA_SEARCH_PATHS"] = os.environ.get(
            "NUMBA_CUDA_NVRTC_EXTRA_SEARCH_PATHS", "")
        d.update(self.INERT)

    def __setattr__(self, name, value):
        if name not in self.NAMES and name not in self.INERT:
            raise AttributeError(f"cujit.cuda.config has no switch {name!r}; it has "
                                 + ", ".join(self.NAMES + tuple(self.INERT)))
        if name == "CUDA_NVRTC_EXTRA_SEARCH_PATHS" and not isinstance(value, str):
            raise TypeError("cuda.config.CUDA_NVRTC_EXTRA_SEARCH_PATHS must be a str of "
                            f"directories separated by ':', not {type(value).__name__}")
        self.__dict__[name] = value
        _push()

    def occupancy_on(self):
        return bool(self.CUDA_LOW_OCCUPANCY_WARNINGS) and not self.DISABLE_PERFORMANCE_WARNINGS

    def copy_on(self):
        return bool(self.CUDA_WARN_ON_IMPLICIT_COPY) and not self.DISABLE_PERFORMANCE_WARNINGS

    def __repr__(self):
        return "cujit.cuda.config(" + ", ".join(f"{n}={getattr(self, n)!r}"
                                                for n in self.NAMES) + ")"


config = _Config()
MIN_GRID = 128      # Numba's: fewer blocks than this likely leave the GPU idle


def _push():
    from cujit import _cujit
    _cujit._set_launch_warnings(_launch_warning if config.occupancy_on() else None,
                                _launch_warning if config.copy_on() else None)


def low_occupancy(grid_size, stacklevel=3):
    warnings.warn(PerformanceWarning(f"Grid size {grid_size} will likely result in GPU "
                                     "under-utilization due to low occupancy."),
                  stacklevel=stacklevel)


def gufunc_occupancy(form, inputs):
    """a cuda.guvectorize launch of fewer than MIN_GRID blocks: its loop
    instances (the inputs' loop dimensions broadcast) over the threads per
    block of its last launch"""
    last = form.last_launch
    if not config.occupancy_on() or last is None:
        return
    import numpy as np
    shapes = []
    for a, core in zip(inputs, form.core_dims[0]):
        shape = tuple(np.shape(a))
        shapes.append(shape[:max(len(shape) - len(core), 0)])
    n = int(np.prod(np.broadcast_shapes(*shapes), dtype=np.int64))
    grid = -(-n // last[1])
    if grid < MIN_GRID:
        low_occupancy(grid, stacklevel=4)


def _launch_warning(kind, value):
    """called by the launch (C): kind "grid" with the grid's size, or "copy"
    with the host array the launch copies"""
    if kind == "grid":
        low_occupancy(value)
    elif not getattr(value, "_cujit_explicit_copy", False):
        warnings.warn(PerformanceWarning("Host array used in CUDA kernel will incur copy "
                                         "overhead to/from device."), stacklevel=2)


def check_options(debug, opt, lineinfo):
    """cuda.jit's options as Numba checks them: (debug, opt) with Numba's
    defaults filled in from config"""
    debug = config.CUDA_DEBUGINFO_DEFAULT if debug is None else debug
    opt = (config.OPT != 0) if opt is None else opt
    if debug and opt:
        warnings.warn(InvalidConfigWarning(
            "debug=True with opt=True is not supported by CUDA. This may result in a crash "
            "- set debug=False or opt=False."), stacklevel=3)
    if debug and lineinfo:
        warnings.warn(InvalidConfigWarning(
            "debug and lineinfo are mutually exclusive. Use debug to get full debug info "
            "(this disables some optimizations), or lineinfo for line info only with code "
            "generation unaffected."), stacklevel=3)
    return debug, opt
