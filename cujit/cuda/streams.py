"""Host side, streams and events: cuda.stream() (``Stream``, a cujit.Stream
with Numba's methods), CUDA's built-in streams and external ones
(``_BuiltinStream``), events, synchronize."""

import types as _pytypes

import cujit


class Stream(cujit.Stream):
    """What cuda.stream() gives: a cujit.Stream with Numba's Stream methods
    (``auto_synchronize``).  A Python subclass, so Numba-style code can also
    patch its methods: the built-in and external streams look
    ``synchronize`` up here too (Numba's tests mock it on this class)."""

    external = False
    _synchronize = cujit.Stream.synchronize

    def synchronize(self):
        """Waits for the stream's work."""
        return self._synchronize()

    def auto_synchronize(self):
        """``with s.auto_synchronize():``: synchronizes the stream on exit."""
        return _synchronizing(self)


def _synchronizing(s):
    import contextlib

    @contextlib.contextmanager
    def cm():
        yield s
        s.synchronize()
    return cm()


def stream():
    return Stream()


class _BuiltinStream:
    """One of CUDA's built-in streams (Numba's default_stream(),
    legacy_default_stream(), per_thread_default_stream()) or a stream cujit
    did not make (external_stream): anything that takes a stream takes it
    (``handle``, ``__cuda_stream__``)."""

    def __init__(self, handle, name, external=False):
        self.handle = handle
        self._name = name
        self.external = external

    @property
    def synchronize(self):
        """Stream.synchronize (cuda.cudadrv.driver.Stream's), bound to this
        stream: a mock patched on that class is called as it is"""
        f = Stream.synchronize
        return f.__get__(self) if isinstance(f, _pytypes.FunctionType) else f

    def auto_synchronize(self):
        """``with s.auto_synchronize():``: synchronizes on exit."""
        return _synchronizing(self)

    def _synchronize(self):
        """Waits for the work submitted to the stream so far: an event
        recorded on it, waited for."""
        if cujit.is_available():
            e = cujit.Event(timing=False)
            e.record(self)
            e.synchronize()

    def __cuda_stream__(self):
        return (0, self.handle)

    def __int__(self):
        return self.handle

    def __eq__(self, other):
        return isinstance(other, _BuiltinStream) and other.handle == self.handle

    def __hash__(self):
        return hash(self.handle)

    def __repr__(self):
        return f"<cujit.cuda {self._name} stream 0x{self.handle:x}>"


def default_stream():
    """The default stream (handle 0, the legacy one unless the program was
    built for per-thread default streams)."""
    return _BuiltinStream(0, "default")


def legacy_default_stream():
    return _BuiltinStream(1, "legacy default")        # CU_STREAM_LEGACY


def per_thread_default_stream():
    return _BuiltinStream(2, "per-thread default")    # CU_STREAM_PER_THREAD


def external_stream(ptr):
    """A stream made elsewhere, given as its CUstream handle (an int)."""
    return _BuiltinStream(int(ptr), "external", external=True)


def event(timing=True):
    return cujit.Event(timing=timing)


def event_elapsed_time(evtstart, evtend):
    """Milliseconds between two recorded events."""
    return evtstart.elapsed_time(evtend)


def synchronize():
    cujit.synchronize()
