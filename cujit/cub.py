"""cujit.jit.cub: cupyx.jit.cub's block and warp reductions, spelled as CuPy
spells them, compiled by cujit's own collectives (no CUB: see ARCHITECTURE.md)::

    @jit.rawkernel()
    def block_sum(x, y):
        BlockReduce = jit.cub.BlockReduce[numpy.float32, 256]
        temp_storage = jit.shared_memory(dtype=BlockReduce.TempStorage, size=1)
        i, j = jit.blockIdx.x, jit.threadIdx.x
        aggregate = BlockReduce(temp_storage[0]).Sum(x[i, j])
        if j == 0:
            y[i] = aggregate

``WarpReduce[T]`` and ``BlockReduce[T, BLOCK_DIM_X]`` are class objects the
compiler binds at compile time (frontend/collective.c); their ``.Sum(value[,
valid])`` and ``.Reduce(value, op[, valid])`` are collectives (tagged
``__cujit_collective__``), ``op`` being ``jit.cub.Sum()``, ``Max()``,
``Min()`` or a device function.  As in CUB, thread 0 (lane 0) holds the
aggregate; cujit gives it to every thread.  ``TempStorage`` is a one-byte
stand-in: cujit allocates the storage it needs itself.
"""
__all__ = ["WarpReduce", "BlockReduce", "Sum", "Max", "Min"]


def _dtype(t):
    import numpy        # not at import: `import cujit` loads no NumPy
    try:
        dt = numpy.dtype(t)
    except TypeError:
        dt = numpy.dtype(str(t))     # numba.int32 and friends print as their NumPy name
    if dt.kind not in "biufc":
        raise TypeError(f"collectives take numeric types, not {t!r}")
    return dt


class _Method:
    """WarpReduce[T].Sum / .Reduce: a collective the compiler reads."""

    def __init__(self, cls, name, op, params):
        self.__cujit_collective__ = (cls._kind, op, cls.T, False, None, params)
        self.__name__ = name

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"{self.__name__}() can only be called inside a kernel")


class _Class:
    """WarpReduce[T] or BlockReduce[T, BLOCK_DIM_X] (CuPy's class template
    instances); calling one with its temp storage gives the same object."""
    __cujit_collective__ = "class"

    def __init__(self, kind, name, T):
        self._kind = kind
        self._name = name
        import numpy
        self.T = _dtype(T)
        self.TempStorage = numpy.uint8
        self.Sum = _Method(self, f"{name}.Sum", "sum", ("value", "valid"))
        self.Reduce = _Method(self, f"{name}.Reduce", None, ("value", "op", "valid"))

    def __call__(self, temp_storage=None):
        return self

    def __repr__(self):
        return f"<cujit {self._name}>"


class _Template:
    __cujit_collective__ = "template"

    def __init__(self, kind, name):
        self._kind = kind
        self.__name__ = name

    def __getitem__(self, args):
        args = args if isinstance(args, tuple) else (args,)
        if self._kind == "warp_reduce":
            if len(args) not in (1, 2) or (len(args) == 2 and args[1] != 32):
                raise TypeError("WarpReduce[T] (or WarpReduce[T, 32]): cujit's warps are "
                                "the hardware's 32 lanes")
            return _Class(self._kind, f"WarpReduce[{_dtype(args[0])}]", args[0])
        if len(args) != 2 or not isinstance(args[1], int) or not 1 <= args[1] <= 1024:
            raise TypeError("BlockReduce[T, BLOCK_DIM_X] takes a type and a block size "
                            "from 1 to 1024")
        return _Class(self._kind, f"BlockReduce[{_dtype(args[0])}, {args[1]}]", args[0])

    def __repr__(self):
        return f"<cujit jit.cub.{self.__name__}>"


WarpReduce = _Template("warp_reduce", "WarpReduce")
BlockReduce = _Template("block_reduce", "BlockReduce")


class _Functor:
    def __init__(self, name):
        self.__cujit_combiner__ = name

    def __repr__(self):
        return f"<cujit jit.cub.{self.__cujit_combiner__.capitalize()}()>"


def Sum():
    """cub::Sum(): the combiner a + b (called in the kernel: jit.cub.Sum())."""
    return _Functor("sum")


def Max():
    """cub::Max(): the larger of two values."""
    return _Functor("max")


def Min():
    """cub::Min(): the smaller of two values."""
    return _Functor("min")
