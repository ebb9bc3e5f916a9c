"""cujit.cooperative (also ``cujit.cuda.cooperative``): CCCL's cuda.coop
(``cuda.cooperative.experimental``) block and warp algorithms for Numba-style
kernels, compiled by cujit's own collectives::

    from cujit import cuda
    from cujit.cuda import cooperative as coop

    block_reduce = coop.block.reduce(numpy.int32, 128, lambda a, b: max(a, b))

    @cuda.jit(link=block_reduce.files)
    def kernel(input, output):
        temp_storage = cuda.shared.array(shape=block_reduce.temp_storage_bytes,
                                         dtype="uint8")       # optional
        v = block_reduce(temp_storage, input[cuda.threadIdx.x])
        if cuda.threadIdx.x == 0:
            output[0] = v

Each factory returns an object the compiler reads (``__cujit_collective__``):
called in a kernel as ``f([temp_storage,] value[, num_valid])`` it returns
the aggregate (reductions; thread 0 holds it in CUB, every thread in cujit)
or the thread's scan result.  ``files`` is empty (nothing to link) and the
temp storage, if passed, is not used: cujit allocates its own.  Not
supported yet, each raising NotImplementedError: ``items_per_thread`` above
1, ``prefix_op`` (block prefix callbacks), user-defined types (``methods=``),
logical warps other than 32 lanes.
"""
import operator
import types

from cujit.cub import _dtype

# operators given by name or as Python's own functions
_KNOWN_OPS = {"+": "sum", "add": "sum", "sum": "sum", "max": "max", "min": "min",
              operator.add: "sum", max: "max", min: "min"}

__all__ = ["block", "warp"]


class _Collective:
    """One specialized algorithm; call it inside a kernel."""

    def __init__(self, kind, name, op, dtype, inclusive=False, initial=None, storage=1):
        dt = _dtype(dtype)
        op = _KNOWN_OPS.get(op, op) if isinstance(op, str) or op in _KNOWN_OPS else op
        if op is not None and not (callable(op) or isinstance(op, str)):
            raise TypeError(f"{name}: the operator must be a function of two values or one "
                            f"of 'sum', 'max', 'min', not {op!r}")
        self.__cujit_collective__ = (kind, op, dt, inclusive, initial,
                                     ("temp_storage", "value", "valid"))
        self.__name__ = name
        self.dtype = dt
        self.files = []
        self.temp_storage_bytes = storage * dt.itemsize
        self.temp_storage_alignment = 16

    def __call__(self, *args):
        raise RuntimeError(f"{self.__name__}() can only be called inside a kernel")

    def __repr__(self):
        return f"<cujit {self.__name__} of {self.dtype}>"


def _threads(threads_per_block):
    dims = (threads_per_block if isinstance(threads_per_block, tuple)
            else (threads_per_block,))
    n = 1
    for d in dims:
        if not isinstance(d, int) or d < 1:
            raise ValueError(f"threads_per_block must be positive integers, got "
                             f"{threads_per_block!r}")
        n *= d
    if len(dims) > 3 or n > 1024:
        raise ValueError(f"threads_per_block {threads_per_block!r}: at most 3 dimensions "
                         "and 1024 threads")


_REDUCE_ALGORITHMS = ("raking", "raking_commutative_only", "warp_reductions")
_SCAN_ALGORITHMS = ("raking", "raking_memoize", "warp_scans")


def _algorithm(algorithm, known):
    """CUB's algorithm names are checked as cuda.coop checks them; cujit runs
    its own code for each"""
    if algorithm not in known:
        raise ValueError(f"Unsupported algorithm: {algorithm!r} (one of {', '.join(known)})")


def _unsupported(items_per_thread=1, prefix_op=None, methods=None, algorithm=None,
                 threads_in_warp=32):
    if not isinstance(items_per_thread, int) or items_per_thread < 1:
        raise ValueError("items_per_thread must be an integer >= 1")
    if items_per_thread != 1:
        raise NotImplementedError("cujit's collectives take one item per thread "
                                  "(items_per_thread=1): reduce a thread's items first")
    if prefix_op is not None:
        raise NotImplementedError("block prefix callbacks (prefix_op) are not supported; "
                                  "add the running total to the scan's results")
    if methods is not None:
        raise NotImplementedError("user-defined types (methods=) are not supported: "
                                  "collectives take NumPy numeric types")
    if threads_in_warp != 32:
        raise NotImplementedError("logical warps other than 32 lanes are not supported")


def _block_reduce(dtype, threads_per_block, binary_op, items_per_thread=1,
                  algorithm="warp_reductions", methods=None):
    """coop.block.reduce: the block's values combined by binary_op(a, b)."""
    _threads(threads_per_block)
    _algorithm(algorithm, _REDUCE_ALGORITHMS)
    _unsupported(items_per_thread, methods=methods)
    return _Collective("block_reduce", "coop.block.reduce", binary_op, dtype, storage=33)


def _block_sum(dtype, threads_per_block, items_per_thread=1, algorithm="warp_reductions",
               methods=None):
    """coop.block.sum: the sum of the block's values."""
    _threads(threads_per_block)
    _algorithm(algorithm, _REDUCE_ALGORITHMS)
    _unsupported(items_per_thread, methods=methods)
    return _Collective("block_reduce", "coop.block.sum", "sum", dtype, storage=33)


def _scan(kind, name, inclusive):
    def sum_(dtype, threads_per_block=None, items_per_thread=1, prefix_op=None,
             algorithm="raking", methods=None, threads_in_warp=32):
        if kind == "block_scan":
            _threads(threads_per_block)
            _algorithm(algorithm, _SCAN_ALGORITHMS)
        _unsupported(items_per_thread, prefix_op, methods, threads_in_warp=threads_in_warp)
        return _Collective(kind, f"{name}_sum", "sum", dtype, inclusive, storage=32)

    def scan(dtype, threads_per_block=None, scan_op="+", initial_value=None,
             items_per_thread=1, prefix_op=None, algorithm="raking", methods=None,
             threads_in_warp=32):
        if kind == "block_scan":
            _threads(threads_per_block)
            _algorithm(algorithm, _SCAN_ALGORITHMS)
        _unsupported(items_per_thread, prefix_op, methods, threads_in_warp=threads_in_warp)
        return _Collective(kind, f"{name}_scan", scan_op, dtype, inclusive, initial_value,
                           storage=32)
    return sum_, scan


def _warp_reduce(dtype, binary_op, threads_in_warp=32, methods=None):
    """coop.warp.reduce: the warp's values combined by binary_op(a, b)."""
    _unsupported(methods=methods, threads_in_warp=threads_in_warp)
    return _Collective("warp_reduce", "coop.warp.reduce", binary_op, dtype)


def _warp_sum(dtype, threads_in_warp=32):
    """coop.warp.sum: the sum of the warp's values."""
    _unsupported(threads_in_warp=threads_in_warp)
    return _Collective("warp_reduce", "coop.warp.sum", "sum", dtype)


block = types.SimpleNamespace(reduce=_block_reduce, sum=_block_sum)
block.exclusive_sum, block.exclusive_scan = _scan("block_scan", "coop.block.exclusive", False)
block.inclusive_sum, block.inclusive_scan = _scan("block_scan", "coop.block.inclusive", True)


def _warp_scans(mode, inclusive):
    s, c = _scan("warp_scan", f"coop.warp.{mode}", inclusive)

    def sum_(dtype, threads_in_warp=32, methods=None):
        return s(dtype, methods=methods, threads_in_warp=threads_in_warp)

    def scan(dtype, scan_op="+", initial_value=None, threads_in_warp=32, methods=None):
        return c(dtype, None, scan_op, initial_value, methods=methods,
                 threads_in_warp=threads_in_warp)
    sum_.__doc__ = f"coop.warp.{mode}_sum: the warp's {mode} prefix sum."
    scan.__doc__ = f"coop.warp.{mode}_scan: the warp's {mode} scan by scan_op(a, b)."
    return sum_, scan


warp = types.SimpleNamespace(reduce=_warp_reduce, sum=_warp_sum)
warp.exclusive_sum, warp.exclusive_scan = _warp_scans("exclusive", False)
warp.inclusive_sum, warp.inclusive_scan = _warp_scans("inclusive", True)
