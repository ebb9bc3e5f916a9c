"""A name that holds different types at different places (frontend/webs.c:
one variable per web of definitions and uses, as Numba types each SSA
version apart): a number then a tuple, a loop variable reused for an array,
an array parameter rebound to a view of itself (arr = arr[1:],
arr = arr.reshape(...)), two arrays of one layout taking turns, a parameter
widened on one path, a branch decided by the types (len(args) == 2)."""
import numpy as np

from cujit import cuda

from ._common import poison, rand


@cuda.jit
def number_then_tuple(x, out):
    """b holds a float, then a tuple: two variables."""
    i = cuda.grid(1)
    if i < x.size:
        b = x[i] * 2
        out[i, 0] = b
        b = (x[i], x[i] + 1)
        out[i, 1] = b[0] + b[1]


def _number_then_tuple_ref(x, out):
    r = out.copy()
    r[:, 0] = x * 2
    r[:, 1] = x + (x + 1)
    return {1: r}


@cuda.jit
def loop_var_then_array(res, m, n, b):
    """t is a range() variable, then an array (Numba's issue 5493)."""
    for t in range(1, m):
        for idx in range(n):
            t = b
            if idx == 0:
                res[0] = t[0]
            else:
                res[0] += t[idx % t.size]


def _loop_var_then_array_ref(res, m, n, b):
    r = res.copy()
    for _ in range(1, m):
        for idx in range(n):
            if idx == 0:
                r[0] = b[0]
            else:
                r[0] += b[idx % b.size]
    return {0: r}


@cuda.jit
def rebind_param_slices(arr, out):
    """arr = arr[1:] in a loop: the parameter is a view that moves."""
    s = 0.0
    k = 0
    while arr.size > 0:
        s += arr[0] * (k + 1)
        arr = arr[1:]
        k += 1
    out[0] = s
    out[1] = k


def _rebind_param_slices_ref(arr, out):
    r = out.copy()
    r[0] = sum(float(v) * (k + 1) for k, v in enumerate(arr.astype(np.float64)))
    r[1] = arr.size
    return {1: r}


@cuda.jit
def rebind_param_reshape(result, arr):
    """Numba's issue 3931: a 2-d parameter rebound to 1-d and back."""
    for i in range(1):
        arr = arr.reshape(arr.size)
        arr = arr.reshape(result.shape[0], result.shape[1])
    for i in range(arr.shape[0]):
        for j in range(arr.shape[1]):
            result[i, j] = arr[i, j] * 3


def _rebind_param_reshape_ref(result, arr):
    return {0: arr * 3}


@cuda.jit
def arrays_take_turns(a, b, out, flip):
    """t is a, then b (both C-contiguous 1-d): a pointer rebind per path."""
    i = cuda.grid(1)
    if i < out.size:
        t = a
        if (i + flip) % 2 == 1:
            t = b
        out[i] = t[i] + 1


def _arrays_take_turns_ref(a, b, out, flip):
    idx = np.arange(out.size)
    return {2: np.where((idx + flip) % 2 == 1, b, a) + np.float32(1)}


@cuda.jit
def views_of_two_layouts(a, out):
    """t is a contiguous row or a strided column: one strided view type."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        t = a[i]
        if i % 2 == 1:
            t = a[:, i]
        s = 0.0
        for k in range(t.size):
            s += t[k] * (k + 1)
        out[i] = s


def _views_ref(a, out):
    r = out.copy()
    w = np.arange(1, a.shape[1] + 1)
    for i in range(out.shape[0]):
        t = a[:, i] if i % 2 else a[i]
        r[i] = (t.astype(np.float64) * w).sum()
    return {1: r}


@cuda.jit
def widened_param(x, out, c):
    """c (an int64) is 0.5 on some paths: the variable is a float64, its
    argument converted once."""
    i = cuda.grid(1)
    if i < x.size:
        v = c
        if x[i] > 0:
            v = 0.5
        out[i] = v * x[i]


def _widened_ref(x, out, c):
    return {1: np.where(x > 0, 0.5, float(c)) * x.astype(np.float64)}


@cuda.jit(device=True)
def _sum_args(*z):
    if len(z) == 1:
        tmp = z[0]
    elif len(z) == 2:
        tmp = z[0] + z[1]
    else:
        tmp = 0
    return 10 + tmp


@cuda.jit
def branch_by_tuple_length(x, out):
    """len(z) decides the branch: z[1] of a 1-tuple is never compiled."""
    i = cuda.grid(1)
    if i < x.size:
        out[i] = _sum_args(x[i]) + _sum_args(x[i], 2 * x[i])


def _branch_ref(x, out):
    return {1: (10 + x) + (10 + x + 2 * x)}


N = 37

CASES = [
    (number_then_tuple, (rand(N), poison((N, 2)))),
    (loop_var_then_array, (poison(1), 4, 5, rand(3))),
    (rebind_param_slices, (rand(9), poison(2))),
    (rebind_param_reshape, (poison((3, 4)), rand((3, 4)))),
    (arrays_take_turns, (rand(N), rand(N), poison(N), 1)),
    (views_of_two_layouts, (rand((6, 6)), poison(6))),
    (widened_param, (rand(N), poison(N, np.float64), 3)),
    (branch_by_tuple_length, (rand(N, np.int64), poison(N, np.int64))),
]

RUN = [
    (number_then_tuple, 1, 64, lambda: (rand(N), poison((N, 2))), _number_then_tuple_ref),
    (loop_var_then_array, 1, 1, lambda: (poison(1), 4, 5, rand(3)), _loop_var_then_array_ref),
    (rebind_param_slices, 1, 1, lambda: (rand(9), poison(2)), _rebind_param_slices_ref),
    (rebind_param_reshape, 1, 1, lambda: (poison((3, 4)), rand((3, 4))),
     _rebind_param_reshape_ref),
    (arrays_take_turns, 1, 64, lambda: (rand(N), rand(N), poison(N), 1), _arrays_take_turns_ref),
    (arrays_take_turns, 1, 64, lambda: (rand(N), rand(N), poison(N), 0), _arrays_take_turns_ref),
    (views_of_two_layouts, 1, 8, lambda: (rand((6, 6)), poison(6)), _views_ref),
    (widened_param, 1, 64, lambda: (rand(N), poison(N, np.float64), 3), _widened_ref),
    (branch_by_tuple_length, 1, 64, lambda: (rand(N, np.int64), poison(N, np.int64)),
     _branch_ref),
]
