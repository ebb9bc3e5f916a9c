"""jit.thrust: cupyx.jit.thrust's spelling of Thrust's algorithms in kernels.

``jit.thrust.sort(jit.thrust.device, row.begin(), row.end())`` sorts in the
calling thread, as Thrust does in device code without dynamic parallelism
(cupyx.jit lowers the same call to ``thrust::sort(thrust::device, ...)`` and
compiles it with nvcc).  cujit compiles with NVRTC, where Thrust's headers do
not compile (they need the C++ standard library and host code), so the
algorithms are cujit's own per-thread code (codegen/thrust.c, ARCHITECTURE.md
"jit.thrust").  Iterators: ``a.begin()`` / ``a.end()`` of a 1-d array or
view, a shared array plus an offset (``smem + 32``), and
``make_constant_iterator`` / ``make_counting_iterator``.

Each name here is a tag the compiler reads; calling one from Python raises."""

# cupyx.jit.thrust's algorithms and iterator factories (common/cj.h,
# CJ_THRUST_ALGOS, gives each one's arguments and result)
NAMES = (
    "adjacent_difference", "binary_search", "copy", "count", "equal", "equal_range",
    "exclusive_scan", "exclusive_scan_by_key", "fill", "find", "gather", "inclusive_scan",
    "inclusive_scan_by_key", "inner_product", "is_sorted", "is_sorted_until", "lower_bound",
    "make_constant_iterator", "make_counting_iterator", "mismatch", "reduce", "reduce_by_key",
    "remove", "remove_copy", "replace", "replace_copy", "reverse", "reverse_copy", "scatter",
    "sequence", "set_difference", "set_difference_by_key", "set_intersection",
    "set_intersection_by_key", "set_symmetric_difference", "set_symmetric_difference_by_key",
    "set_union", "set_union_by_key", "sort", "sort_by_key", "stable_sort", "stable_sort_by_key",
    "swap_ranges", "unique", "unique_by_key", "upper_bound",
)


class _Name:
    """A jit.thrust name: it means something inside kernels only."""

    def __init__(self, name):
        self.__name__ = name
        self.__cujit_builtin__ = "thrust." + name

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"jit.thrust.{self.__name__}() can only be used inside a "
                           "@jit.rawkernel() function")

    def __repr__(self):
        return f"<cujit builtin jit.thrust.{self.__name__}>"


for _name in NAMES:
    globals()[_name] = _Name(_name)

device = _Name("device")     # execution policies: both run in the calling thread
seq = _Name("seq")

__all__ = list(NAMES) + ["device", "seq"]
del _name
