"""print() in kernels: strings, ints and floats of several dtypes, several
arguments, sep= and end=, an empty print(), more values than CUDA's printf
takes (its format printed instead, as numba-cuda does)."""
import re

import numpy as np

from cujit import jit

from ._common import rand


@jit.rawkernel()
def hello(n):
    if jit.grid(1) == 0:
        print("hello from the GPU")
        print("n =", n)
        print()
        print(1, 2, 3, sep="-")
        print("no newline", end="")
        print("|")


def _hello_out(out):
    assert "hello from the GPU\nn = 42\n\n1-2-3\nno newline|\n" in out, out


@jit.rawkernel()
def print_values(x, k, u):
    i = jit.grid(1)
    if i < 2:
        print("thread", i, "x", x[i], "k", k[i], "u", u[i])


def _values_out(out):
    lines = sorted(l for l in out.splitlines() if l.startswith("thread"))
    assert len(lines) == 2, out
    for i, line in enumerate(lines):
        m = re.fullmatch(r"thread (\d+) x (\S+) k (-?\d+) u (\d+)", line)
        assert m, line
        assert int(m.group(1)) == i
        assert abs(float(m.group(2)) - [1.5, -0.25][i]) < 1e-6
        assert int(m.group(3)) == [-7, 123456789012][i]
        assert int(m.group(4)) == [3, 2 ** 63 + 5][i]


def pytest_fail(out):
    raise AssertionError("unexpected output: %r" % out)


def _values_args():
    return (np.array([1.5, -0.25], np.float32), np.array([-7, 123456789012], np.int64),
            np.array([3, 2 ** 63 + 5], np.uint64))


@jit.rawkernel()
def no_arguments():
    if jit.grid(1) == 0:
        print("a kernel without parameters")


@jit.rawkernel()
def print_too_many(r):
    if jit.grid(1) == 0:
        print(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10],
              r[11], r[12], r[13], r[14], r[15], r[16], r[17], r[18], r[19], r[20],
              r[21], r[22], r[23], r[24], r[25], r[26], r[27], r[28], r[29], r[30],
              r[31], r[32])


def _too_many_out(out):
    assert " ".join(["%lld"] * 33) + "\n" in out, out


CASES = [
    (no_arguments, ("()",)),
    (hello, (42,), [("printf", True)]),
    (print_values, _values_args()),
    (print_values, (rand(4, np.float64), rand(4, np.int8), rand(4, np.uint16))),
    (print_values, (rand(4, np.float16), rand(4, np.int32), rand(4, np.bool_))),
    (print_too_many, (rand(33, np.int64),), [('printf("%s", "%lld %lld', True)]),
]

RUN = [
    (no_arguments, 1, 32, lambda: (), lambda: {},
     {"stdout": lambda out: "a kernel without parameters\n" in out or pytest_fail(out)}),
    (hello, 1, 32, lambda: (42,), lambda n: {}, {"stdout": _hello_out}),
    (print_values, 1, 32, _values_args, lambda x, k, u: {}, {"stdout": _values_out}),
    (print_too_many, 1, 32, lambda: (rand(33, np.int64),), lambda r: {},
     {"stdout": _too_many_out}),
]
