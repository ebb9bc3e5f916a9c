"""Complex numbers: complex64 / complex128 arithmetic, .real, .imag,
.conjugate(), abs, == and !=, weak complex literals (NEP 50), mixing with
real dtypes, complex scalar arguments."""
import numpy as np

from cujit import jit

from ._common import poison, rand


@jit.rawkernel()
def complex_arith(a, b, out, outr, outb):
    i = jit.grid(1)
    if i < a.size:
        x = a[i]
        y = b[i]
        out[i, 0] = x + y
        out[i, 1] = x - y
        out[i, 2] = x * y
        out[i, 3] = x / y
        out[i, 4] = -x
        out[i, 5] = x.conjugate()
        out[i, 6] = x * 2.0 + 1j               # weak literals keep complex64
        out[i, 7] = complex(x.real, -x.imag)
        out[i, 8] = +x
        outr[i, 0] = x.real
        outr[i, 1] = x.imag
        outr[i, 2] = abs(x)
        outr[i, 3] = (x * y.conjugate()).real
        outb[i, 0] = x == y
        outb[i, 1] = x != y


def _arith_ref(a, b, out, outr, outb):
    c = np.stack([a + b, a - b, a * b, a / b, -a, np.conj(a), a * 2.0 + 1j,
                  a.real - 1j * a.imag, a], axis=1)
    r = np.stack([a.real, a.imag, np.abs(a), (a * np.conj(b)).real], axis=1)
    return {2: c.astype(out.dtype), 3: r.astype(outr.dtype), 4: np.stack([a == b, a != b], 1)}


def _arith_args(dt):
    rdt = np.float32 if dt == np.complex64 else np.float64
    def make():
        n = 48
        a = rand(n, dt, -4, 4)
        b = rand(n, dt, -4, 4)
        b[np.abs(b) < 0.5] = 1 + 1j
        b[::6] = a[::6]
        return a, b, poison((n, 9), dt), poison((n, 4), rdt), poison((n, 2), np.bool_)
    return make


@jit.rawkernel()
def complex_mixed(z, f, k, s, out):
    i = jit.grid(1)
    if i < z.size:
        out[i, 0] = z[i] * f[i]         # complex64 * float64 -> complex128
        out[i, 1] = z[i] + k[i]         # complex64 + int32 -> complex128
        out[i, 2] = f[i] * 1j           # float64 * weak complex -> complex128
        out[i, 3] = z[i] * s            # complex scalar argument (complex128)
        w = 1 + 2j
        w *= z[i]
        out[i, 4] = w


def _mixed_ref(z, f, k, s, out):
    z128 = z.astype(np.complex128)
    w = (np.complex64(1 + 2j) * z).astype(np.complex128)     # weak 1 + 2j meets complex64
    c = np.stack([z128 * f, z128 + k, f * 1j, z128 * s, w], axis=1)
    return {4: c}


def _mixed_args():
    n = 32
    return (rand(n, np.complex64, -3, 3), rand(n, np.float64, -3, 3), rand(n, np.int32),
            complex(0.5, -1.5), poison((n, 5), np.complex128))


@jit.rawkernel()
def complex_of_float32(x, out):
    i = jit.grid(1)
    if i < x.size:
        out[i] = x[i] * 1j + 0.5         # float32 with a weak complex: complex64


@jit.rawkernel()
def complex_magnitudes(z, out):
    i = jit.grid(1)
    if i < z.size:
        acc = 0j
        for k in range(z.shape[1]):
            acc += z[i, k] * z[i, k].conjugate()
        out[i] = acc.real


@jit.rawkernel()
def complex_powers(z, w, out):
    i = jit.grid(1)
    if i < z.size:
        out[i, 0] = z[i] ** 2            # integer exponents: repeated products
        out[i, 1] = z[i] ** -3
        out[i, 2] = z[i] ** 0.5          # exp(b log a)
        out[i, 3] = z[i] ** w[i]
        out[i, 4] = 2.0 ** w[i]          # weak real base meets complex
        out[i, 5] = z[i] ** 0


def _powers_ref(z, w, out):
    c = np.stack([z ** 2, z ** -3, z ** 0.5, z ** w, np.float64(2.0) ** w, z ** 0], axis=1)
    return {2: c.astype(out.dtype)}


def _powers_args(dt):
    def make():
        n = 40
        return rand(n, dt, -2, 2), rand(n, dt, -2, 2), poison((n, 6), dt)
    return make


CASES = [
    (complex_arith, _arith_args(np.complex64)()),
    (complex_arith, _arith_args(np.complex128)()),
    (complex_mixed, _mixed_args()),
    (complex_of_float32, (rand(16, np.float32), poison(16, np.complex64))),
    (complex_magnitudes, (rand((8, 5), np.complex128), poison(8, np.float64))),
    (complex_magnitudes, (rand((8, 5), np.complex64), poison(8, np.float32))),
    (complex_powers, _powers_args(np.complex64)()),
    (complex_powers, _powers_args(np.complex128)()),
]

RUN = [
    (complex_arith, 1, 64, _arith_args(np.complex64), _arith_ref),
    (complex_arith, 1, 64, _arith_args(np.complex128), _arith_ref),
    (complex_mixed, 1, 32, _mixed_args, _mixed_ref),
    (complex_of_float32, 1, 16, lambda: (rand(16, np.float32), poison(16, np.complex64)),
     lambda x, out: {1: (x * np.complex64(1j) + np.float32(0.5)).astype(np.complex64)}),
    (complex_magnitudes, 1, 8, lambda: (rand((8, 5), np.complex128), poison(8, np.float64)),
     lambda z, out: {1: (np.abs(z) ** 2).sum(axis=1)}),
    (complex_powers, 1, 40, _powers_args(np.complex64), _powers_ref),
    (complex_powers, 1, 40, _powers_args(np.complex128), _powers_ref),
]
