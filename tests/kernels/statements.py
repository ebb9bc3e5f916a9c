"""Statements: every assignment form, if/elif/else, while, for over range with
1-3 arguments and negative or runtime-signed steps, break, continue, pass,
return, assert and docstrings."""
import math

import numpy as np

from cujit import jit

from ._common import poison, rand


@jit.rawkernel()
def assign_forms(x, out):
    """A docstring: compiled to nothing."""
    i = jit.grid(1)
    if i < x.size:
        a = b = x[i]                 # a = b = c
        c, d = a + 1, b * 2          # tuple unpacking
        c, d = d, c                  # swap
        out[i, 0] = c
        out[i, 1] = d
        e = c
        e += 3
        e *= 2
        e -= d
        out[i, 2] = e
        out[i, 3] = out[i, 4] = a    # element targets, chained
        out[i, 3] += 1
        out[i, 4] *= 3
        (p, q) = (a, -a)             # parenthesised targets
        out[i, 5] = p - q


def _assign_forms_ref(x, out):
    x = x.astype(np.int64)
    return {1: np.stack([2 * x, x + 1, (2 * x + 3) * 2 - (x + 1), x + 1, 3 * x, 2 * x],
                        axis=1)}


@jit.rawkernel()
def swap_elements(x):
    i = jit.grid(1)
    n = x.size
    if i < n // 2:
        x[i], x[n - 1 - i] = x[n - 1 - i], x[i]


@jit.rawkernel()
def classify(x, out):
    i = jit.grid(1)
    if i >= x.size:
        return
    v = x[i]
    if v < -5:
        r = -2
    elif v < 0:
        r = -1
    elif v == 0:
        r = 0
    else:
        r = 1
    out[i] = r


def _classify_ref(x, out):
    return {1: np.select([x < -5, x < 0, x == 0], [-2, -1, 0], 1).astype(out.dtype)}


@jit.rawkernel()
def collatz(x, out):
    i = jit.grid(1)
    if i < x.size:
        n = x[i]
        steps = 0
        while n != 1:
            if steps >= 50:
                break
            steps += 1
            if n % 2 == 0:
                n = n // 2
                continue
            n = 3 * n + 1
        out[i] = steps


def _collatz_ref(x, out):
    res = []
    for n in x.tolist():
        steps = 0
        while n != 1 and steps < 50:
            steps += 1
            n = n // 2 if n % 2 == 0 else 3 * n + 1
        res.append(steps)
    return {1: np.array(res, out.dtype)}


@jit.rawkernel()
def range_forms(n, start, stop, step, out):
    if jit.grid(1) == 0:
        s1 = 0
        for k in range(n):
            s1 += k
        s2 = 0
        for k in range(3, n):
            s2 += k
        s3 = 0
        for k in range(n, 0, -2):
            s3 += k
        s4 = 0
        count = 0
        for k in range(start, stop, step):      # step known only at run time
            s4 += k
            count += 1
        s5 = 0
        for k in range(n - 1, -1, -1):
            s5 = s5 * 2 + k
        out[0] = s1
        out[1] = s2
        out[2] = s3
        out[3] = s4
        out[4] = count
        out[5] = s5


def _range_forms_ref(n, start, stop, step, out):
    s5 = 0
    for k in range(n - 1, -1, -1):
        s5 = s5 * 2 + k
    r = range(int(start), int(stop), int(step))
    return {4: np.array([sum(range(n)), sum(range(3, n)), sum(range(n, 0, -2)),
                         sum(r), len(r), s5], np.int64)}


def _range_args(start, stop, step):
    return lambda: (11, np.int32(start), np.int32(stop), np.int32(step),
                    poison(6, np.int64))


@jit.rawkernel()
def first_negative_and_pairs(x, out):
    i = jit.grid(1)
    if i < x.size:
        found = -1
        for j in range(i, x.size):
            if x[j] >= 0:
                continue
            found = j
            break
        out[i, 0] = found
        pairs = 0
        for j in range(i % 5 + 1):
            for k in range(6):
                if k > j:
                    break
                if (j + k) % 2 == 1:
                    continue
                pairs += 1
        out[i, 1] = pairs


def _first_negative_ref(x, out):
    res = np.empty(out.shape, out.dtype)
    for i in range(x.size):
        neg = [j for j in range(i, x.size) if x[j] < 0]
        res[i, 0] = neg[0] if neg else -1
        res[i, 1] = sum(1 for j in range(i % 5 + 1) for k in range(j + 1) if (j + k) % 2 == 0)
    return {1: res}


@jit.rawkernel()
def pass_and_return(x, out):
    i = jit.grid(1)
    if i >= x.size:
        return
    if x[i] > 0:
        pass
    else:
        out[i] = 0
        return
    out[i] = x[i]


@jit.rawkernel()
def assigned_on_all_paths(x, out):
    i = jit.grid(1)
    if i < x.size:
        if x[i] > 0:
            y = 1.5
        elif x[i] < 0:
            y = -1.5
        else:
            return
        out[i] = y       # y is assigned on every path that reaches here


def _all_paths_ref(x, out):
    return {1: np.where(x > 0, 1.5, np.where(x < 0, -1.5, np.nan))}


@jit.rawkernel()
def with_assert(x, out):
    i = jit.grid(1)
    if i < x.size:
        assert x[i] >= 0, "x must be non-negative"
        assert i < x.size
        out[i] = math.sqrt(x[i])


@jit.rawkernel()
def argmax_rows(x, out):
    i = jit.grid(1)
    if i < out.size:
        best = x[i, 0]
        arg = 0
        for j in range(1, x.shape[1]):
            if x[i, j] > best:
                best = x[i, j]
                arg = j
        out[i] = arg


@jit.rawkernel()
def while_countdown(x, out):
    i = jit.grid(1)
    if i < x.size:
        n = x[i]
        total = 0
        while n > 0 and total < 1000:
            total += n
            n -= 3
        out[i] = total


def _countdown_ref(x, out):
    res = []
    for n in x.tolist():
        total = 0
        while n > 0 and total < 1000:
            total += n
            n -= 3
        res.append(total)
    return {1: np.array(res, out.dtype)}


@jit.rawkernel()
def annotated_assign(x, out):
    i: int = jit.grid(1)
    if i < x.size:
        v: float = x[i] * 2
        out[i] = v


@jit.rawkernel()
def loop_variable_rebound(out):
    if jit.grid(1) == 0:
        count = 0
        total = 0
        for k in range(5):
            count += 1
            k += 10          # rebinding the loop variable does not change the iteration
            total += k
        out[0] = count
        out[1] = total


CASES = [
    (loop_variable_rebound, (poison(2, np.int64),)),
    (assign_forms, (rand(64, np.int32), poison((64, 6), np.int64))),
    (assign_forms, (rand(64, np.float32), poison((64, 6), np.float32))),
    (swap_elements, (rand(16, np.int32),)),
    (swap_elements, (rand(15, np.float64),)),
    (classify, (rand(100, np.int32), poison(100, np.int8))),
    (collatz, (rand(50, np.int64, 1, 100), poison(50, np.int32))),
    (range_forms, _range_args(2, 20, 3)()),
    (range_forms, ("(int64, int32, int32, int32, int64[:])",)),
    (first_negative_and_pairs, (rand(40, np.float32), poison((40, 2), np.int64))),
    (pass_and_return, (rand(32, np.float32), poison(32, np.float32))),
    (assigned_on_all_paths, (rand(32, np.int32, -3, 3), poison(32, np.float64))),
    (with_assert, (rand(32, np.float32, 0, 9), poison(32, np.float32))),
    (argmax_rows, (rand((20, 7), np.float32), poison(20, np.int32))),
    (while_countdown, (rand(33, np.int32, -5, 60), poison(33, np.int64))),
    (annotated_assign, (rand(8, np.float64), poison(8, np.float64))),
]

RUN = [
    (loop_variable_rebound, 1, 1, lambda: (poison(2, np.int64),),
     lambda out: {0: np.array([5, sum(k + 10 for k in range(5))], np.int64)}),
    (assign_forms, 1, 64, lambda: (rand(64, np.int32, -1000, 1000), poison((64, 6), np.int64)),
     _assign_forms_ref),
    (swap_elements, 1, 32, lambda: (rand(16, np.int32),), lambda x: {0: x[::-1].copy()}),
    (swap_elements, 1, 32, lambda: (rand(15, np.float64),), lambda x: {0: x[::-1].copy()}),
    (classify, 2, 64, lambda: (rand(100, np.int32), poison(100, np.int8)), _classify_ref),
    (collatz, 1, 64, lambda: (rand(50, np.int64, 1, 100), poison(50, np.int32)), _collatz_ref),
    (range_forms, 1, 32, _range_args(2, 20, 3), _range_forms_ref),
    (range_forms, 1, 32, _range_args(20, 2, -3), _range_forms_ref),
    (range_forms, 1, 32, _range_args(5, 5, 1), _range_forms_ref),
    (range_forms, 1, 32, _range_args(5, 9, -1), _range_forms_ref),
    (first_negative_and_pairs, 1, 64, lambda: (rand(40, np.float32), poison((40, 2), np.int64)),
     _first_negative_ref),
    (pass_and_return, 1, 64, lambda: (rand(40, np.float32), poison(40, np.float32)),
     lambda x, out: {1: np.maximum(x, 0)}),
    (assigned_on_all_paths, 1, 64, lambda: (rand(40, np.int32, -3, 3), poison(40, np.float64)),
     _all_paths_ref),
    (with_assert, 1, 64, lambda: (rand(40, np.float32, 0, 9), poison(40, np.float32)),
     lambda x, out: {1: np.sqrt(x)}),
    (argmax_rows, 1, 32, lambda: (rand((20, 7), np.float32), poison(20, np.int32)),
     lambda x, out: {1: np.argmax(x, axis=1).astype(np.int32)}),
    (while_countdown, 1, 64, lambda: (rand(33, np.int32, -5, 60), poison(33, np.int64)),
     _countdown_ref),
    (annotated_assign, 1, 8, lambda: (rand(8, np.float64), poison(8, np.float64)),
     lambda x, out: {1: x * 2}),
]
